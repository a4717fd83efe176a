/**
 * Snapshot files: loading the newest one that can be trusted, and writing a new one atomically.
 *
 * Trust (docs/durability.md "Snapshots"): a snapshot is used when its bytes match a checksum sidecar
 * written with it. The newest verified one wins (snapshot.sqlite, then snapshot.prev.sqlite, whose
 * log segments are kept for this fallback). Only when no snapshot verifies is one loaded after a
 * full `PRAGMA integrity_check`, with a warning and a copy in quarantine/; such an unverified load
 * never becomes snapshot.prev (the next snapshot replaces it in place).
 *
 * Encrypted stores (docs/encryption.md): a snapshot is a sealed file (src/core/crypto/fileCipher.ts),
 * sealed chunk by chunk as it is written, its checksum sidecar over the sealed bytes. Opening it
 * with the store's key is its verification; one that does not open is damaged (set aside, the
 * previous one used), and a sealed snapshot in a store without its key is an error, never damage.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import type { Database, SqlJsStatic } from 'sql.js';
import { errorMessage } from '../util/errors';
import { fsyncDir, preserveBytes, readFully } from './fsutil';
import { openOnStorage, readIntoReserve, type LiveFile } from './liveFile';
import { writeAll, type StoreFs } from './storeFs';
import { FileCipher, isSealed } from '../crypto/fileCipher';
import { UserFacingError } from '../util/errors';

export const SNAPSHOT = 'snapshot.sqlite';
export const SNAPSHOT_PREV = 'snapshot.prev.sqlite';
/** Sidecar of a snapshot: `crc32 <hex> <byte length>`, written and renamed with it. */
export const CHECKSUM_SUFFIX = '.crc32';
const SQLITE_HEADER = Buffer.from('SQLite format 3\0', 'latin1');

export function checksumLine(bytes: Uint8Array): string {
  return formatChecksum(zlib.crc32(bytes), bytes.length);
}

function formatChecksum(crc: number, length: number): string {
  return `crc32 ${(crc >>> 0).toString(16).padStart(8, '0')} ${length}\n`;
}

export type VerifiedBy = 'checksum' | 'integrity_check' | 'none';

export interface LoadedSnapshot {
  db: Database;
  live: LiveFile | undefined;
  snapshotSeq: number;
  verifiedBy: VerifiedBy;
}

interface LoadOptions {
  reserve: (size: number) => number;
  /** Move damaged files to quarantine/ (the writer); a read-only opener changes nothing. */
  repair: boolean;
  /** The store's data key (encrypted stores). */
  cipher?: FileCipher;
}

/**
 * Every sidecar line on disk. A crash between the renames of a snapshot and its sidecar leaves
 * the right line next to the other file name (or still under .tmp): any line that matches the
 * bytes proves them, as each line was computed from the bytes that were written.
 */
function sidecarLines(dir: string): Set<string> {
  const lines = new Set<string>();
  for (const name of [SNAPSHOT, SNAPSHOT_PREV, `${SNAPSHOT}.tmp`]) {
    try {
      lines.add(fs.readFileSync(path.join(dir, name + CHECKSUM_SUFFIX), 'utf8'));
    } catch {
      // absent
    }
  }
  return lines;
}

function readSnapshot(file: string, reserve: (size: number) => number) {
  const { storage, size } = readIntoReserve(file, reserve);
  return { storage, size, bytes: Buffer.from(storage.buffer, storage.byteOffset, size) };
}

function watermark(db: Database): number {
  try {
    const r = db.exec("SELECT value FROM store_meta WHERE key = 'log_seq'");
    return Number(r[0]?.values[0]?.[0] ?? 0);
  } catch {
    return 0;
  }
}

/** Keep a copy of a snapshot we did not use in quarantine/ and remove it (the writer only). */
function setAside(at: { dir: string; repair: boolean; warnings: string[] }, name: string, bytes: Uint8Array, why: string): void {
  const { dir, warnings } = at;
  if (!at.repair) {
    warnings.push(`snapshot ${name} ${why}; not used`);
    return;
  }
  try {
    const kept = preserveBytes(dir, name, bytes);
    fs.rmSync(path.join(dir, name));
    fs.rmSync(path.join(dir, name + CHECKSUM_SUFFIX), { force: true });
    warnings.push(`snapshot ${name} ${why}; not used, kept in ${path.relative(dir, kept)}`);
  } catch (e) {
    warnings.push(`snapshot ${name} ${why}; not used (a copy could not be kept in quarantine: ${errorMessage(e)})`);
  }
}

/**
 * Newest snapshot whose checksum verifies; else one that passes integrity_check; else an empty database.
 * `sql` is awaited only once the snapshot's bytes are read (and decrypted, and verified): a first
 * open reads them while sql.js's WebAssembly compiles on V8's background threads.
 */
export async function loadSnapshot(sql: Promise<SqlJsStatic>, dir: string, warnings: string[], opts: LoadOptions): Promise<LoadedSnapshot> {
  const present = [SNAPSHOT, SNAPSHOT_PREV].filter((n) => fs.existsSync(path.join(dir, n)));
  if (opts.cipher) return loadSealedSnapshot(sql, dir, warnings, { ...opts, cipher: opts.cipher }, present);
  refuseSealed(dir, present);
  const lines = sidecarLines(dir);
  const unverified: string[] = [];
  for (const name of present) {
    const snap = readSnapshot(path.join(dir, name), opts.reserve);
    if (lines.has(checksumLine(snap.bytes))) {
      // A newer snapshot that failed its checksum is set aside: it must never become snapshot.prev.
      for (const bad of unverified) {
        const badBytes = fs.readFileSync(path.join(dir, bad));
        setAside({ dir, repair: opts.repair, warnings }, bad, badBytes, 'is damaged or unverifiable (it does not match its checksum)');
      }
      const { db, live } = openOnStorage(await sql, snap.storage, snap.size);
      if (name === SNAPSHOT_PREV) warnings.push(`used the previous snapshot because ${SNAPSHOT} was missing or failed its checksum`);
      return { db, live, snapshotSeq: watermark(db), verifiedBy: 'checksum' };
    }
    unverified.push(name);
  }
  for (const name of unverified) {
    const snap = readSnapshot(path.join(dir, name), opts.reserve);
    const loaded = loadUnverified(await sql, snap);
    if (typeof loaded === 'string') {
      setAside({ dir, repair: opts.repair, warnings }, name, snap.bytes, `is damaged (${loaded})`);
      continue;
    }
    let kept = '';
    if (opts.repair) {
      try {
        kept = `; a copy is kept in ${path.relative(dir, preserveBytes(dir, name, snap.bytes))}`;
      } catch (e) {
        kept = `; a copy could not be kept (${errorMessage(e)})`;
      }
    }
    warnings.push(
      `no snapshot matches its checksum: loaded ${name} after a full integrity check passed; ` +
        `changes after it come from the log${kept}. Check recent memories.`,
    );
    return { ...loaded, snapshotSeq: watermark(loaded.db), verifiedBy: 'integrity_check' };
  }
  return { ...emptyDatabase(await sql, opts.reserve), snapshotSeq: 0, verifiedBy: 'none' };
}

/** A sealed snapshot in a store without store.key: its key header is gone, never "damage" to set aside. */
function refuseSealed(dir: string, present: string[]): void {
  for (const name of present) {
    const head = Buffer.alloc(8);
    const fd = fs.openSync(path.join(dir, name), 'r');
    try {
      fs.readSync(fd, head, 0, 8, 0);
    } finally {
      fs.closeSync(fd);
    }
    if (isSealed(head)) {
      throw new UserFacingError(
        `The snapshot ${path.join(dir, name)} is encrypted, but the memory store has no key header (store.key): it was removed ` +
          'or never copied. Nothing was read or changed. Put store.key back from where the store came from, or restore the store folder.',
        'store_key_missing',
      );
    }
  }
}

/**
 * The newest sealed snapshot that opens with the store's key (GCM authenticates every chunk: a
 * changed byte, a chunk cut or added fails), decrypted straight into reserved storage; the ones
 * that do not open are set aside. None: an empty database (the log then says what is missing).
 */
async function loadSealedSnapshot(
  sql: Promise<SqlJsStatic>,
  dir: string,
  warnings: string[],
  opts: LoadOptions & { cipher: FileCipher },
  present: string[],
): Promise<LoadedSnapshot> {
  const bad: { name: string; raw: Buffer; why: string }[] = [];
  for (const name of present) {
    let opened: { storage: Uint8Array; size: number } | undefined;
    try {
      opened = openSealedSnapshot(path.join(dir, name), opts.cipher, opts.reserve);
    } catch (e) {
      const raw = fs.readFileSync(path.join(dir, name)); // only a snapshot that fails is read whole, to keep a copy
      bad.push({ name, raw, why: `does not open with the store's key (${errorMessage(e)})` });
      continue;
    }
    for (const b of bad) setAside({ dir, repair: opts.repair, warnings }, b.name, b.raw, `is damaged or unverifiable: it ${b.why}`);
    const { db, live } = openOnStorage(await sql, opened.storage, opened.size);
    if (name === SNAPSHOT_PREV) warnings.push(`used the previous snapshot because ${SNAPSHOT} was missing or did not open`);
    return { db, live, snapshotSeq: watermark(db), verifiedBy: 'checksum' };
  }
  for (const b of bad) setAside({ dir, repair: opts.repair, warnings }, b.name, b.raw, `is damaged: it ${b.why}`);
  return { ...emptyDatabase(await sql, opts.reserve), snapshotSeq: 0, verifiedBy: 'none' };
}

/** A sealed snapshot decrypted chunk by chunk from its file into reserved storage (fileCipher.ts). */
function openSealedSnapshot(file: string, cipher: FileCipher, reserve: (size: number) => number): { storage: Uint8Array; size: number } {
  const fd = fs.openSync(file, 'r');
  try {
    const { plain, length } = cipher.openFrom(
      'snapshot',
      fs.fstatSync(fd).size,
      (dst, at) => readFully(fd, dst, at),
      (size) => new Uint8Array(Math.max(size, reserve(size))),
    );
    return { storage: plain, size: length };
  } finally {
    fs.closeSync(fd);
  }
}

/** Opens a snapshot without a checksum after a full integrity check; the reason when it fails. */
type Opened = { db: Database; live: LiveFile | undefined };

function loadUnverified(SQL: SqlJsStatic, snap: { storage: Uint8Array; size: number; bytes: Buffer }): Opened | string {
  if (snap.size < 100 || !snap.bytes.subarray(0, 16).equals(SQLITE_HEADER)) return 'not an SQLite file';
  let db: Database | undefined;
  try {
    const opened = openOnStorage(SQL, snap.storage, snap.size);
    db = opened.db;
    const rows = db.exec('PRAGMA integrity_check')[0]?.values ?? [];
    const bad = rows.map((r) => String(r[0])).filter((r) => r !== 'ok');
    if (bad.length || !rows.length) throw new Error(`integrity_check: ${bad.slice(0, 3).join('; ') || 'no result'}`);
    return opened;
  } catch (e) {
    db?.close();
    return errorMessage(e);
  }
}

/** A new database: its first page (written by setting user_version) moved into reserved storage. */
function emptyDatabase(SQL: SqlJsStatic, reserve: (size: number) => number): { db: Database; live: LiveFile | undefined } {
  const blank = new SQL.Database();
  let first: Uint8Array;
  try {
    blank.exec('PRAGMA user_version = 1; PRAGMA user_version = 0');
    first = blank.export();
  } finally {
    blank.close();
  }
  const storage = new Uint8Array(Math.max(first.length, reserve(first.length)));
  storage.set(first);
  return openOnStorage(SQL, storage, first.length);
}

/** What a snapshot writes: an exported copy, or a temp file already written from the live file (to fsync). */
export type SnapshotContent = { bytes: Uint8Array } | { fd: number; checksum: string };

/**
 * Writes `storage[0..size]` to the temp snapshot synchronously (sealed chunk by chunk under
 * `cipher` in an encrypted store); returns the open fd and the checksum line of what was written.
 */
export function writeSnapshotTemp(dir: string, sfs: StoreFs, storage: Uint8Array, size: number, cipher?: FileCipher): SnapshotContent {
  const tmp = path.join(dir, `${SNAPSHOT}.tmp`);
  const fd = sfs.openSync(tmp, 'w');
  try {
    let crc = 0;
    let written = 0;
    const put = (part: Uint8Array) => {
      writeAll(sfs, fd, part);
      crc = zlib.crc32(part, crc);
      written += part.length;
    };
    if (cipher) cipher.sealTo('snapshot', storage, size, put);
    else for (let off = 0; off < size; off += 16 * 1024 * 1024) put(storage.subarray(off, Math.min(size, off + 16 * 1024 * 1024)));
    return { fd, checksum: formatChecksum(crc, written) };
  } catch (e) {
    closeQuietly(sfs, fd);
    fs.rmSync(tmp, { force: true });
    throw e;
  }
}

/** Removes the temp file a snapshot that will not be written had started. */
export function discardSnapshotTemp(dir: string, content: SnapshotContent): void {
  if (!('fd' in content)) return;
  try {
    fs.closeSync(content.fd);
  } finally {
    fs.rmSync(path.join(dir, `${SNAPSHOT}.tmp`), { force: true });
  }
}

function closeQuietly(sfs: StoreFs, fd: number): void {
  try {
    sfs.closeSync(fd);
  } catch {
    // already failing
  }
}

async function writeDurably(sfs: StoreFs, file: string, data: Uint8Array): Promise<void> {
  const fd = sfs.openSync(file, 'w');
  try {
    writeAll(sfs, fd, data);
    await sfs.fsync(fd);
  } finally {
    closeQuietly(sfs, fd);
  }
}

export interface WriteSnapshotOptions {
  /** Move the current snapshot to snapshot.prev (false when it was loaded unverified). */
  keepPrevious: boolean;
  /** Read the written file back and compare its checksum before renaming (re-establishing a durable state). */
  verify: boolean;
}

/** temp file → fsync → (verify) → sidecar → renames → fsync the folder. A failure removes the temp files. */
export async function writeSnapshotFile(dir: string, sfs: StoreFs, content: SnapshotContent, opts: WriteSnapshotOptions): Promise<void> {
  const file = path.join(dir, SNAPSHOT);
  const prev = path.join(dir, SNAPSHOT_PREV);
  const tmp = `${file}.tmp`;
  try {
    let checksum: string;
    if ('bytes' in content) {
      await writeDurably(sfs, tmp, content.bytes);
      checksum = checksumLine(content.bytes);
    } else {
      try {
        await sfs.fsync(content.fd);
      } finally {
        closeQuietly(sfs, content.fd);
      }
      checksum = content.checksum;
    }
    if (opts.verify && checksumLine(fs.readFileSync(tmp)) !== checksum)
      throw Object.assign(new Error('the snapshot read back differs from what was written'), { code: 'EIO' });
    await writeDurably(sfs, tmp + CHECKSUM_SUFFIX, Buffer.from(checksum));
  } catch (e) {
    fs.rmSync(tmp, { force: true });
    fs.rmSync(tmp + CHECKSUM_SUFFIX, { force: true });
    throw e;
  }
  // Each file moves with its checksum; a crash in between leaves the checksum under the other
  // name, which loadSnapshot still finds.
  if (opts.keepPrevious && fs.existsSync(file)) {
    sfs.renameSync(file, prev);
    if (fs.existsSync(file + CHECKSUM_SUFFIX)) sfs.renameSync(file + CHECKSUM_SUFFIX, prev + CHECKSUM_SUFFIX);
    else fs.rmSync(prev + CHECKSUM_SUFFIX, { force: true });
  }
  sfs.renameSync(tmp, file);
  sfs.renameSync(tmp + CHECKSUM_SUFFIX, file + CHECKSUM_SUFFIX);
  fsyncDir(dir);
}

/**
 * Removes the previous snapshot (with its checksum) and every file in quarantine/: the copies a
 * secure compaction must not leave behind (Store.compactSecurely). Returns how many were removed.
 */
export function removeOldCopies(dir: string): number {
  const files = [SNAPSHOT_PREV, SNAPSHOT_PREV + CHECKSUM_SUFFIX].map((n) => path.join(dir, n)).filter((f) => fs.existsSync(f));
  const quarantine = path.join(dir, 'quarantine');
  if (fs.existsSync(quarantine)) files.push(...fs.readdirSync(quarantine).map((n) => path.join(quarantine, n)));
  for (const f of files) fs.rmSync(f, { recursive: true, force: true });
  fsyncDir(dir);
  return files.length;
}
