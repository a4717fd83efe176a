/**
 * Where webhook signing secrets live (docs/changes.md "The signing secret"): never in agent.yaml
 * (it arrives with a cloned repository), never in the store (exports and snapshots carry it).
 * {@link SecretStore} is the place; the OS keychain can stand behind it where one answers. What
 * exists today is {@link FileSecretStore}: one JSON file readable by the user alone (0600) in
 * a folder only the user can open (0700), outside every store folder.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';

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
