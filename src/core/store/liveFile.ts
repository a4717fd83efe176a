/**
 * The database file of a sql.js Database, held in storage we allocate, so that neither growth
 * nor snapshots copy the whole database.
 *
 * sql.js keeps the file in Emscripten's MEMFS as ONE Uint8Array. Two costs follow, each a
 * transient of the database's size on top of it (hundreds of MB at 100k memories:
 * bench/RESULTS-design-notes.md):
 * - when SQLite extends the file past the array's capacity, MEMFS allocates 1.125× and copies;
 * - `db.export()` returns a full copy (sql.js 1.16 exposes no file system to read it otherwise).
 *
 * `new SQL.Database(data)` stores the file with MEMFS's first-write path,
 * `node.contents = data.slice(0, n)`, and MEMFS takes `contents.length` as the capacity. So a
 * `data` whose slice() returns a larger zero-filled array gives the file spare capacity — which
 * costs no memory until written (a large zero-filled allocation is fresh mmap'ed pages) — and
 * leaves us a reference to the live file bytes, which a snapshot can write out directly.
 *
 * Liveness is checked, not assumed: the view is only trusted while the file fits its capacity
 * and SQLite's file change counter (header bytes 24–27, incremented by every committed write
 * transaction in rollback-journal mode) moves in it when the database is written. Otherwise the
 * store falls back to export().
 */
import * as fs from 'node:fs';
import { MessageChannel } from 'node:worker_threads';
import type { Database, SqlJsStatic } from 'sql.js';

const MiB = 1024 * 1024;

/** Spare capacity: the file can double (and grow by 256 MiB at least) before MEMFS would copy it. */
export function reserveFor(size: number): number {
  return Math.ceil(Math.max(size * 2, size + 256 * MiB) / MiB) * MiB;
}

export interface LiveFile {
  /** MEMFS's storage of the file (its first `size` bytes are the database). */
  readonly storage: Uint8Array;
}

/**
 * Opens `bytes` (a view of the first bytes of `storage`) as a database whose MEMFS file IS
 * `storage`. Returns the database and, when sql.js took the storage as expected, the live file.
 */
export function openOnStorage(SQL: SqlJsStatic, storage: Uint8Array, size: number): { db: Database; live: LiveFile | undefined } {
  let taken = false;
  const data = storage.subarray(0, size);
  // MEMFS's first write: `node.contents = buffer.slice(offset, offset + length)`.
  Object.defineProperty(data, 'slice', {
    value: (start?: number, end?: number) => {
      if ((start ?? 0) === 0 && (end ?? size) === size && !taken) {
        taken = true;
        return storage;
      }
      return Uint8Array.prototype.slice.call(data, start, end);
    },
  });
  const db = new SQL.Database(data);
  return { db, live: taken && size > 0 ? { storage } : undefined };
}

/** Reads `file` straight into reserved storage (no intermediate copy). */
export function readIntoReserve(file: string, reserve: (size: number) => number = reserveFor): { storage: Uint8Array; size: number } {
  const fd = fs.openSync(file, 'r');
  try {
    const size = fs.fstatSync(fd).size;
    const storage = new Uint8Array(Math.max(size, reserve(size)));
    let off = 0;
    while (off < size) {
      const n = fs.readSync(fd, storage, off, Math.min(64 * MiB, size - off), off);
      if (n <= 0) break;
      off += n;
    }
    return { storage, size: off };
  } finally {
    fs.closeSync(fd);
  }
}

/** SQLite's file change counter (header offset 24, big endian). */
export function changeCounter(storage: Uint8Array): number {
  return ((storage[24]! << 24) | (storage[25]! << 16) | (storage[26]! << 8) | storage[27]!) >>> 0;
}

/**
 * Frees the storage of a CLOSED database now instead of at some later garbage collection (a
 * process that reopens a store would otherwise hold the old file's bytes, the size of the
 * database, until then). Transferring the buffer through a closed channel detaches it here and
 * drops its memory; sql.js unlinked the file on close, so nothing uses it any more.
 */
export async function releaseStorage(live: LiveFile): Promise<void> {
  const { port1, port2 } = new MessageChannel();
  // The message holding the memory is dropped when the receiving port has closed.
  const closed = new Promise<void>((resolve) => port2.once('close', () => resolve()));
  try {
    port1.postMessage(null, [live.storage.buffer as ArrayBuffer]);
  } finally {
    port1.close();
    port2.close();
  }
  await closed;
}
