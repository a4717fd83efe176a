/**
 * Reading the frames of an op-log segment: [u32 length][u32 crc32(payload)][payload], and
 * finding the next intact frame after a damaged one (docs/storage.md "A damaged log").
 */
import { crc32 } from './checksum';
import { decodeTx, type TxRecord } from './opCodec';

export const SEGMENT_MAGIC = Buffer.from('AMOPLOG1', 'ascii');
export const FRAME = 8;
/** The smallest frame: its header, the record's seq (f64) and its statement count (u32). */
export const MIN_FRAME = FRAME + 12;
/** A single record larger than this is treated as corruption (no real transaction is this big). */
export const MAX_RECORD = 512 * 1024 * 1024;

export type FrameResult = { ok: true; rec: TxRecord; next: number } | { ok: false; why: string; torn: boolean };

/** The frame at `off`, decoded and checked, or why it is not one (`torn`: it runs past the end of the bytes). */
export function readFrame(buf: Buffer, off: number): FrameResult {
  if (buf.length - off < FRAME) return { ok: false, why: 'torn record header', torn: true };
  const len = buf.readUInt32LE(off);
  if (len === 0 || len > MAX_RECORD) return { ok: false, why: 'bad record length', torn: false };
  if (off + FRAME + len > buf.length) return { ok: false, why: 'torn record', torn: true };
  const payload = buf.subarray(off + FRAME, off + FRAME + len);
  if (crc32(payload) !== buf.readUInt32LE(off + 4)) return { ok: false, why: 'checksum mismatch', torn: false };
  try {
    return { ok: true, rec: decodeTx(payload), next: off + FRAME + len };
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
}

/**
 * The first frame at or after `from` that can only be a real record: its checksum holds, it
 * decodes, its seq is one the damaged place can be followed by (from `lo` up to one per
 * {@link MIN_FRAME} bytes skipped, never past `max`), and it is followed by the end of the
 * segment, an interrupted append at the end of the last segment, or a frame carrying the next
 * seq. A false match needs a 32-bit checksum, an exact seq and a second frame to agree by
 * chance. The seq is checked first, so the scan costs one comparison per byte skipped.
 */
export function resync(buf: Buffer, from: number, b: ResyncBounds): { off: number; rec: TxRecord; next: number } | undefined {
  const hi = Math.min(b.max, b.lo + Math.ceil((buf.length - from) / MIN_FRAME) + 1);
  for (let p = from; p + MIN_FRAME <= buf.length; p++) {
    const len = buf.readUInt32LE(p);
    if (len < MIN_FRAME - FRAME || p + FRAME + len > buf.length) continue;
    const seq = buf.readDoubleLE(p + FRAME);
    if (!(seq >= b.lo && seq <= hi) || !Number.isInteger(seq)) continue;
    const f = readFrame(buf, p);
    if (!f.ok || f.rec.seq !== seq || !followedWell(buf, f.next, seq, b.last)) continue;
    return { off: p, rec: f.rec, next: f.next };
  }
  return undefined;
}

function followedWell(buf: Buffer, at: number, seq: number, last: boolean): boolean {
  if (at === buf.length) return true;
  const f = readFrame(buf, at);
  if (f.ok) return f.rec.seq === seq + 1;
  return last && f.torn;
}

/**
 * A frame at `off` whose length field is damaged but whose payload is intact: the bytes from
 * its header to `end` (the next intact frame, or the end of the segment) verify with its
 * checksum and decode. Undefined when they do not.
 */
export function withRepairedLength(buf: Buffer, off: number, end: number): TxRecord | undefined {
  if (end - off < MIN_FRAME) return undefined;
  const payload = buf.subarray(off + FRAME, end);
  if (crc32(payload) !== buf.readUInt32LE(off + 4)) return undefined;
  try {
    return decodeTx(payload);
  } catch {
    return undefined;
  }
}
