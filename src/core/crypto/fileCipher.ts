/**
 * The encrypted formats of a store's files, under its data key (docs/encryption.md "Formats").
 *
 * Log record payload: `seq (f64 LE) | nonce | ciphertext | tag`. The sequence number stays in
 * the clear, where a plain record has it, so finding the next intact record after damage works
 * unchanged (src/core/store/opLogScan.ts); it is also the additional data, so a record copied to
 * another place of the log, or another store's log, does not open.
 *
 * Sealed file (snapshots, vector index files, quarantine copies):
 *   `AMSEALED | u8 version | u8 kind length | kind | u32 chunk size | f64 plain length`
 *   then one sealed chunk per `chunk size` plain bytes (the last may be shorter).
 * Each chunk's additional data is the header plus the chunk's number: chunks cannot be
 * reordered, a file of one kind cannot pass for another, and a file cut short or with bytes
 * added fails (the plain length is authenticated by every chunk).
 */
import { createHash } from 'node:crypto';
import { DecryptError, SEAL_OVERHEAD, open, seal, sealInto } from './aead';

export const SEALED_MAGIC = Buffer.from('AMSEALED', 'latin1');
const SEALED_VERSION = 1;
export const CHUNK_BYTES = 1024 * 1024;
const RECORD_AAD = Buffer.from('agent-memory log record v1|', 'latin1');

/** What a sealed file holds, bound into its additional data. */
export type SealedKind = 'snapshot' | 'vector-index' | 'quarantine';

/** Whether `bytes` start like a sealed file (its contents are not checked). */
export function isSealed(bytes: Uint8Array): boolean {
  return bytes.length >= SEALED_MAGIC.length && Buffer.from(bytes.buffer, bytes.byteOffset, SEALED_MAGIC.length).equals(SEALED_MAGIC);
}

function sealedHeader(kind: SealedKind, plainLength: number): Buffer {
  const k = Buffer.from(kind, 'latin1');
  const h = Buffer.alloc(SEALED_MAGIC.length + 2 + k.length + 12);
  SEALED_MAGIC.copy(h, 0);
  h.writeUInt8(SEALED_VERSION, 8);
  h.writeUInt8(k.length, 9);
  k.copy(h, 10);
  h.writeUInt32LE(CHUNK_BYTES, 10 + k.length);
  h.writeDoubleLE(plainLength, 14 + k.length);
  return h;
}

function chunkAad(header: Buffer, index: number): Buffer {
  const aad = Buffer.allocUnsafe(header.length + 4);
  header.copy(aad, 0);
  aad.writeUInt32LE(index, header.length);
  return aad;
}

/** Bytes of the sealed form of `plainLength` plain bytes of `kind`. */
export function sealedSize(kind: SealedKind, plainLength: number): number {
  return sealedHeader(kind, plainLength).length + Math.ceil(plainLength / CHUNK_BYTES) * SEAL_OVERHEAD + plainLength;
}

interface ParsedHeader {
  header: Buffer;
  chunk: number;
  plainLength: number;
}

function parseHeader(bytes: Uint8Array, kind: SealedKind): ParsedHeader {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  if (!isSealed(b)) throw new DecryptError('not an encrypted Agent Memory file');
  if (b.length < 10 || b.readUInt8(8) !== SEALED_VERSION) throw new DecryptError('an encrypted file of an unknown format version');
  const k = b.readUInt8(9);
  if (b.length < 22 + k) throw new DecryptError('the encrypted file is cut short');
  const got = b.subarray(10, 10 + k).toString('latin1');
  if (got !== kind) throw new DecryptError(`an encrypted ${got} file where a ${kind} file was expected`);
  const chunk = b.readUInt32LE(10 + k);
  const plainLength = b.readDoubleLE(14 + k);
  if (chunk === 0 || !Number.isSafeInteger(plainLength) || plainLength < 0) throw new DecryptError('the encrypted file header is damaged');
  return { header: Buffer.from(b.subarray(0, 22 + k)), chunk, plainLength };
}

/** The per-store data key and the operations on the store's files that use it. */
export class FileCipher {
  /** A short, stable name of the data key (not secret: a hash of it), for status and errors. */
  readonly id: string;

  constructor(private readonly key: Buffer) {
    this.id = createHash('sha256').update('agent-memory data key id|').update(key).digest('hex').slice(0, 16);
  }

  /** The sealed payload of a log record whose plain payload is `payload` (which starts with its seq). */
  sealRecord(seq: number, payload: Uint8Array): Buffer {
    const head = Buffer.allocUnsafe(8);
    head.writeDoubleLE(seq, 0);
    const out = Buffer.allocUnsafe(8 + payload.length + SEAL_OVERHEAD);
    head.copy(out, 0);
    sealInto(this.key, payload, Buffer.concat([RECORD_AAD, head]), out, 8);
    return out;
  }

  /** The plain payload of a sealed log record; DecryptError when it does not authenticate. */
  openRecord(sealed: Uint8Array): Buffer {
    if (sealed.length < 8 + SEAL_OVERHEAD) throw new DecryptError('the encrypted record is cut short');
    const head = sealed.subarray(0, 8);
    return open(this.key, sealed.subarray(8), Buffer.concat([RECORD_AAD, head]));
  }

  /**
   * Seals `plain[0..length]` as a file of `kind`, handing the sealed bytes to `sink` in order
   * (the header, then one chunk at a time): a large snapshot is never copied whole.
   */
  sealTo(kind: SealedKind, plain: Uint8Array, length: number, sink: (bytes: Uint8Array) => void): void {
    const header = sealedHeader(kind, length);
    sink(header);
    const out = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, length) + SEAL_OVERHEAD);
    for (let i = 0, off = 0; off < length; i++, off += CHUNK_BYTES) {
      const part = plain.subarray(off, Math.min(length, off + CHUNK_BYTES));
      const n = sealInto(this.key, part, chunkAad(header, i), out, 0);
      sink(out.subarray(0, n));
    }
  }

  /** The whole sealed file of `plain` as one buffer. */
  sealFile(kind: SealedKind, plain: Uint8Array): Buffer {
    const parts: Buffer[] = [];
    this.sealTo(kind, plain, plain.length, (b) => parts.push(Buffer.from(b)));
    return Buffer.concat(parts);
  }

  /** The plain length a sealed file says it holds (its header only is read). */
  static plainLength(sealed: Uint8Array, kind: SealedKind): number {
    return parseHeader(sealed, kind).plainLength;
  }

  /**
   * Opens a sealed file of `kind` into `out` (at least its plain length; a new buffer when not
   * given) and returns the plain bytes' length. DecryptError when any chunk does not open, a
   * chunk is missing or bytes follow the last one.
   */
  openFile(kind: SealedKind, sealed: Uint8Array, out?: Uint8Array): { plain: Uint8Array; length: number } {
    const b = Buffer.from(sealed.buffer, sealed.byteOffset, sealed.length);
    return this.openFrom(
      kind,
      sealed.length,
      (dst, at) => b.copy(dst, 0, at, at + dst.length),
      (size) => {
        if (out && out.length < size) throw new RangeError('openFile: the target is smaller than the plain file');
        return out ?? Buffer.allocUnsafe(size);
      },
    );
  }

  /**
   * Opens a sealed file of `kind` and `size` bytes read through `readAt` (bytes read into `dst`
   * from `position`), one chunk at a time: a large snapshot is decrypted straight into the
   * storage `target(plainLength)` gives, never held whole in its sealed form as well.
   */
  openFrom(
    kind: SealedKind,
    size: number,
    readAt: (dst: Buffer, position: number) => number,
    target: (plainLength: number) => Uint8Array,
  ): { plain: Uint8Array; length: number } {
    const head = Buffer.alloc(Math.min(size, SEALED_MAGIC.length + 2 + 255 + 12));
    if (readAt(head, 0) !== head.length) throw new DecryptError('the encrypted file is cut short');
    const { header, chunk, plainLength } = parseHeader(head, kind);
    // The size the header implies, checked before the target is allocated (a damaged length must not allocate).
    const expected = header.length + Math.ceil(plainLength / chunk) * SEAL_OVERHEAD + plainLength;
    if (size < expected) throw new DecryptError('the encrypted file is cut short');
    if (size > expected) throw new DecryptError(`the encrypted file has ${size - expected} unexpected bytes at its end`);
    const plain = target(plainLength);
    const buf = Buffer.allocUnsafe(Math.min(chunk, plainLength) + SEAL_OVERHEAD);
    let at = header.length;
    for (let i = 0, off = 0; off < plainLength; i++, off += chunk) {
      const n = Math.min(chunk, plainLength - off) + SEAL_OVERHEAD;
      if (at + n > size || readAt(buf.subarray(0, n), at) !== n) throw new DecryptError('the encrypted file is cut short');
      open(this.key, buf.subarray(0, n), chunkAad(header, i), plain, off);
      at += n;
    }
    if (at !== size) throw new DecryptError(`the encrypted file has ${size - at} unexpected bytes at its end`);
    return { plain, length: plainLength };
  }

  /** Seals a short value (a wrapped key) with this key. */
  sealValue(plain: Uint8Array, aad: Uint8Array): Buffer {
    return seal(this.key, plain, aad);
  }
}
