/**
 * The bearer token of `agent-memory mcp --http`: new for every start, written with mode 0600
 * into the project's store folder (`<store>/mcp-http-<port>.token`) so a same-user agent
 * configuration can read it, or taken from `--token-file` (which must not be readable by
 * other users). The server removes its file when it stops; the file of a server that was
 * killed is removed by the next server of the project that starts, once nothing answers on
 * its port any more.
 */
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';

export class TokenFileError extends Error {}

export function tokenFileName(port: number): string {
  return `mcp-http-${port}.token`;
}

export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

const TOKEN_FILE = /^mcp-http-(\d+)\.token$/;

/** Writes `token` atomically with mode 0600 into `dir` (created 0700 when missing); the file's path. */
export function writeToken(dir: string, port: number, token: string): string {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = path.join(dir, tokenFileName(port));
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, `${token}\n`, { mode: 0o600 });
  fs.renameSync(tmp, file);
  return file;
}

/** The token in a file given by the user: one non-empty line, the file private to its owner. */
export function readTokenFile(file: string): string {
  let stat: fs.Stats;
  let text: string;
  try {
    stat = fs.statSync(file);
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new TokenFileError(`--token-file ${file}: cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  if (process.platform !== 'win32' && (stat.mode & 0o077) !== 0) {
    throw new TokenFileError(`--token-file ${file}: other users can read it; make it private (chmod 600 ${file})`);
  }
  const token = text.trim();
  if (!token || /\s/.test(token)) throw new TokenFileError(`--token-file ${file}: must hold one token (one line, no spaces)`);
  if (token.length < 16) throw new TokenFileError(`--token-file ${file}: the token is too short (at least 16 characters)`);
  return token;
}

/** Removes the token file a server wrote, unless it now holds another token (a new server on the same port). */
export function removeToken(file: string, token: string): void {
  try {
    if (fs.readFileSync(file, 'utf8').trim() === token) fs.rmSync(file, { force: true });
  } catch {
    // Already gone.
  }
}

/** Whether something accepts connections on 127.0.0.1:`port` (answered within `timeoutMs`). */
function listening(port: number, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect({ host: '127.0.0.1', port });
    const done = (alive: boolean) => {
      clearTimeout(timer);
      s.destroy();
      resolve(alive);
    };
    const timer = setTimeout(() => done(true), timeoutMs); // no answer either way: leave the file
    s.once('connect', () => done(true));
    s.once('error', () => done(false)); // refused: on 127.0.0.1 nothing listens on that port
  });
}

/**
 * Removes the token files in `dir` of servers that no longer run (killed, so they could not
 * remove their own): nothing accepts connections on their port. `except` is this server's port.
 * Returns the files removed.
 */
export async function removeStaleTokens(dir: string, except: number, timeoutMs = 500): Promise<string[]> {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const port = Number(TOKEN_FILE.exec(name)?.[1]);
    if (!port || port === except || (await listening(port, timeoutMs))) continue;
    fs.rmSync(path.join(dir, name), { force: true });
    removed.push(path.join(dir, name));
  }
  return removed;
}
