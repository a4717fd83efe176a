/**
 * The file operations the operation log and snapshot writes go through: node's fs by default,
 * a fault-injecting wrapper in tests (short writes, ENOSPC, EIO from fdatasync). Only the calls
 * whose failure changes what is durable are here; reads and directory listings use fs directly.
 */
import * as fs from 'node:fs';

export interface StoreFs {
  openSync(file: string, flags: string | number): number;
  /** May write fewer than `length` bytes (a short write); callers loop. `position`: write there (not in O_APPEND files). */
  writeSync(fd: number, data: Uint8Array, offset: number, length: number, position?: number): number;
  fdatasyncSync(fd: number): void;
  fsyncSync(fd: number): void;
  ftruncateSync(fd: number, length: number): void;
  closeSync(fd: number): void;
  renameSync(from: string, to: string): void;
  /** fsync without blocking the thread (snapshot files). */
  fsync(fd: number): Promise<void>;
}

export const nodeFs: StoreFs = {
  openSync: (file, flags) => fs.openSync(file, flags),
  writeSync: (fd, data, offset, length, position) => fs.writeSync(fd, data, offset, length, position ?? null),
  fdatasyncSync: (fd) => fs.fdatasyncSync(fd),
  fsyncSync: (fd) => fs.fsyncSync(fd),
  ftruncateSync: (fd, length) => fs.ftruncateSync(fd, length),
  closeSync: (fd) => fs.closeSync(fd),
  renameSync: (from, to) => fs.renameSync(from, to),
  fsync: (fd) => new Promise<void>((resolve, reject) => fs.fsync(fd, (e) => (e ? reject(e) : resolve()))),
};

/** Writes all of `data` at the file position (a short write is continued, a 0-byte write is "no space"). */
export function writeAll(sfs: StoreFs, fd: number, data: Uint8Array): void {
  let done = 0;
  while (done < data.length) {
    const n = sfs.writeSync(fd, data, done, data.length - done);
    if (n <= 0) throw Object.assign(new Error('ENOSPC: no space left on device, write returned 0'), { code: 'ENOSPC' });
    done += n;
  }
}

/** The disk (or the user's quota) is full. */
export function isDiskFull(e: unknown): boolean {
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOSPC' || code === 'EDQUOT';
}

/** An error from the file system (as opposed to a bug or a SQL error). */
export function isFsError(e: unknown): boolean {
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' && /^E[A-Z]+$/.test(code);
}

/** Below this much free space a store that opens counts the disk as full (its first write would fail). */
export const LOW_SPACE_BYTES = 64 * 1024;

/** Free bytes for unprivileged users on the file system holding `dir`; undefined where it cannot be told. */
export function freeBytes(dir: string): number | undefined {
  try {
    const s = fs.statfsSync(dir);
    return s.bavail * s.bsize;
  } catch {
    return undefined;
  }
}
