/**
 * What a path given to export or import is, and the safe way to write an export
 * (docs/transfer.md): `-` is stdout (export) or stdin (import); /dev/stdout, /dev/fd/N and
 * /proc/self/fd/N are this process's open file N; a symbolic link is followed to its target; a
 * FIFO, a character device or a socket is opened and written (or read) directly; a regular file,
 * new or existing, is replaced atomically — a temporary file in the target's own folder, then a
 * rename onto the target — and is private (0600) whatever the mode of the file it replaces.
 * Nothing is ever renamed over anything but a regular file. No `vscode` import: the engine, the
 * CLI and the VS Code commands share it.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import { fsyncDir } from '../core/store/fsutil';
import { errorMessage } from '../core/util/errors';
import { EngineError } from './errors';

/** Mode of every export file: the export holds every memory in clear text, like the store. */
export const EXPORT_FILE_MODE = 0o600;

export type SpecialKind = 'FIFO' | 'character device' | 'socket' | 'block device';

export type FileTarget =
  /** `-`: stdout for an export, stdin for an import. */
  | { kind: 'std' }
  /** This process's open file `fd` (/dev/stdout, /dev/fd/N, /proc/self/fd/N). */
  | { kind: 'fd'; fd: number }
  /** A regular file, or a new one: `path` is where it is (symbolic links followed). */
  | { kind: 'file'; path: string; exists: boolean }
  | { kind: 'special'; path: string; type: SpecialKind };

/** Links followed before giving up (the kernel's own limit is 40). */
const MAX_LINKS = 40;

/** /proc/self/fd/N, /proc/<this pid>/fd/N and /dev/fd/N name this process's open file N. */
function ownFd(p: string): number | undefined {
  const m = /^\/(?:proc\/(?:self|(\d+))|dev)\/fd\/(\d+)$/.exec(p);
  if (!m || (m[1] !== undefined && Number(m[1]) !== process.pid)) return undefined;
  return Number(m[2]);
}

function specialKind(st: fs.Stats): SpecialKind | undefined {
  if (st.isFIFO()) return 'FIFO';
  if (st.isCharacterDevice()) return 'character device';
  if (st.isSocket()) return 'socket';
  if (st.isBlockDevice()) return 'block device';
  return undefined;
}

function lstatOrUndefined(p: string): fs.Stats | undefined {
  try {
    return fs.lstatSync(p, { throwIfNoEntry: false });
  } catch (e) {
    throw new EngineError('invalid_input', `Cannot read ${p}: ${errorMessage(e)}`);
  }
}

/**
 * What `file` (absolute, or `-`) is, its symbolic links followed one by one (so a link through
 * /proc/self/fd is recognized as this process's file). A folder is refused with `folderHint`.
 */
export function resolveFileTarget(file: string, folderHint: string): FileTarget {
  if (file === '-') return { kind: 'std' };
  if (!path.isAbsolute(file)) throw new EngineError('invalid_input', `The path must be absolute, got "${file}".`);
  let p = path.normalize(file);
  for (let hops = 0; hops <= MAX_LINKS; hops++) {
    const fd = ownFd(p);
    if (fd !== undefined) return { kind: 'fd', fd };
    const st = lstatOrUndefined(p);
    if (!st) return { kind: 'file', path: p, exists: false };
    if (st.isSymbolicLink()) {
      p = path.resolve(path.dirname(p), fs.readlinkSync(p));
      continue;
    }
    if (st.isDirectory()) throw new EngineError('invalid_input', `${file} is a folder: ${folderHint}`);
    const special = specialKind(st);
    return special ? { kind: 'special', path: p, type: special } : { kind: 'file', path: p, exists: true };
  }
  throw new EngineError('invalid_input', `${file}: too many levels of symbolic links.`);
}

/** The folder hint of an export: a file name to write. */
export function exportFolderHint(file: string): string {
  return `give a file name, e.g. ${path.join(file, 'agent-memory.jsonl')}`;
}

export const IMPORT_FOLDER_HINT = 'give a .jsonl or .json file.';

/**
 * The regular file an export at `file` replaces (links followed), for the engine, which writes
 * files only: a pipe or a device would block it or be renamed over. Its folder must exist.
 */
export function exportFilePath(file: string): string {
  const t = resolveFileTarget(file, exportFolderHint(file));
  if (t.kind === 'file') {
    const dir = path.dirname(t.path);
    if (!fs.existsSync(dir)) throw new EngineError('invalid_input', `Cannot export to ${file}: the folder ${dir} does not exist.`);
    return t.path;
  }
  const what = t.kind === 'special' ? `a ${t.type}` : 'an open file of the memory engine';
  throw new EngineError(
    'invalid_input',
    `Cannot export to ${file}: it is ${what}, not a file. Export to a file, or from the agent-memory CLI, which writes to pipes and devices itself.`,
  );
}

/** The regular file an import at `file` reads (links followed): the engine reads files only. */
export function importFilePath(file: string): string {
  const t = resolveFileTarget(file, IMPORT_FOLDER_HINT);
  if (t.kind === 'file' && t.exists) return t.path;
  if (t.kind === 'file') throw new EngineError('invalid_input', `Cannot import ${file}: it does not exist.`);
  const what = t.kind === 'special' ? `a ${t.type}` : 'an open file of the memory engine';
  throw new EngineError(
    'invalid_input',
    `${file} is ${what}, not a file: give a .jsonl or .json file (the agent-memory CLI reads pipes and stdin itself).`,
  );
}

/**
 * Writes `file` (a regular file's path from exportFilePath) atomically and privately: a new
 * temporary file (0600) in the same folder, `write` fills it, fsync, rename onto `file`, fsync
 * the folder. An interrupted export leaves the old file whole and no temporary file behind.
 * Returns the bytes written.
 */
export function writePrivateFileAtomic(file: string, write: (put: (text: string) => void) => void): number {
  const dir = path.dirname(file);
  const tmp = path.join(dir, `.${path.basename(file)}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`);
  let bytes = 0;
  let fd: number | undefined;
  try {
    fd = fs.openSync(tmp, 'wx', EXPORT_FILE_MODE);
    fs.fchmodSync(fd, EXPORT_FILE_MODE); // the umask only takes away; say it outright
    const handle = fd;
    write((text) => {
      bytes += fs.writeSync(handle, text);
    });
    fs.fsyncSync(fd);
    fs.closeSync(fd);
    fd = undefined;
    fs.renameSync(tmp, file);
    fsyncDir(dir);
  } catch (e) {
    if (fd !== undefined) fs.closeSync(fd);
    fs.rmSync(tmp, { force: true });
    if (e instanceof EngineError) throw e;
    throw new EngineError('invalid_input', `Could not write ${file}: ${errorMessage(e)}`);
  }
  return bytes;
}
