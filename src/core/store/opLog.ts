/**
 * Append-only operation log, split in segments named by their first sequence number.
 * One record per committed transaction: [u32 length][u32 crc32(payload)][payload],
 * written with one write() and made durable with fdatasync before the commit is
 * acknowledged. Damaged records are detected by length/checksum on open and skipped
 * (opLogRead.ts): a torn tail is cut off and kept in quarantine/, and the records after
 * damage in the middle are still read.
 *
 * A failed append never leaves a frame later records would follow: the segment is cut back
 * to its last good offset and synced; if even that fails the segment is sealed and the store
 * must re-establish a durable state (a snapshot) before a new segment takes records.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { crc32 } from './checksum';
import type { TxRecord } from './opCodec';
import { PLAIN_CODEC, type LogCodec } from './logCodec';
import { fsyncDir } from './fsutil';
import { nodeFs, writeAll, type StoreFs } from './storeFs';
import { FRAME } from './opLogScan';
import { LogReader, type LogReadResult, type Segment } from './opLogRead';

export type { LogReadResult, Segment } from './opLogRead';

/** What a failed append left behind. */
export interface AppendFailure {
  error: unknown;
  /** The failed bytes were cut off and the cut synced: the log ends at its last good record. */
  repaired: boolean;
  /** The failure came from fdatasync (or an I/O error): what reached the disk is unknown. */
  stateUnknown: boolean;
}

export class AppendError extends Error {
  constructor(readonly failure: AppendFailure) {
    super(`op log append failed: ${(failure.error as Error)?.message ?? String(failure.error)}`);
  }
}

function segmentName(firstSeq: number): string {
  return `${String(firstSeq).padStart(16, '0')}.log`;
}

export class OpLog {
  private fd: number | undefined;
  private current: Segment | undefined;
  private currentBytes = 0;
  private readonly dir: string;
  /** Plain, or sealed under the store's data key (logCodec.ts). */
  readonly codec: LogCodec;

  constructor(
    private readonly storeDir: string,
    private readonly sfs: StoreFs = nodeFs,
    opts: { create?: boolean; codec?: LogCodec } = {},
  ) {
    this.dir = path.join(storeDir, 'log');
    this.codec = opts.codec ?? PLAIN_CODEC;
    // A reader does not create it (nothing may be written: the disk may be full).
    if (opts.create !== false) fs.mkdirSync(this.dir, { recursive: true });
  }

  /** Segment files in order (empty when the folder does not exist). */
  static list(storeDir: string): Segment[] {
    const dir = path.join(storeDir, 'log');
    if (!fs.existsSync(dir)) return [];
    return fs
      .readdirSync(dir)
      .filter((n) => /^\d{16}\.log$/.test(n))
      .sort()
      .map((n) => ({ firstSeq: Number(n.slice(0, 16)), file: path.join(dir, n) }));
  }

  private segments(): Segment[] {
    return OpLog.list(this.storeDir);
  }

  /**
   * Read every record with seq > afterSeq (opLogRead.ts): damaged bytes are skipped by
   * resynchronising on the next intact record, and what could not be read is counted. With
   * `repair` (the writer) what holds nothing readable is cut and kept in quarantine/; without it
   * (a read-only opener) nothing on disk changes.
   */
  read(afterSeq: number, opts: { repair?: boolean } = {}): LogReadResult {
    return new LogReader(this.storeDir, afterSeq, opts.repair ?? true, this.codec).read(this.segments());
  }

  /** Open the newest segment for appending, or start one at nextSeq. */
  openForAppend(nextSeq: number): void {
    const segs = this.segments();
    const last = segs[segs.length - 1];
    if (last) {
      this.current = last;
      this.fd = this.sfs.openSync(last.file, 'a');
      this.currentBytes = fs.fstatSync(this.fd).size;
    } else {
      this.startSegment(nextSeq);
    }
  }

  /**
   * A new segment whose first record will be firstSeq. Truncated (a retry after a torn header
   * starts clean) and in append mode (after a cut-back, the next write lands at the new end).
   */
  private startSegment(firstSeq: number): void {
    const file = path.join(this.dir, segmentName(firstSeq));
    const { O_WRONLY, O_CREAT, O_TRUNC, O_APPEND } = fs.constants;
    const fd = this.sfs.openSync(file, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND);
    try {
      writeAll(this.sfs, fd, this.codec.magic);
      this.sfs.fdatasyncSync(fd);
      fsyncDir(this.dir);
    } catch (e) {
      this.sfs.closeSync(fd);
      // It holds no record: removed, so that an empty segment on disk always means lost bytes.
      fs.rmSync(file, { force: true });
      throw e;
    }
    this.fd = fd;
    this.current = { firstSeq, file };
    this.currentBytes = this.codec.magic.length;
  }

  /**
   * Append one record and make it durable. Returns the bytes written. On failure throws an
   * AppendError after cutting the failed bytes off (or, when that fails too, sealing the
   * segment: no later record may follow them).
   */
  append(rec: TxRecord): number {
    if (this.fd === undefined) throw new Error('op log is not open');
    const payload = this.codec.encode(rec);
    const frame = Buffer.allocUnsafe(FRAME + payload.length);
    frame.writeUInt32LE(payload.length, 0);
    frame.writeUInt32LE(crc32(payload), 4);
    payload.copy(frame, FRAME);
    let synced = false;
    try {
      writeAll(this.sfs, this.fd, frame);
      synced = true;
      this.sfs.fdatasyncSync(this.fd);
    } catch (error) {
      const stateUnknown = synced || (error as NodeJS.ErrnoException).code === 'EIO';
      throw new AppendError({ error, repaired: this.cutBack(), stateUnknown });
    }
    this.currentBytes += frame.length;
    return frame.length;
  }

  /** Cut the segment back to its last good record and sync; on failure void the frame and seal the segment (close it). */
  private cutBack(): boolean {
    try {
      this.sfs.ftruncateSync(this.fd!, this.currentBytes);
      this.sfs.fdatasyncSync(this.fd!);
      return true;
    } catch {
      this.closeFd();
      this.voidFailedFrame();
      return false;
    }
  }

  /**
   * The cut failed: zero the failed frame's header, so that until a snapshot covers this segment
   * (a crash before the store has re-established its state) every reader sees a torn record
   * there, never the write that was reported as failed. Best effort: the disk is failing.
   */
  private voidFailedFrame(): void {
    let fd: number | undefined;
    try {
      fd = this.sfs.openSync(this.current!.file, 'r+'); // not O_APPEND: a positional write lands where asked
      const zeros = Buffer.alloc(FRAME);
      let done = 0;
      while (done < FRAME) {
        const n = this.sfs.writeSync(fd, zeros, done, FRAME - done, this.currentBytes + done);
        if (n <= 0) return;
        done += n;
      }
      this.sfs.fdatasyncSync(fd);
    } catch {
      // Nothing more can be done now; the store's recovery snapshot covers this segment.
    } finally {
      if (fd !== undefined) this.sfs.closeSync(fd);
    }
  }

  /** Whether the log can take an append now (false after a failed cut: a new segment is needed). */
  get writable(): boolean {
    return this.fd !== undefined;
  }

  /**
   * Start appending in a fresh segment at nextSeq. A current segment that already starts at
   * nextSeq holds no record (all of its appends failed) and is rewritten.
   */
  restart(nextSeq: number): void {
    this.closeFd();
    this.startSegment(nextSeq);
  }

  /** Close the current segment and start a new one whose first record will be nextSeq. */
  rotate(nextSeq: number): void {
    if (this.fd !== undefined && this.current && this.current.firstSeq === nextSeq) return;
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
      try {
        this.sfs.closeSync(this.fd);
      } catch {
        // Closing after a failed write can report the same error again; the fd is gone either way.
      }
      this.fd = undefined;
    }
  }

  close(): void {
    this.closeFd();
    this.current = undefined;
  }
}
