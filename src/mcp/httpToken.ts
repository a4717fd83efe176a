/**
 * The bearer token of `agent-memory mcp --http`: new for every start, written with mode 0600
 * next to the store's secret (`<store>/mcp-http-<port>.token`) so a same-user agent
 * configuration can read it, or taken from `--token-file` (which must not be readable by
 * other users).
 */
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

export class TokenFileError extends Error {}

export function tokenFileName(port: number): string {
  return `mcp-http-${port}.token`;
}

export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

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
