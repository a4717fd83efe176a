/**
 * Where webhook signing secrets live (docs/changes.md "The signing secret"): never in agent.yaml
 * (it arrives with a cloned repository), never in the store (exports and snapshots carry it).
 * {@link SecretStore} is the place: the OS keychain where one answers ({@link KeychainSecretStore},
 * through the same binding as the encryption keys, src/core/crypto/osKeychain.ts), else
 * {@link FileSecretStore}: one JSON file readable by the user alone (0600) in a folder only the
 * user can open (0700), outside every store folder. {@link webhookSecretStore} chooses.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { KeychainBackend, UserKeyring } from '../crypto/userKeys';

export interface SecretStore {
  /** What people are told the secrets are kept in ("a private file: /home/me/.agent-memory/secrets/webhooks.json"). */
  readonly where: string;
  get(key: string): Promise<string | undefined>;
  set(key: string, value: string): Promise<void>;
  delete(key: string): Promise<void>;
}

/** Secrets in one private JSON file (0600), written whole to a temporary file and renamed. */
export class FileSecretStore implements SecretStore {
  constructor(private readonly file: string) {}

  get where(): string {
    return `a file only you can read: ${this.file}`;
  }

  async get(key: string): Promise<string | undefined> {
    return Promise.resolve(this.read()[key]);
  }

  async set(key: string, value: string): Promise<void> {
    this.write({ ...this.read(), [key]: value });
    return Promise.resolve();
  }

  async delete(key: string): Promise<void> {
    const all = this.read();
    if (!(key in all)) return;
    delete all[key];
    this.write(all);
    return Promise.resolve();
  }

  private read(): Record<string, string> {
    let text: string;
    try {
      text = fs.readFileSync(this.file, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return {};
      throw e;
    }
    const parsed: unknown = JSON.parse(text);
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error(`${this.file} does not hold webhook secrets`);
    return Object.fromEntries(Object.entries(parsed).filter((e): e is [string, string] => typeof e[1] === 'string'));
  }

  private write(all: Record<string, string>): void {
    const dir = path.dirname(this.file);
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (process.platform !== 'win32') fs.chmodSync(dir, 0o700);
    const tmp = path.join(dir, `.${path.basename(this.file)}.${randomUUID()}.tmp`);
    const fd = fs.openSync(tmp, 'wx', 0o600);
    try {
      fs.writeSync(fd, JSON.stringify(all, null, 2));
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, this.file);
  }
}

/** The keychain account of a webhook secret (service "Agent Memory", like the encryption keys). */
export const keychainAccount = (key: string): string => `webhook-secret:${key}`;

/**
 * Secrets in the OS keychain. A secret still in the file of an earlier version (or of a time no
 * keychain answered) is moved into the keychain the first time it is read, then removed from the
 * file: it keeps working, and ends up in one place.
 */
export class KeychainSecretStore implements SecretStore {
  readonly where = 'the keychain of this computer (entries of "Agent Memory")';

  constructor(
    private readonly keychain: KeychainBackend,
    private readonly file: FileSecretStore,
  ) {}

  async get(key: string): Promise<string | undefined> {
    const kept = this.keychain.get(keychainAccount(key));
    if (kept) return kept;
    const old = await this.file.get(key);
    if (old === undefined) return undefined;
    this.keychain.set(keychainAccount(key), old);
    await this.file.delete(key);
    return old;
  }

  async set(key: string, value: string): Promise<void> {
    this.keychain.set(keychainAccount(key), value);
    await this.file.delete(key); // an older copy in the file must not outlive a rotation
  }

  async delete(key: string): Promise<void> {
    this.keychain.delete(keychainAccount(key));
    await this.file.delete(key);
  }
}

/** The file store, saying why it is used (no keychain answers here). */
class FallbackFileSecretStore extends FileSecretStore {
  constructor(
    file: string,
    private readonly why: string,
  ) {
    super(file);
  }

  override get where(): string {
    return `${super.where} (no keychain answers here: ${this.why})`;
  }
}

/** The keychain of `keys` when it answers (secrets of `file` move into it), else the private file `file`. */
export function webhookSecretStore(keys: UserKeyring, file: string): SecretStore {
  const keychain = keys.answeringKeychain();
  if (keychain) return new KeychainSecretStore(keychain, new FileSecretStore(file));
  const state = keys.keychainState();
  return new FallbackFileSecretStore(file, state.ok ? 'unknown' : state.why);
}
