/** Filesystem probes that never throw: odd files must degrade the resolver, not break it. */
import * as fs from 'node:fs';
import { errorMessage } from '../util/errors';

export type EntryKind = 'file' | 'dir' | 'other';

/** What is at `p` (following symlinks), or undefined when nothing readable is there. */
export function entryKind(p: string): EntryKind | undefined {
  try {
    const st = fs.statSync(p, { throwIfNoEntry: false });
    if (!st) return undefined;
    return st.isDirectory() ? 'dir' : st.isFile() ? 'file' : 'other';
  } catch {
    return undefined; // EACCES, ELOOP, NUL byte in the path, ...
  }
}

export type ReadResult = { ok: true; text: string } | { ok: false; error: string };

/** Reads a small text file, refusing anything over `maxBytes` (a config is never that big). */
export function readSmallFile(p: string, maxBytes: number): ReadResult {
  let fd: number | undefined;
  try {
    fd = fs.openSync(p, 'r');
    const size = fs.fstatSync(fd).size;
    if (size > maxBytes) return { ok: false, error: `${size} bytes, over the ${maxBytes}-byte limit` };
    const buf = Buffer.alloc(size);
    let off = 0;
    while (off < size) {
      const n = fs.readSync(fd, buf, off, size - off, off);
      if (n === 0) break;
      off += n;
    }
    return { ok: true, text: buf.toString('utf8', 0, off) };
  } catch (err) {
    return { ok: false, error: errorMessage(err) };
  } finally {
    if (fd !== undefined) {
      try {
        fs.closeSync(fd);
      } catch {
        /* nothing useful to do */
      }
    }
  }
}

/** `fs.realpathSync.native`, or undefined when the path cannot be resolved. */
export function realPath(p: string): string | undefined {
  try {
    return fs.realpathSync.native(p);
  } catch {
    return undefined;
  }
}
