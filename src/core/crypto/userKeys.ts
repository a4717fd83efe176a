/**
 * The per-user keys that wrap each store's data key (docs/encryption.md "Where the key is kept"),
 * looked for in order: a recovery key given in AGENT_MEMORY_RECOVERY_KEY, the OS keychain (Secret
 * Service / Keychain / Credential Manager), and a key file (0600) that exists only when the person
 * chose it because no keychain answers. Every process of the user (the extension's engine, the
 * CLI, the MCP server) builds the same keyring, so each reaches the same key.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { UserFacingError, errorMessage } from '../util/errors';
import { KEY_BYTES, newKey } from './aead';
import { parseRecoveryKey } from './recoveryKey';

export interface UserKey {
  id: string;
  key: Buffer;
}

/** Where a key was found or kept, as said to people. */
export type KeySource = 'the recovery key in AGENT_MEMORY_RECOVERY_KEY' | 'the keychain' | 'the key file';

/** The id of a user key: a hash of it (not secret), the same on every machine. */
export function userKeyId(key: Uint8Array): string {
  return createHash('sha256').update('agent-memory user key id|').update(key).digest('hex').slice(0, 16);
}

export function userKey(key: Buffer): UserKey {
  if (key.length !== KEY_BYTES) throw new RangeError(`a user key is ${KEY_BYTES} bytes`);
  return { id: userKeyId(key), key };
}

/** The OS keychain's calls used here (src/core/crypto/osKeychain.ts; tests give one of their own). */
export interface KeychainBackend {
  /** The secret saved under `account`, null when there is none; throws when the keychain does not answer. */
  get(account: string): string | null;
  set(account: string, secret: string): void;
  /** Removes the secret saved under `account` (nothing when there is none). */
  delete(account: string): void;
}

const CURRENT = 'current-user-key';
const account = (id: string) => `user-key-${id}`;

interface KeyFileContent {
  format: 'agent-memory-user-keys';
  current?: string;
  keys: Record<string, string>;
}

export interface UserKeyringOptions {
  /** The OS keychain; undefined when it could not be loaded (the reason in keychainError). */
  keychain?: KeychainBackend;
  keychainError?: string;
  /** The key file's path (used only once it exists: the person opted in). */
  keyFile?: string;
  env?: Record<string, string | undefined>;
}

export type KeychainState = { ok: true } | { ok: false; why: string };

export class UserKeyring {
  private probed: KeychainState | undefined;
  /**
   * Keys found in the keychain or the key file, by id: a process opens several stores under the
   * same key (an engine opens the project's and the global one, and again after a reload), and
   * each keychain call is a synchronous round trip to the Secret Service / Keychain. Only keys
   * found are kept (a key imported later is still looked for); user keys are never deleted.
   */
  private readonly found = new Map<string, { key: UserKey; source: KeySource }>();

  constructor(private readonly opts: UserKeyringOptions) {}

  get keyFile(): string | undefined {
    return this.opts.keyFile;
  }

  /** Whether the OS keychain answers (asked once per keyring). */
  keychainState(): KeychainState {
    if (this.probed) return this.probed;
    if (!this.opts.keychain) return (this.probed = { ok: false, why: this.opts.keychainError ?? 'no keychain package for this platform' });
    try {
      this.opts.keychain.get(CURRENT);
      this.probed = { ok: true };
    } catch (e) {
      this.probed = { ok: false, why: errorMessage(e) };
    }
    return this.probed;
  }

  /**
   * The OS keychain when it answers, else undefined: the one binding other secrets of the user
   * (webhook signing secrets, src/core/webhooks/secrets.ts) are kept through too.
   */
  answeringKeychain(): KeychainBackend | undefined {
    return this.keychainState().ok ? this.opts.keychain : undefined;
  }

  /** Whether the person chose a key file (it exists). */
  keyFileExists(): boolean {
    return !!this.opts.keyFile && fs.existsSync(this.opts.keyFile);
  }

  /** The user key of id `id` and where it was found; undefined when no source has it. */
  find(id: string): { key: UserKey; source: KeySource } | undefined {
    const env = this.envKey();
    if (env?.id === id) return { key: env, source: 'the recovery key in AGENT_MEMORY_RECOVERY_KEY' };
    const known = this.found.get(id);
    if (known) return known;
    const got = this.lookUp(id);
    // Kept only when it is the key of that id (the id is the key's hash: a damaged entry is looked up again).
    if (got?.key.id === id) this.found.set(id, got);
    return got;
  }

  private lookUp(id: string): { key: UserKey; source: KeySource } | undefined {
    if (this.keychainState().ok) {
      const secret = this.keychainGet(account(id));
      if (secret) return { key: userKey(Buffer.from(secret, 'base64')), source: 'the keychain' };
    }
    const inFile = this.readKeyFile()?.keys[id];
    if (inFile) return { key: userKey(Buffer.from(inFile, 'base64')), source: 'the key file' };
    // A key of this id that was given but differs cannot exist (the id is the key's hash).
    return undefined;
  }

  /** The key new encryption uses: the keychain's current one, else the key file's. */
  current(): { key: UserKey; source: KeySource } | undefined {
    if (this.keychainState().ok) {
      const id = this.keychainGet(CURRENT);
      const found = id ? this.find(id) : undefined;
      if (found) return found;
    }
    const file = this.readKeyFile();
    if (file?.current && file.keys[file.current])
      return { key: userKey(Buffer.from(file.keys[file.current]!, 'base64')), source: 'the key file' };
    return undefined;
  }

  /** Where a new key would be kept: the keychain when it answers, else the key file when chosen; undefined: nowhere. */
  whereToKeep(useKeyFile: boolean): 'keychain' | 'key file' | undefined {
    if (this.keychainState().ok) return 'keychain';
    if ((useKeyFile || this.keyFileExists()) && this.opts.keyFile) return 'key file';
    return undefined;
  }

  /** A new user key, kept where whereToKeep says and made current. Throws keychain_unavailable when it cannot be kept. */
  create(useKeyFile: boolean): { key: UserKey; source: KeySource } {
    return this.keep(userKey(newKey()), useKeyFile, true);
  }

  /** Keeps `key` (a recovery key given here) where whereToKeep says; current when `makeCurrent`. */
  keep(key: UserKey, useKeyFile: boolean, makeCurrent: boolean, command?: string): { key: UserKey; source: KeySource } {
    const where = this.whereToKeep(useKeyFile);
    if (where === 'keychain') {
      this.opts.keychain!.set(account(key.id), key.key.toString('base64'));
      if (makeCurrent || !this.keychainGet(CURRENT)) this.opts.keychain!.set(CURRENT, key.id);
      return { key, source: 'the keychain' };
    }
    if (where === 'key file') {
      const file = this.readKeyFile() ?? { format: 'agent-memory-user-keys', keys: {} };
      file.keys[key.id] = key.key.toString('base64');
      if (makeCurrent || !file.current) file.current = key.id;
      writePrivateFile(this.opts.keyFile!, `${JSON.stringify(file, null, 2)}\n`);
      return { key, source: 'the key file' };
    }
    throw new UserFacingError(this.noKeychainSentence(command), 'keychain_unavailable');
  }

  /** Why no key can be kept here, and what to do (`command`: the one to run with --key-file). */
  noKeychainSentence(command = 'agent-memory encryption enable'): string {
    const state = this.keychainState();
    const why = state.ok ? '' : ` (${state.why})`;
    const file = this.opts.keyFile ? ` in ${this.opts.keyFile}` : '';
    return (
      `No keychain answers on this machine${why}, so new stores are not encrypted. ` +
      `To encrypt them with the key kept in a file only you can read${file} (mode 0600), ` +
      `run ${command} --key-file (in VS Code, choose Use a Key File when asked).`
    );
  }

  /** The sources looked in, for an error that says where a key was not found. */
  describeSources(): string {
    const parts: string[] = [];
    parts.push(this.envKey() ? 'AGENT_MEMORY_RECOVERY_KEY (another key)' : 'AGENT_MEMORY_RECOVERY_KEY (not set)');
    const state = this.keychainState();
    parts.push(state.ok ? 'the keychain' : `the keychain (not answering: ${state.why})`);
    parts.push(this.keyFileExists() ? `the key file ${this.opts.keyFile}` : 'no key file');
    return parts.join(', ');
  }

  private envKey(): UserKey | undefined {
    const text = (this.opts.env ?? process.env).AGENT_MEMORY_RECOVERY_KEY;
    if (!text) return undefined;
    const parsed = parseRecoveryKey(text);
    if ('error' in parsed) {
      throw new UserFacingError(
        `AGENT_MEMORY_RECOVERY_KEY is not a recovery key: ${parsed.error}. Copy it again from where it was exported.`,
        'invalid_input',
      );
    }
    return userKey(parsed.key);
  }

  private keychainGet(name: string): string | null {
    try {
      return this.opts.keychain!.get(name);
    } catch {
      return null;
    }
  }

  private readKeyFile(): KeyFileContent | undefined {
    const file = this.opts.keyFile;
    if (!file) return undefined;
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch {
      return undefined;
    }
    try {
      const c = JSON.parse(text) as KeyFileContent;
      if (c.format === 'agent-memory-user-keys' && c.keys && typeof c.keys === 'object') return c;
    } catch {
      // reported below
    }
    throw new UserFacingError(
      `The key file ${file} is damaged. Restore it from a backup, or import the store's recovery key.`,
      'store_key_missing',
    );
  }
}

/** Writes `text` to `file` readable by the user only (0600, in a 0700 folder), atomically and durably. */
export function writePrivateFile(file: string, text: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.tmp-${process.pid}`;
  const fd = fs.openSync(tmp, 'w', 0o600);
  try {
    fs.writeSync(fd, text);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.chmodSync(tmp, 0o600);
  fs.renameSync(tmp, file);
}

/**
 * The user key a new store is encrypted under (docs/encryption.md "Where the key is kept"): new
 * stores are encrypted wherever a key can be kept — a keychain answers, or the person chose a key
 * file — under the current key, made and kept when there is none. Elsewhere undefined: the store
 * is plain, and the encryption status says why.
 */
export function keyForNewStore(keys: UserKeyring): UserKey | undefined {
  return keys.whereToKeep(false) ? (keys.current() ?? keys.create(false)).key : undefined;
}
