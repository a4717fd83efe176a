/**
 * Reading the frames of an op-log segment: [u32 length][u32 crc32(payload)][payload]. Also
 * counts the intact records that follow a damaged one, so a warning can say how many changes
 * were dropped (not how many bytes).
 */
import { crc32 } from './checksum';
import { decodeTx, type TxRecord } from './opCodec';

export const SEGMENT_MAGIC = Buffer.from('AMOPLOG1', 'ascii');
export const FRAME = 8;
/** A single record larger than this is treated as corruption (no real transaction is this big). */
export const MAX_RECORD = 512 * 1024 * 1024;
/** How far past a damaged record we look for intact ones to count (a resync is a byte-by-byte scan). */
const MAX_RESYNC_BYTES = 16 * 1024 * 1024;

export type FrameResult = { ok: true; rec: TxRecord; next: number } | { ok: false; why: string };

/** The frame at `off`, decoded and checked, or why it is not one. */
export function readFrame(buf: Buffer, off: number): FrameResult {
  if (buf.length - off < FRAME) return { ok: false, why: 'torn record header' };
  const len = buf.readUInt32LE(off);
  if (len === 0 || len > MAX_RECORD || off + FRAME + len > buf.length) return { ok: false, why: 'torn record' };
  const payload = buf.subarray(off + FRAME, off + FRAME + len);
  if (crc32(payload) !== buf.readUInt32LE(off + 4)) return { ok: false, why: 'checksum mismatch' };
  try {
    return { ok: true, rec: decodeTx(payload), next: off + FRAME + len };
  } catch (e) {
    return { ok: false, why: `undecodable record (${(e as Error).message})` };
  }
}

export interface IntactCount {
  count: number;
  firstSeq?: number;
  lastSeq?: number;
}

/**
 * The intact records in buf[from..]: follows frame lengths, and where a frame is bad scans
 * byte by byte for the next one whose checksum and encoding hold.
 */
export function countIntactRecords(buf: Buffer, from: number): IntactCount {
  const out: IntactCount = { count: 0 };
  const end = Math.min(buf.length, from + MAX_RESYNC_BYTES);
  let off = from;
  while (off < end) {
    const f = readFrame(buf, off);
    if (!f.ok) {
      off++;
      continue;
    }
    out.count++;
    out.firstSeq ??= f.rec.seq;
    out.lastSeq = f.rec.seq;
    off = f.next;
  }
  return out;
}

/** "3 changes (records 12–14)" / "no intact change". */
export function describeDropped(c: IntactCount): string {
  if (!c.count) return 'no intact change after it';
  const range = c.firstSeq === c.lastSeq ? `record ${c.firstSeq}` : `records ${c.firstSeq}–${c.lastSeq}`;
  return `${c.count} intact change${c.count === 1 ? '' : 's'} after it (${range})`;
}
