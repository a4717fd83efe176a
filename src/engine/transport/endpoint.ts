/**
 * Where the owner of a store listens, and the secret a client proves it is the same OS user
 * with (ARCHITECTURE.md "One owner, many clients"):
 *
 *   <store>/engine.sock     Unix domain socket, mode 0600 (a named pipe on Windows)
 *   <store>/engine.secret   32 random bytes (hex), mode 0600, rewritten by every new owner
 *
 * Unix socket paths are limited to ~104 bytes: a longer store path gets its socket in the
 * temporary folder under a name derived from the store path, so every process finds it.
 */
import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { resolveProjectId } from '../../core/project';
import { engineStoreDirs } from '../storeMigration';
import type { EngineInit } from '../protocol';

const MAX_SOCKET_PATH = 100;
export const SECRET_FILE = 'engine.secret';

export function socketPath(storeDir: string, platform: NodeJS.Platform = process.platform): string {
  const tag = createHash('sha256').update(path.resolve(storeDir)).digest('hex').slice(0, 16);
  if (platform === 'win32') return `\\\\.\\pipe\\agent-memory-${tag}`;
  const inStore = path.join(storeDir, 'engine.sock');
  if (Buffer.byteLength(inStore) <= MAX_SOCKET_PATH) return inStore;
  const uid = typeof process.getuid === 'function' ? process.getuid() : 0;
  return path.join(os.tmpdir(), `agent-memory-${uid}-${tag}.sock`);
}

/** A fresh secret written with mode 0600 (replacing the previous owner's). */
export function writeSecret(storeDir: string): string {
  const secret = randomBytes(32).toString('hex');
  const file = path.join(storeDir, SECRET_FILE);
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, secret, { mode: 0o600 });
  fs.renameSync(tmp, file);
  return secret;
}

export function readSecret(storeDir: string): string | undefined {
  try {
    return fs.readFileSync(path.join(storeDir, SECRET_FILE), 'utf8').trim();
  } catch {
    return undefined;
  }
}

/** The project store folder an engine started with `init` opens (the project id as the engine resolves it). */
export async function projectStoreDir(
  init: Pick<EngineInit, 'home' | 'storageDir' | 'globalStorageDir' | 'workspaceRoot'>,
): Promise<string> {
  const projectId = init.workspaceRoot ? (await resolveProjectId(init.workspaceRoot)).id : 'no-workspace';
  return engineStoreDirs(init, projectId).project;
}
