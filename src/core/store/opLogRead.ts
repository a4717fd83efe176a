/**
 * Reading the operation log after a position (docs/storage.md "A damaged log"). Records are read
 * in sequence across segments; where bytes are damaged the reader resynchronises on the next
 * frame that can only be a real record (opLogScan.ts) and goes on, so one flipped bit costs the
 * record it hit, not the rest of the log. Missing changes are counted from the sequence numbers:
 * a gap inside a segment, an empty segment, or a segment that is gone.
 *
 * With `repair` (the writer) bytes that hold nothing readable are cut from the end of a segment
 * and kept in quarantine/, a damaged segment header or record length is rewritten in place, and a
 * copy of a segment damaged in the middle is kept; the rest of that segment stays, and the
 * snapshot the store takes after such an open covers it. Without `repair` nothing on disk changes.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { TxRecord } from './opCodec';
import { checkSegmentFormat, type LogCodec } from './logCodec';
import { FRAME, SEGMENT_MAGIC, nextByLength, readFrame, resync, withRepairedLength, type ResyncBounds } from './opLogScan';
import { fsyncDir, preserveBytes, quarantineOnce } from './fsutil';
import { errorMessage } from '../util/errors';

export interface Segment {
  firstSeq: number;
  file: string;
}

/** How many changes a damaged log lost: an exact count, plus whether the end of the log may have lost more. */
export interface LogReadResult {
  records: TxRecord[];
  lastSeq: number;
  /** Index in `records` of the first record read after changes that could not be read (undefined: none were lost). */
  firstAfterLoss: number | undefined;
  /** Changes after the position read from that could not be read. */
  lost: number;
  /**
   * The end of the log may have lost more than `lost`: `at-least-one` (its last record is damaged),
   * `maybe` (its newest segment is empty: changes saved in it, if any, are gone).
   */
  lostAtEnd: 'none' | 'at-least-one' | 'maybe';
  /** The last record was cut short while being written, or its write failed: it was never confirmed. */
  interrupted: boolean;
  /** Damaged bytes were found that cost no change (a segment header, a record length, a failed write). */
  repairedOnly: boolean;
  /** Records between the position read from and the first segment are not in the log (a lost snapshot). */
  missingBefore?: { from: number; to: number };
  /** Copies in quarantine/ (relative to the store folder). */
  kept: string[];
  /** Why a copy could not be kept, when one could not. */
  keepFailed?: string;
}

export class LogReader {
  private readonly out: LogReadResult = {
    records: [],
    lastSeq: 0,
    firstAfterLoss: undefined,
    lost: 0,
    lostAtEnd: 'none',
    interrupted: false,
    repairedOnly: false,
    kept: [],
  };
  /** The seq the next record must have (undefined before the first segment read). */
  private expected: number | undefined;

  constructor(
    private readonly storeDir: string,
    private readonly afterSeq: number,
    private readonly repair: boolean,
    private readonly codec: LogCodec,
  ) {
    this.out.lastSeq = afterSeq;
  }

  read(segs: Segment[]): LogReadResult {
    for (let i = 0; i < segs.length; i++) {
      const seg = segs[i]!;
      const next = segs[i + 1];
      // Every record of this segment is ≤ afterSeq when the next one starts at afterSeq + 1 or
      // before: the snapshot has them, so they are not read. Such segments stay on disk only for
      // a fallback to the previous snapshot, which reads them with its own, smaller afterSeq.
      if (next && next.firstSeq <= this.afterSeq + 1) continue;
      this.readSegment(seg, next);
    }
    return this.out;
  }

  private readSegment(seg: Segment, next: Segment | undefined): void {
    this.enter(seg);
    const buf = fs.readFileSync(seg.file);
    if (buf.length < SEGMENT_MAGIC.length) {
      this.emptySegment(seg, buf, next);
      return;
    }
    const magic = this.codec.magic;
    checkSegmentFormat(seg.file, buf.subarray(0, magic.length), this.codec);
    const bounds = (): ResyncBounds => ({ lo: this.expected!, max: next ? next.firstSeq - 1 : Infinity, last: !next, codec: this.codec });
    let off = magic.length;
    while (off < buf.length) {
      const f = readFrame(buf, off, this.codec);
      if (f.ok && f.rec.seq >= this.expected! && f.rec.seq <= bounds().max) {
        this.accept(f.rec);
        off = f.next;
      } else {
        off = this.damage(seg, buf, off, bounds());
      }
    }
    // A damaged header costs nothing when the segment is still there (its records were read).
    if (!buf.subarray(0, magic.length).equals(magic) && fs.existsSync(seg.file)) {
      this.out.repairedOnly = true;
      if (this.repair) this.rewrite(seg.file, 0, magic);
    }
  }

  /** The start of a segment: records from the last one read up to its first seq are missing. */
  private enter(seg: Segment): void {
    if (this.expected === undefined) {
      if (seg.firstSeq > this.afterSeq + 1) this.out.missingBefore = { from: this.afterSeq + 1, to: seg.firstSeq - 1 };
      this.expected = seg.firstSeq;
      return;
    }
    if (this.expected < seg.firstSeq) this.lose(this.expected, seg.firstSeq - 1);
    this.expected = seg.firstSeq;
  }

  private accept(rec: TxRecord): void {
    if (rec.seq > this.expected!) this.lose(this.expected!, rec.seq - 1);
    this.expected = rec.seq + 1;
    if (rec.seq <= this.afterSeq) return;
    this.out.records.push(rec);
    this.out.lastSeq = rec.seq;
  }

  /** Records from..to could not be read (those the snapshot covers do not count). */
  private lose(from: number, to: number): void {
    const first = Math.max(from, this.afterSeq + 1);
    if (to < first) return;
    this.out.lost += to - first + 1;
    this.out.firstAfterLoss ??= this.out.records.length;
  }

  /**
   * The frame at `off` does not read: returns where reading goes on (the end of the segment when
   * nothing more reads). In order: its length intact (the usual flipped bit: the next record is
   * where the length says, and the damaged bytes are never scanned); only its length damaged (the
   * checksum finds where it really ends, and the record is read); else a scan for the next intact
   * record (opLogScan.ts).
   */
  private damage(seg: Segment, buf: Buffer, off: number, bounds: ResyncBounds): number {
    const next = nextByLength(buf, off, bounds);
    if (next) {
      this.keepCopy(seg, buf);
      return next.off;
    }
    const whole = withRepairedLength(buf, off, this.expected!, this.codec);
    if (whole && whole.rec.seq <= bounds.max) {
      this.accept(whole.rec);
      this.out.repairedOnly = true;
      if (this.repair) this.rewrite(seg.file, off, u32(whole.next - off - FRAME));
      return whole.next;
    }
    const found = resync(buf, off + 1, bounds);
    if (found) {
      this.keepCopy(seg, buf);
      if (found.rec.seq === this.expected) this.out.repairedOnly = true; // the damaged bytes held no record
      return found.off;
    }
    this.damagedTail(seg, buf, off, bounds.last);
    return buf.length;
  }

  /**
   * Nothing after `off` in this segment reads. In the last segment it is the end of the log;
   * elsewhere the next segment's first seq says how much is missing.
   */
  private damagedTail(seg: Segment, buf: Buffer, off: number, last: boolean): void {
    if (last) {
      const f = readFrame(buf, off, this.codec);
      const voided = buf.length - off >= FRAME && buf.subarray(off, off + FRAME).every((b) => b === 0);
      if ((!f.ok && f.torn) || voided) this.out.interrupted = true;
      else this.out.lostAtEnd = 'at-least-one';
    } else {
      this.out.repairedOnly = true; // counted at the next segment's start, if anything is missing there
    }
    if (this.repair) this.cut(seg, buf, off);
  }

  /** A segment shorter than its header: nothing in it reads. */
  private emptySegment(seg: Segment, buf: Buffer, next: Segment | undefined): void {
    if (!next) this.out.lostAtEnd = 'maybe';
    if (this.repair) this.cut(seg, buf, 0);
  }

  /** Keep buf[from..] in quarantine/ and cut it from the segment (a segment left with no record is removed). */
  private cut(seg: Segment, buf: Buffer, from: number): void {
    // Never cut what could not be kept: a failure here fails the open (a full disk opens as a reader).
    if (from < buf.length)
      this.out.kept.push(this.rel(preserveBytes(this.storeDir, `${path.basename(seg.file)}.${from}.bin`, buf.subarray(from))));
    if (from <= SEGMENT_MAGIC.length) fs.unlinkSync(seg.file);
    else fs.truncateSync(seg.file, from);
    fsyncDir(path.dirname(seg.file));
  }

  /** A copy of a segment damaged in the middle (it stays in place: its later records were read). */
  private keepCopy(seg: Segment, buf: Buffer): void {
    if (!this.repair) return;
    try {
      const kept = this.rel(quarantineOnce(this.storeDir, path.basename(seg.file), buf));
      if (!this.out.kept.includes(kept)) this.out.kept.push(kept);
    } catch (e) {
      this.out.keepFailed = errorMessage(e);
    }
  }

  /** Puts the right bytes back at `at` (a segment header, a record length) and syncs; best effort. */
  private rewrite(file: string, at: number, bytes: Uint8Array): void {
    let fd: number | undefined;
    try {
      fd = fs.openSync(file, 'r+');
      fs.writeSync(fd, bytes, 0, bytes.length, at);
      fs.fdatasyncSync(fd);
    } catch {
      // Read the same way next time: the damage costs nothing.
    } finally {
      if (fd !== undefined) fs.closeSync(fd);
    }
  }

  private rel(file: string): string {
    return path.relative(this.storeDir, file);
  }
}

function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n, 0);
  return b;
}
