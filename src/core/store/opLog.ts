/**
 * Append-only operation log, split in segments named by their first sequence number.
 * One record per committed transaction: [u32 length][u32 crc32(payload)][payload],
 * written with one write() and made durable with fdatasync before the commit is
 * acknowledged. A torn or corrupt tail is detected by length/checksum on open,
 * kept in quarantine/ and cut off, so everything before it stays usable.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { crc32 } from './checksum';
import { decodeTx, encodeTx, type TxRecord } from './opCodec';
import { fsyncDir, preserveBytes } from './fsutil';

const SEGMENT_MAGIC = Buffer.from('AMOPLOG1', 'ascii');
const FRAME = 8;
/** A single record larger than this is treated as corruption (no real transaction is this big). */
const MAX_RECORD = 512 * 1024 * 1024;

interface Segment {
  firstSeq: number;
  file: string;
}

export interface LogReadResult {
  records: TxRecord[];
  lastSeq: number;
  warnings: string[];
}

function segmentName(firstSeq: number): string {
  return `${String(firstSeq).padStart(16, '0')}.log`;
}

export class OpLog {
  private fd: number | undefined;
  private current: Segment | undefined;
  private currentBytes = 0;
  private readonly dir: string;

  constructor(private readonly storeDir: string) {
    this.dir = path.join(storeDir, 'log');
    fs.mkdirSync(this.dir, { recursive: true });
  }

  private segments(): Segment[] {
    return fs
      .readdirSync(this.dir)
      .filter((n) => /^\d{16}\.log$/.test(n))
      .sort()
      .map((n) => ({ firstSeq: Number(n.slice(0, 16)), file: path.join(this.dir, n) }));
  }

  /**
   * Read every valid record with seq > afterSeq. Stops at the first torn or corrupt
   * record or sequence gap: the bad bytes are quarantined and cut from the segment,
   * later segments are quarantined whole (they cannot be applied without the gap).
   */
  read(afterSeq: number): LogReadResult {
    const warnings: string[] = [];
    const records: TxRecord[] = [];
    let lastSeq = afterSeq;
    let expected: number | undefined;
    let broken = false;
    const segs = this.segments();
    for (let i = 0; i < segs.length; i++) {
      const seg = segs[i]!;
      // Every record of this segment is ≤ afterSeq when the next one starts at afterSeq + 1 or
      // before: the snapshot has them, so they are not read. Such segments stay on disk only for
      // a fallback to the previous snapshot, which reads them with its own, smaller afterSeq.
      // (At 100k memories the first snapshot's segment holds the whole import: ≈ 290 MB, 1.2 s.)
      const next = segs[i + 1];
      if (!broken && next && next.firstSeq <= afterSeq + 1) continue;
      const buf = fs.readFileSync(seg.file);
      if (broken) {
        preserveBytes(this.storeDir, path.basename(seg.file), buf);
        fs.unlinkSync(seg.file);
        warnings.push(`log segment ${path.basename(seg.file)} follows a damaged record and was moved to quarantine`);
        continue;
      }
      let off = 0;
      if (buf.length >= SEGMENT_MAGIC.length && buf.subarray(0, SEGMENT_MAGIC.length).equals(SEGMENT_MAGIC)) {
        off = SEGMENT_MAGIC.length;
      } else if (buf.length > 0 && !(buf.length < SEGMENT_MAGIC.length && SEGMENT_MAGIC.subarray(0, buf.length).equals(buf))) {
        warnings.push(`log segment ${path.basename(seg.file)} has no valid header`);
        this.cut(seg, buf, 0, warnings);
        broken = true;
        continue;
      } else if (buf.length < SEGMENT_MAGIC.length) {
        // A segment torn while its header was being written: nothing in it.
        this.cut(seg, buf, 0, buf.length ? warnings : []);
        continue;
      }
      while (off < buf.length) {
        const bad = (why: string) => {
          warnings.push(`log ${path.basename(seg.file)} @${off}: ${why}; dropped ${buf.length - off} bytes`);
          this.cut(seg, buf, off, warnings);
          broken = true;
        };
        if (buf.length - off < FRAME) {
          bad('torn record header');
          break;
        }
        const len = buf.readUInt32LE(off);
        const sum = buf.readUInt32LE(off + 4);
        if (len === 0 || len > MAX_RECORD || off + FRAME + len > buf.length) {
          bad('torn record');
          break;
        }
        const payload = buf.subarray(off + FRAME, off + FRAME + len);
        if (crc32(payload) !== sum) {
          bad('checksum mismatch');
          break;
        }
        let rec: TxRecord;
        try {
          rec = decodeTx(payload);
        } catch (e) {
          bad(`undecodable record (${(e as Error).message})`);
          break;
        }
        if (expected !== undefined && rec.seq !== expected) {
          bad(`sequence gap (expected ${expected}, found ${rec.seq})`);
          break;
        }
        expected = rec.seq + 1;
        if (rec.seq > afterSeq) {
          records.push(rec);
          lastSeq = rec.seq;
        }
        off += FRAME + len;
      }
    }
    return { records, lastSeq, warnings };
  }

  /** Quarantine buf[from..] and truncate the segment to `from` bytes. */
  private cut(seg: Segment, buf: Buffer, from: number, warnings: string[]): void {
    if (from < buf.length) {
      const kept = preserveBytes(this.storeDir, `${path.basename(seg.file)}.${from}.bin`, buf.subarray(from));
      if (warnings.length) warnings[warnings.length - 1] += ` (kept in ${path.relative(this.storeDir, kept)})`;
    }
    if (from <= SEGMENT_MAGIC.length) {
      fs.unlinkSync(seg.file);
    } else {
      fs.truncateSync(seg.file, from);
    }
    fsyncDir(this.dir);
  }

  /** Open the newest segment for appending, or start one at nextSeq. */
  openForAppend(nextSeq: number): void {
    const segs = this.segments();
    const last = segs[segs.length - 1];
    if (last) {
      this.current = last;
      this.fd = fs.openSync(last.file, 'a');
      this.currentBytes = fs.fstatSync(this.fd).size;
    } else {
      this.startSegment(nextSeq);
    }
  }

  private startSegment(firstSeq: number): void {
    const file = path.join(this.dir, segmentName(firstSeq));
    this.fd = fs.openSync(file, 'a');
    fs.writeSync(this.fd, SEGMENT_MAGIC);
    fs.fdatasyncSync(this.fd);
    fsyncDir(this.dir);
    this.current = { firstSeq, file };
    this.currentBytes = SEGMENT_MAGIC.length;
  }

  /** Append one record and make it durable. Returns the bytes written. */
  append(rec: TxRecord): number {
    if (this.fd === undefined) throw new Error('op log is not open');
    const payload = encodeTx(rec);
    const frame = Buffer.allocUnsafe(FRAME + payload.length);
    frame.writeUInt32LE(payload.length, 0);
    frame.writeUInt32LE(crc32(payload), 4);
    payload.copy(frame, FRAME);
    let written = 0;
    while (written < frame.length) written += fs.writeSync(this.fd, frame, written, frame.length - written);
    fs.fdatasyncSync(this.fd);
    this.currentBytes += frame.length;
    return frame.length;
  }

  /** Close the current segment and start a new one whose first record will be nextSeq. */
  rotate(nextSeq: number): void {
    if (this.current && this.current.firstSeq === nextSeq) return;
    this.closeFd();
    this.startSegment(nextSeq);
  }

  /** Delete segments all of whose records have seq ≤ upToSeq (never the open one). */
  removeCoveredSegments(upToSeq: number): number {
    const segs = this.segments();
    let removed = 0;
    for (let i = 0; i + 1 < segs.length; i++) {
      const next = segs[i + 1]!;
      if (segs[i]!.file === this.current?.file) break;
      if (next.firstSeq <= upToSeq + 1) {
        fs.unlinkSync(segs[i]!.file);
        removed++;
      }
    }
    if (removed) fsyncDir(this.dir);
    return removed;
  }

  /** Bytes in all segments on disk (what a replay would read). */
  totalBytes(): number {
    let n = 0;
    for (const s of this.segments()) n += fs.statSync(s.file).size;
    return n;
  }

  get activeSegmentBytes(): number {
    return this.currentBytes;
  }

  private closeFd(): void {
    if (this.fd !== undefined) {
      fs.closeSync(this.fd);
      this.fd = undefined;
    }
  }

  close(): void {
    this.closeFd();
    this.current = undefined;
  }
}
