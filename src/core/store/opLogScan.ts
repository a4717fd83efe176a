/**
 * Reading the frames of an op-log segment: [u32 length][u32 crc32(payload)][payload], and
 * finding the next intact frame after a damaged one (docs/storage.md "A damaged log").
 */
import { crc32, crc32Ends } from './checksum';
import type { TxRecord } from './opCodec';
import { PLAIN_CODEC, PLAIN_MAGIC, type LogCodec } from './logCodec';

/** The header of a plain segment (an encrypted one has logCodec.ts's SEALED_MAGIC, of the same length). */
export const SEGMENT_MAGIC = PLAIN_MAGIC;
export const FRAME = 8;
/** The smallest frame: its header, the record's seq (f64) and its statement count (u32). */
export const MIN_FRAME = FRAME + 12;
/** A single record larger than this is treated as corruption (no real transaction is this big). */
export const MAX_RECORD = 512 * 1024 * 1024;

export type FrameResult = { ok: true; rec: TxRecord; next: number } | { ok: false; why: string; torn: boolean };

/** The frame at `off`, decoded and checked, or why it is not one (`torn`: it runs past the end of the bytes). */
export function readFrame(buf: Buffer, off: number, codec: LogCodec = PLAIN_CODEC): FrameResult {
  if (buf.length - off < FRAME) return { ok: false, why: 'torn record header', torn: true };
  const len = buf.readUInt32LE(off);
  if (len === 0 || len > MAX_RECORD) return { ok: false, why: 'bad record length', torn: false };
  if (off + FRAME + len > buf.length) return { ok: false, why: 'torn record', torn: true };
  const payload = buf.subarray(off + FRAME, off + FRAME + len);
  if (crc32(payload) !== buf.readUInt32LE(off + 4)) return { ok: false, why: 'checksum mismatch', torn: false };
  try {
    return { ok: true, rec: codec.decode(payload), next: off + FRAME + len };
  } catch (e) {
    return { ok: false, why: `undecodable record (${(e as Error).message})`, torn: false };
  }
}

/** What a resync may accept: the seqs a record at this place can have, and whether the bytes may end in a torn frame. */
export interface ResyncBounds {
  /** The seq the damaged record had (the next one expected). */
  lo: number;
  /** No record in this segment has a larger seq (the next segment's first seq − 1, or unbounded). */
  max: number;
  /** The last segment: an unfinished frame at its very end is an interrupted append, not damage. */
  last: boolean;
  /** How payloads are read (plain, or sealed under the store's key). */
  codec: LogCodec;
}

/**
 * The first frame at or after `from` that can only be a real record: its checksum holds, it
 * decodes, its seq is one the damaged place can be followed by (from `lo` up to one per
 * {@link MIN_FRAME} bytes skipped, never past `max`), and from it the records run on with
 * consecutive seqs to the very end of the segment (or to an append cut short at the end of the
 * last one). Frames that merely look right — inside a record's text, say — end in the middle of
 * the real record around them, so they are passed over. The seq is checked first: the scan costs
 * a comparison per byte skipped. Damage at two places in one segment costs the records between.
 */
export function resync(buf: Buffer, from: number, b: ResyncBounds): { off: number; rec: TxRecord; next: number } | undefined {
  const hi = Math.min(b.max, b.lo + Math.ceil((buf.length - from) / MIN_FRAME) + 1);
  for (let p = from; p + MIN_FRAME <= buf.length; p++) {
    const len = buf.readUInt32LE(p);
    if (len < MIN_FRAME - FRAME || p + FRAME + len > buf.length) continue;
    const seq = buf.readDoubleLE(p + FRAME);
    if (!(seq >= b.lo && seq <= hi) || !Number.isInteger(seq)) continue;
    const f = readFrame(buf, p, b.codec);
    if (!f.ok || f.rec.seq !== seq || !runsToTheEnd(buf, f.next, seq, b)) continue;
    return { off: p, rec: f.rec, next: f.next };
  }
  return undefined;
}

/** Whether from `at` the frames carry seq + 1, seq + 2, … up to the end of the segment. */
function runsToTheEnd(buf: Buffer, at: number, seq: number, b: ResyncBounds): boolean {
  for (let p = at, s = seq; p < buf.length; s++) {
    const f = readFrame(buf, p, b.codec);
    if (!f.ok) return b.last && f.torn;
    if (f.rec.seq !== s + 1 || f.rec.seq > b.max) return false;
    p = f.next;
  }
  return true;
}

/**
 * The record at `off` when only its length field is damaged: the first end at which the bytes
 * after its header verify with its checksum and decode as record `seq`. Undefined otherwise.
 */
export function withRepairedLength(
  buf: Buffer,
  off: number,
  seq: number,
  codec: LogCodec = PLAIN_CODEC,
): { rec: TxRecord; next: number } | undefined {
  if (buf.length - off < MIN_FRAME) return undefined;
  const start = off + FRAME;
  for (const end of crc32Ends(buf, start, Math.min(buf.length, start + MAX_RECORD), buf.readUInt32LE(off + 4))) {
    if (end - start < MIN_FRAME - FRAME || buf.readDoubleLE(start) !== seq) continue;
    try {
      return { rec: codec.decode(buf.subarray(start, end)), next: end };
    } catch {
      // a chance match of the checksum: look further
    }
  }
  return undefined;
}

/**
 * The frame after a record whose length field is intact but whose bytes are damaged (the usual
 * flipped bit): where its length says the next frame is, a frame with the next seq verifies.
 * Reading goes on there without scanning the damaged bytes at all.
 */
export function nextByLength(buf: Buffer, off: number, b: ResyncBounds): { off: number; rec: TxRecord; next: number } | undefined {
  if (buf.length - off < FRAME) return undefined;
  const at = off + FRAME + buf.readUInt32LE(off);
  if (at >= buf.length) return undefined;
  const f = readFrame(buf, at, b.codec);
  return f.ok && f.rec.seq === b.lo + 1 && f.rec.seq <= b.max ? { off: at, rec: f.rec, next: f.next } : undefined;
}
