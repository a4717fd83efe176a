/**
 * Where the owner of a store listens, and the record a client finds it by (ARCHITECTURE.md "One
 * owner, many clients"):
 *
 *   <store>/engine.sock   Unix domain socket, mode 0600 (a named pipe on Windows)
 *   <store>/engine.auth   the owner's record, mode 0600, rewritten by every new owner:
 *                         {"secret": 32 random bytes in hex, "socket": where it listens}
 *
 * Unix socket paths are limited to ~104 bytes: the socket of a deeper store folder goes to this
 * user's private runtime folder (runtimeDir), named after the store path. Every folder that
 * holds one of these files must be private to the user (privateDir.ts); a client connects only
 * to a socket file of its own uid in such a folder, and then only after the owner proved it
 * knows the secret (handshake.ts). The socket's path is in the record, so a client whose
 * environment differs (no XDG_RUNTIME_DIR in a cron job, another TMPDIR) still finds it.
 */
import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { resolveProjectId } from '../../core/project';
import { engineStoreDirs } from '../worker/storeMigration';
import type { EngineInit } from '../protocol';
import { EngineError } from '../errors';
import { assertPrivateFolder, ensurePrivateFolder, fileProblem, folderProblem } from './privateDir';

/** Longest socket path used (sun_path is 104 bytes on macOS, 108 on Linux, with its terminating NUL). */
const MAX_SOCKET_PATH = 100;
export const OWNER_RECORD = 'engine.auth';
/** The record of owners before the challenge–response (protocol 1): removed by every new owner. */
const LEGACY_SECRET_FILE = 'engine.secret';

const SHORTER_HOME =
  'choose a shorter store home (AGENT_MEMORY_HOME, --home or the agentMemory.storeHome setting) so the socket fits in the store folder.';

export interface OwnerRecord {
  secret: string;
  socket: string;
}

/**
 * This user's private folder for sockets that do not fit in their store folder:
 * `$XDG_RUNTIME_DIR/agent-memory` when XDG_RUNTIME_DIR is a private folder of this user (it is
 * per user and per login on Linux), else `<tmp>/agent-memory-<uid>`. Created 0700; an existing
 * one that is a symbolic link, belongs to another user or lets others in is refused
 * (`not_private`, saying which folder, why, and what to do).
 */
export function runtimeDir(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env.XDG_RUNTIME_DIR?.trim();
  const what = 'The folder for sockets';
  if (xdg && path.isAbsolute(xdg) && !folderProblem(xdg, { what, otherwise: '', followLink: true, strict: true })) {
    const dir = path.join(xdg, 'agent-memory');
    ensurePrivateFolder(dir, { what, otherwise: `unset XDG_RUNTIME_DIR, or ${SHORTER_HOME}`, strict: true });
    return dir;
  }
  const uid = typeof process.getuid === 'function' ? process.getuid() : 0;
  const dir = path.join(os.tmpdir(), `agent-memory-${uid}`);
  ensurePrivateFolder(dir, { what, otherwise: `set XDG_RUNTIME_DIR to a private folder of yours, or ${SHORTER_HOME}`, strict: true });
  return dir;
}

/** Where the owner of the store in `storeDir` listens (the runtime folder is made and checked when it is needed). */
export function socketPath(storeDir: string, platform: NodeJS.Platform = process.platform): string {
  const tag = createHash('sha256').update(path.resolve(storeDir)).digest('hex').slice(0, 16);
  if (platform === 'win32') return `\\\\.\\pipe\\agent-memory-${tag}`;
  const inStore = path.join(storeDir, 'engine.sock');
  if (Buffer.byteLength(inStore) <= MAX_SOCKET_PATH) return inStore;
  const outside = path.join(runtimeDir(), `${tag}.sock`);
  if (Buffer.byteLength(outside) > MAX_SOCKET_PATH) {
    throw new EngineError(
      'not_private',
      `The store's socket cannot be placed: ${outside} is longer than a socket path may be. Set XDG_RUNTIME_DIR or TMPDIR to a shorter folder of yours, or ${SHORTER_HOME}`,
    );
  }
  return outside;
}

/** A fresh secret (the caller keeps it until the record is written). */
export function newSecret(): string {
  return randomBytes(32).toString('hex');
}

/** Writes the owner's record (mode 0600, atomically) and removes the record of protocol 1 owners. */
export function writeOwnerRecord(storeDir: string, record: OwnerRecord): void {
  const file = path.join(storeDir, OWNER_RECORD);
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(record), { mode: 0o600, flag: 'wx' });
  fs.renameSync(tmp, file);
  fs.rmSync(path.join(storeDir, LEGACY_SECRET_FILE), { force: true });
}

/**
 * The record of the store's current (or last) owner; undefined when there is none or it is not
 * readable as one. A record that is not this user's own private file is refused (`not_private`):
 * whoever could write it could point clients at their own socket with their own secret.
 */
export function readOwnerRecord(storeDir: string): OwnerRecord | undefined {
  const file = path.join(storeDir, OWNER_RECORD);
  if (!fs.existsSync(file)) return undefined;
  const problem = fileProblem(file, 'file');
  if (problem) throw new EngineError('not_private', `The store's owner record is not private to you: ${problem}`);
  let record: Partial<OwnerRecord>;
  try {
    record = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<OwnerRecord>;
  } catch {
    return undefined;
  }
  const { secret, socket } = record;
  if (typeof secret !== 'string' || !/^[0-9a-f]{64}$/.test(secret) || typeof socket !== 'string' || !socket) return undefined;
  return { secret, socket };
}

/**
 * Before connecting to `socket`: undefined when nothing listens there (no file), else whether it
 * may be trusted as far as the file system can tell. Throws `not_private` when the socket or its
 * folder is not this user's own: a socket file is created by the process that listens on it, so
 * its owner is the listener's user (Node offers no peer credentials; the handshake's proof of the
 * secret covers the rest).
 */
export function checkSocket(socket: string, storeDir: string): 'absent' | 'ok' {
  if (process.platform === 'win32') return 'ok';
  const folder = path.dirname(socket);
  const inStore = path.resolve(folder) === path.resolve(storeDir);
  assertPrivateFolder(folder, {
    what: inStore ? 'The store folder' : 'The folder for sockets',
    otherwise: inStore ? 'choose a store home of your own.' : `set XDG_RUNTIME_DIR to a private folder of yours, or ${SHORTER_HOME}`,
    strict: !inStore,
  });
  if (!fs.lstatSync(socket, { throwIfNoEntry: false })) return 'absent';
  const problem = fileProblem(socket, 'socket');
  if (problem) throw new EngineError('not_private', `The store's socket is not yours: ${problem}`);
  return 'ok';
}

/** The project store folder an engine started with `init` opens (the project id as the engine resolves it). */
export async function projectStoreDir(
  init: Pick<EngineInit, 'home' | 'storageDir' | 'globalStorageDir' | 'workspaceRoot'>,
): Promise<string> {
  const projectId = init.workspaceRoot ? (await resolveProjectId(init.workspaceRoot)).id : 'no-workspace';
  return engineStoreDirs(init, projectId).project;
}
