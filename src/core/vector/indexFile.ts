/**
 * Durable index files: a 64-byte checksummed header + the serialized index.
 *
 * Header (little endian):
 *   0  8  magic "AMVECIDX"
 *   8  u32 format version (1)
 *  12  u32 header length (64)
 *  16  u32 dimension
 *  20  u32 space (1 = cosine)
 *  24  u32 live vector count
 *  28  u32 index kind (1 = HNSW)
 *  32  f64 watermark (caller's op-log position the index is complete up to)
 *  40  f64 payload length
 *  48  u32 CRC-32 of the payload
 *  52  8   reserved (0)
 *  60  u32 CRC-32 of bytes 0..59
 *
 * Saving writes a temp file next to the target, fsyncs it, renames it over the target and
 * fsyncs the directory, so a crash leaves either the old file or the new one. Loading checks
 * everything and throws {@link CorruptIndexError} on any mismatch: the caller rebuilds.
 *
 * In an encrypted store (docs/encryption.md) the same bytes are written as a sealed file
 * (src/core/crypto/fileCipher.ts, kind `vector-index`): built in memory and sealed before
 * anything reaches the disk. A plain file where a sealed one is expected, or one that does not
 * open with the store's key, is unusable like any damaged file: the index is rebuilt.
 */
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { crc32 } from '../store/checksum';
import { isSealed, type FileCipher } from '../crypto/fileCipher';
import { DecryptError } from '../crypto/aead';
import { errorMessage } from '../util/errors';
import { fsyncDir, readFully } from '../store/fsutil';
import { CorruptIndexError } from './errors';
import { HnswIndex, type HnswParams } from './hnswIndex';
import type { VectorSpace } from './types';

export const INDEX_FILE_VERSION = 1;
const MAGIC = Buffer.from('AMVECIDX', 'latin1');
const HEADER = 64;
const KIND_HNSW = 1;
const SPACE_COSINE = 1;

export interface IndexFileInfo {
  formatVersion: number;
  dim: number;
  space: VectorSpace;
  /** Live vectors in the index. */
  count: number;
  watermark: number;
  payloadBytes: number;
  fileBytes: number;
}

export interface SaveIndexOptions {
  /** Crash-test hook: called with the temp file's path once it is complete and fsynced, before the rename. */
  beforeRename?: (tmpFile: string) => void | Promise<void>;
  /** The store's data key: the file is written sealed (encrypted stores). */
  cipher?: FileCipher;
}

function indexHeader(index: HnswIndex, watermark: number, payloadBytes: number, payloadCrc: number): Buffer {
  const header = Buffer.alloc(HEADER);
  MAGIC.copy(header, 0);
  header.writeUInt32LE(INDEX_FILE_VERSION, 8);
  header.writeUInt32LE(HEADER, 12);
  header.writeUInt32LE(index.dim, 16);
  header.writeUInt32LE(SPACE_COSINE, 20);
  header.writeUInt32LE(index.size, 24);
  header.writeUInt32LE(KIND_HNSW, 28);
  header.writeDoubleLE(watermark, 32);
  header.writeDoubleLE(payloadBytes, 40);
  header.writeUInt32LE(payloadCrc, 48);
  header.writeUInt32LE(crc32(header.subarray(0, 60)), 60);
  return header;
}

/**
 * Writes a new file at `file` atomically and durably: `write` fills a fresh temp file (synchronously,
 * so its bytes match the moment of the call), which is fsynced, renamed over `file`, and the
 * directory synced. The temp file is removed when anything fails.
 */
async function replaceFile<T>(file: string, opts: SaveIndexOptions, write: (fd: number) => T): Promise<T> {
  const dir = path.dirname(file);
  await fs.promises.mkdir(dir, { recursive: true });
  const tmp = `${file}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  const fd = fs.openSync(tmp, 'wx+');
  let closed = false;
  let result: T;
  try {
    result = write(fd);
    await new Promise<void>((resolve, reject) => fs.fsync(fd, (e) => (e ? reject(e) : resolve())));
    fs.closeSync(fd);
    closed = true;
    await opts.beforeRename?.(tmp);
    await fs.promises.rename(tmp, file);
  } catch (err) {
    if (!closed) fs.closeSync(fd);
    await fs.promises.unlink(tmp).catch(() => undefined);
    throw err;
  }
  fsyncDir(dir);
  return result;
}

/** Writes all of `bytes` at `position` of `fd`. */
function putAll(fd: number, bytes: Uint8Array, position: number): void {
  let done = 0;
  while (done < bytes.length) {
    const n = fs.writeSync(fd, bytes, done, bytes.length - done, position + done);
    if (n <= 0) throw new Error('saveIndexFile: write made no progress');
    done += n;
  }
}

/** The sealed form: the plain file's bytes built in memory, sealed, then written like the plain one. */
async function saveSealed(
  file: string,
  index: HnswIndex,
  watermark: number,
  cipher: FileCipher,
  opts: SaveIndexOptions,
): Promise<IndexFileInfo> {
  const payload = index.serialize();
  const plain = Buffer.concat([indexHeader(index, watermark, payload.length, crc32(payload)), payload]);
  const sealed = cipher.sealFile('vector-index', plain);
  await replaceFile(file, opts, (fd) => putAll(fd, sealed, 0));
  const info = { formatVersion: INDEX_FILE_VERSION, dim: index.dim, space: 'cosine' as const, count: index.size, watermark };
  return { ...info, payloadBytes: payload.length, fileBytes: sealed.length };
}

/** Writes `index` to `file` atomically and durably. Resolves once the file and its directory entry are on disk. */
export async function saveIndexFile(
  file: string,
  index: HnswIndex,
  meta: { watermark: number },
  opts: SaveIndexOptions = {},
): Promise<IndexFileInfo> {
  if (typeof meta?.watermark !== 'number' || !Number.isFinite(meta.watermark)) {
    throw new RangeError(`saveIndexFile: watermark must be a finite number, got ${meta?.watermark}`);
  }
  if (opts.cipher) return saveSealed(file, index, meta.watermark, opts.cipher, opts);
  // Streamed: the index goes from hnswlib's heap to the file chunk by chunk (no copy of it in
  // memory; it was 2× its size before). All synchronous up to the fsync, so the bytes match
  // `meta.watermark` whatever the caller does next; the data then sits in the OS's cache.
  return replaceFile(file, opts, (fd) => {
    let at = HEADER;
    const { envelope, length } = index.serializeTo((chunk) => {
      putAll(fd, chunk, at);
      at += chunk.length;
    });
    if (at !== HEADER + length) throw new Error(`saveIndexFile: wrote ${at - HEADER} of ${length} payload bytes`);
    putAll(fd, envelope, HEADER);
    putAll(fd, indexHeader(index, meta.watermark, length, fileCrc(fd, HEADER, length)), 0);
    return {
      formatVersion: INDEX_FILE_VERSION,
      dim: index.dim,
      space: 'cosine' as const,
      count: index.size,
      watermark: meta.watermark,
      payloadBytes: length,
      fileBytes: HEADER + length,
    };
  });
}

/** CRC-32 of `length` bytes of the open file `fd` from `offset`, read in chunks. */
function fileCrc(fd: number, offset: number, length: number): number {
  const buf = Buffer.allocUnsafe(Math.min(length, 4 << 20) || 1);
  let crc = 0;
  for (let done = 0; done < length;) {
    const n = fs.readSync(fd, buf, 0, Math.min(buf.length, length - done), offset + done);
    if (n <= 0) throw new CorruptIndexError('truncated', `index file ended after ${done} of ${length} payload bytes`);
    crc = crc32(buf.subarray(0, n), crc);
    done += n;
  }
  return crc;
}

function parseHeader(file: string, header: Uint8Array, fileBytes: number): IndexFileInfo {
  const corrupt = (reason: ConstructorParameters<typeof CorruptIndexError>[0], msg: string) => new CorruptIndexError(reason, msg, file);
  if (fileBytes < HEADER || header.length < HEADER) throw corrupt('truncated', `index file is ${fileBytes} bytes, shorter than its header`);
  const h = Buffer.from(header.buffer, header.byteOffset, HEADER);
  if (!h.subarray(0, 8).equals(MAGIC)) throw corrupt('bad-magic', 'not an Agent Memory vector index file');
  if (h.readUInt32LE(60) !== crc32(h.subarray(0, 60))) throw corrupt('header-checksum', 'index file header checksum mismatch');
  const version = h.readUInt32LE(8);
  if (version !== INDEX_FILE_VERSION) throw corrupt('unsupported-version', `index file format version ${version} is not supported`);
  if (h.readUInt32LE(12) !== HEADER) throw corrupt('unsupported-version', `unexpected header length ${h.readUInt32LE(12)}`);
  if (h.readUInt32LE(28) !== KIND_HNSW) throw corrupt('unsupported-version', `unknown index kind ${h.readUInt32LE(28)}`);
  if (h.readUInt32LE(20) !== SPACE_COSINE) throw corrupt('unsupported-version', `unknown vector space ${h.readUInt32LE(20)}`);
  const payloadBytes = h.readDoubleLE(40);
  if (!Number.isSafeInteger(payloadBytes) || payloadBytes < 0) throw corrupt('bad-payload', `bad payload length ${payloadBytes}`);
  if (fileBytes < HEADER + payloadBytes) {
    throw corrupt('truncated', `index file is truncated (${fileBytes} bytes, expected ${HEADER + payloadBytes})`);
  }
  if (fileBytes > HEADER + payloadBytes) {
    throw corrupt('bad-payload', `index file has ${fileBytes - HEADER - payloadBytes} unexpected trailing bytes`);
  }
  return {
    formatVersion: version,
    dim: h.readUInt32LE(16),
    space: 'cosine',
    count: h.readUInt32LE(24),
    watermark: h.readDoubleLE(32),
    payloadBytes,
    fileBytes,
  };
}

/** Reads and checks only the header (cheap): dimension, count, watermark. Missing file: rejects with ENOENT. */
export async function readIndexFileInfo(file: string): Promise<IndexFileInfo> {
  const fh = await fs.promises.open(file, 'r');
  try {
    const { size } = await fh.stat();
    const header = Buffer.alloc(HEADER);
    const { bytesRead } = await fh.read(header, 0, HEADER, 0);
    return parseHeader(file, header.subarray(0, bytesRead), size);
  } finally {
    await fh.close();
  }
}

export interface LoadIndexOptions extends Pick<Partial<HnswParams>, 'efSearch' | 'initialCapacity'> {
  /**
   * The slots to allocate, from what the file's header says (its live vectors and watermark);
   * overrides `initialCapacity`. Lets a caller size the index without counting vectors elsewhere.
   */
  capacityFor?: (header: Pick<IndexFileInfo, 'count' | 'watermark'>) => number;
  /** Refuse (CorruptIndexError 'mismatch') an index of another dimension. */
  expectDim?: number;
  /** The store's data key: only a sealed file that opens with it is used (encrypted stores). */
  cipher?: FileCipher;
}

function checkDim(file: string, info: IndexFileInfo, opts: LoadIndexOptions): void {
  if (opts.expectDim !== undefined && opts.expectDim !== info.dim) {
    throw new CorruptIndexError('mismatch', `index has dimension ${info.dim}, expected ${opts.expectDim}`, file);
  }
}

function capacityOf(info: IndexFileInfo, opts: LoadIndexOptions): number | undefined {
  return opts.capacityFor ? opts.capacityFor({ count: info.count, watermark: info.watermark }) : opts.initialCapacity;
}

/** The index `build` makes from a checked payload, a corruption it finds naming `file`, and its size checked against the header. */
async function checkedIndex(
  file: string,
  info: IndexFileInfo,
  build: () => Promise<HnswIndex>,
): Promise<{ index: HnswIndex; info: IndexFileInfo }> {
  let index: HnswIndex;
  try {
    index = await build();
  } catch (err) {
    if (err instanceof CorruptIndexError) throw new CorruptIndexError(err.reason, err.message, file, { cause: err });
    throw err;
  }
  if (index.size !== info.count) {
    index.dispose();
    throw new CorruptIndexError('bad-payload', `header says ${info.count} vectors, payload holds ${index.size}`, file);
  }
  return { index, info };
}

/**
 * Loads a sealed index file: opened with the store's key, then checked like a plain one. It is
 * decrypted chunk by chunk from the file into one buffer (never held whole in its sealed form too).
 */
async function loadSealed(file: string, cipher: FileCipher, opts: LoadIndexOptions): Promise<{ index: HnswIndex; info: IndexFileInfo }> {
  const { plain, fileBytes } = openSealedIndex(file, cipher);
  const info = { ...parseHeader(file, plain.subarray(0, HEADER), plain.length), fileBytes };
  checkDim(file, info, opts);
  const payload = plain.subarray(HEADER);
  if (crc32(payload) !== plain.readUInt32LE(48)) throw new CorruptIndexError('payload-checksum', 'index payload checksum mismatch', file);
  return checkedIndex(file, info, () =>
    HnswIndex.deserialize(payload, { dim: info.dim, efSearch: opts.efSearch, initialCapacity: capacityOf(info, opts) }),
  );
}

function openSealedIndex(file: string, cipher: FileCipher): { plain: Buffer; fileBytes: number } {
  const fd = fs.openSync(file, 'r');
  try {
    const fileBytes = fs.fstatSync(fd).size;
    const head = Buffer.alloc(Math.min(fileBytes, 8));
    if (!isSealed(head.subarray(0, readFully(fd, head, 0))))
      throw new CorruptIndexError('bad-magic', 'a plain index file in an encrypted store', file);
    try {
      const opened = cipher.openFrom(
        'vector-index',
        fileBytes,
        (dst, at) => readFully(fd, dst, at),
        (n) => Buffer.allocUnsafe(n),
      );
      return { plain: Buffer.from(opened.plain.buffer, opened.plain.byteOffset, opened.length), fileBytes };
    } catch (e) {
      if (!(e instanceof DecryptError)) throw e;
      throw new CorruptIndexError('payload-checksum', `the encrypted index file does not open: ${errorMessage(e)}`, file);
    }
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Loads an index saved by {@link saveIndexFile}, verifying header, length and checksum.
 * Throws {@link CorruptIndexError} when the file cannot be trusted, the fs error (ENOENT…) when
 * it cannot be read.
 */
export async function loadIndexFile(file: string, opts: LoadIndexOptions = {}): Promise<{ index: HnswIndex; info: IndexFileInfo }> {
  if (opts.cipher) return loadSealed(file, opts.cipher, opts);
  // Streamed: the checksum is computed over chunks, then hnswlib reads its part of the file
  // straight into its heap (the file was read whole, then copied into hnswlib's in-memory FS:
  // 2× the index on top of it, while loading).
  const fd = fs.openSync(file, 'r');
  try {
    const size = fs.fstatSync(fd).size;
    const header = Buffer.alloc(HEADER);
    const got = fs.readSync(fd, header, 0, HEADER, 0);
    if (isSealed(header.subarray(0, got)))
      throw new CorruptIndexError('bad-magic', 'an encrypted index file in a store without a key', file);
    const info = parseHeader(file, header.subarray(0, got), size);
    checkDim(file, info, opts);
    let crc: number;
    try {
      crc = fileCrc(fd, HEADER, info.payloadBytes);
    } catch (err) {
      if (err instanceof CorruptIndexError) throw new CorruptIndexError(err.reason, err.message, file, { cause: err });
      throw err;
    }
    if (crc !== header.readUInt32LE(48)) {
      throw new CorruptIndexError('payload-checksum', 'index payload checksum mismatch', file);
    }
    return await checkedIndex(file, info, () =>
      HnswIndex.loadFromFile(fd, HEADER, info.payloadBytes, {
        dim: info.dim,
        efSearch: opts.efSearch,
        initialCapacity: capacityOf(info, opts),
      }),
    );
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Deletes temp files that a save interrupted by a crash left next to `file` (`<file>.tmp-<pid>-…`),
 * except this process's own. Call on open, before saving. Returns how many were removed.
 */
export async function removeStaleIndexTemps(file: string): Promise<number> {
  const dir = path.dirname(file);
  const prefix = `${path.basename(file)}.tmp-`;
  const own = `${prefix}${process.pid}-`;
  let names: string[];
  try {
    names = await fs.promises.readdir(dir);
  } catch {
    return 0;
  }
  let removed = 0;
  for (const name of names) {
    if (!name.startsWith(prefix) || name.startsWith(own)) continue;
    try {
      await fs.promises.unlink(path.join(dir, name));
      removed++;
    } catch {
      // gone already, or not ours to delete
    }
  }
  return removed;
}
