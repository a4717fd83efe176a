/**
 * The store's snapshots (ARCHITECTURE.md "Durability contract"): whether one is due, taking one
 * (the bytes from the live file or an export, a new log segment, the file written atomically
 * while writes go on in that segment), the back-off after a snapshot failed for lack of space,
 * and the secure compaction. The Store (store.ts) owns one and gives it what it needs as a host.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Database } from 'sql.js';
import type { FileCipher } from '../crypto/fileCipher';
import { errorMessage } from '../util/errors';
import { changeCounter, releaseStorage, type LiveFile } from './liveFile';
import type { OpLog } from './opLog';
import {
  SNAPSHOT,
  discardSnapshotTemp,
  removeOldCopies,
  writeSnapshotFile,
  writeSnapshotTemp,
  type SnapshotContent,
} from './snapshotFiles';
import type { StoreFs } from './storeFs';
import { SNAPSHOT_DISK_FULL, storeIoError } from './storeHealth';
import type { SnapshotPolicy, StoreStats, WriteBlock } from './storeTypes';

/** What the snapshots need of the store. */
export interface SnapshotHost {
  readonly dir: string;
  readonly sfs: StoreFs;
  readonly db: Database;
  /** page_count × page_size: the size of the database file. */
  fileSize(): number;
  cipher(): FileCipher | undefined;
  /** The writer's log (undefined: this process does not write). */
  log(): OpLog | undefined;
  /** The log position of the last committed transaction. */
  seq(): number;
  inTx(): boolean;
  writeBlocked(): boolean;
  warn(message: string, key?: string): void;
  refreshHealth(): void;
  blockWrites(block: WriteBlock): void;
  isDiskFull(e: unknown): boolean;
}

export interface SnapshotStart {
  /** Read the written file back before it replaces the current one. */
  verify: boolean;
  /** Start a new log segment after the snapshot's position (writes go on in it meanwhile). */
  rotate: boolean;
  /** Keep the current snapshot as snapshot.prev (default true). */
  keepPrevious?: boolean;
}

export class StoreSnapshots {
  /** The log position the newest snapshot holds. */
  seq = 0;
  /** The snapshot being written, if one is. */
  pending: Promise<void> | undefined;
  /** Snapshots fail (disk full) while writes to the log still work; retried after retryAt. */
  problem: string | undefined;
  /** The loaded snapshot matched no checksum: the next snapshot replaces it and never makes it snapshot.prev. */
  loadedUnverified = false;
  /** The database file's bytes in MEMFS, written out directly by snapshots (see liveFile.ts). */
  live: LiveFile | undefined;
  /** How the last snapshot got the database's bytes. */
  lastFrom: StoreStats['lastSnapshotFrom'];
  /** When the oldest change no snapshot holds was made (undefined: there is none). */
  private oldestUnsnapshottedAt: number | undefined;
  private retryAt = 0;

  constructor(private readonly host: SnapshotHost) {}

  /** A change no snapshot holds was made (a commit, or records replayed at open). */
  changed(): void {
    this.oldestUnsnapshottedAt ??= Date.now();
  }

  /** Whether a snapshot is due under `policy` (never while writes are paused or snapshots back off). */
  due(policy: SnapshotPolicy, now: number): boolean {
    const log = this.host.log();
    if (!log || this.host.writeBlocked() || this.host.seq() === this.seq || now < this.retryAt) return false;
    return (
      log.activeSegmentBytes >= policy.logBytes ||
      (this.oldestUnsnapshottedAt !== undefined && now - this.oldestUnsnapshottedAt >= policy.maxAgeMs)
    );
  }

  /** Store.snapshot(): a no-op while writes are paused, during the back-off, and when nothing changed. */
  take(): Promise<void> {
    if (!this.host.log() || this.host.writeBlocked() || Date.now() < this.retryAt) return Promise.resolve();
    if (this.pending) return this.pending;
    if (this.host.seq() === this.seq && fs.existsSync(path.join(this.host.dir, SNAPSHOT))) return Promise.resolve();
    if (this.host.inTx()) throw new Error('cannot snapshot inside a transaction');
    return this.start({ verify: false, rotate: true });
  }

  /** Store.compactSecurely(): VACUUM, then a verified snapshot that keeps no previous one; how many files were removed. */
  async compactSecurely(): Promise<number> {
    if (this.host.inTx()) throw new Error('cannot compact inside a transaction');
    await this.pending?.catch(() => undefined);
    const size = this.host.fileSize();
    this.host.db.run('VACUUM');
    // A VACUUM that shrinks the file makes MEMFS copy it into a new array: the live view is then
    // stale, and snapshots copy the database until the store is opened again (nothing is wrong: no warning).
    if (this.host.fileSize() < size) this.live = undefined;
    await this.start({ verify: true, rotate: true, keepPrevious: false });
    return this.host.log()!.removeCoveredSegments(this.seq) + removeOldCopies(this.host.dir);
  }

  /** Export (synchronous, consistent at the current seq), maybe a new log segment, then the file written in the background. */
  start(opts: SnapshotStart): Promise<void> {
    const { host } = this;
    const seq = host.seq();
    const counter = this.live ? changeCounter(this.live.storage) : 0;
    // The watermark lives inside the snapshot; this write is not logged on purpose.
    host.db.run("INSERT OR REPLACE INTO store_meta (key, value) VALUES ('log_seq', ?)", [String(seq)]);
    let content: SnapshotContent;
    try {
      const cipher = host.cipher();
      content = this.liveFileUsable(counter)
        ? writeSnapshotTemp(host.dir, host.sfs, this.live!.storage, host.fileSize(), cipher)
        : { bytes: cipher ? cipher.sealFile('snapshot', host.db.export()) : host.db.export() };
      this.lastFrom = 'bytes' in content ? 'export' : 'live-file';
      if (opts.rotate) this.rotateFor(seq, content);
    } catch (e) {
      return Promise.reject(this.failed(e));
    }
    const startedAt = this.oldestUnsnapshottedAt;
    this.oldestUnsnapshottedAt = undefined;
    this.pending = (async () => {
      try {
        await writeSnapshotFile(host.dir, host.sfs, content, {
          keepPrevious: opts.keepPrevious !== false && !this.loadedUnverified,
          verify: opts.verify,
        });
        this.loadedUnverified = false;
        const prevSeq = this.seq;
        this.seq = seq;
        this.problem = undefined;
        this.retryAt = 0;
        host.refreshHealth();
        // Keep the segments the previous snapshot still needs, in case the newest is damaged.
        host.log()?.removeCoveredSegments(prevSeq);
      } catch (e) {
        this.oldestUnsnapshottedAt = startedAt ?? Date.now();
        throw this.failed(e);
      } finally {
        this.pending = undefined;
      }
    })();
    return this.pending;
  }

  /** The database's bytes with the snapshot watermark at `seq`: the live file when it is usable, else an export. */
  bytesAt(seq: number): Uint8Array {
    const counter = this.live ? changeCounter(this.live.storage) : 0;
    this.host.db.run("INSERT OR REPLACE INTO store_meta (key, value) VALUES ('log_seq', ?)", [String(seq)]);
    return this.liveFileUsable(counter) ? this.live!.storage.subarray(0, this.host.fileSize()) : this.host.db.export();
  }

  /** The store was rewritten whole at the current position (a new encryption key): that is its snapshot now. */
  rewritten(): void {
    [this.seq, this.oldestUnsnapshottedAt, this.loadedUnverified] = [this.host.seq(), undefined, false];
  }

  /** Frees the live file's storage (on close). */
  async release(): Promise<void> {
    const live = this.live;
    this.live = undefined;
    if (live) await releaseStorage(live).catch(() => undefined);
  }

  /** Writes continue in a new segment while the snapshot file is written; if it cannot be started, writes pause. */
  private rotateFor(seq: number, content: SnapshotContent): void {
    try {
      this.host.log()!.rotate(seq + 1);
    } catch (e) {
      discardSnapshotTemp(this.host.dir, content);
      const err = storeIoError(this.host.dir, e, 'a new log segment');
      this.host.blockWrites({ code: err.code as WriteBlock['code'], detail: err.message, needsSnapshot: false, needsWriter: false });
      throw err;
    }
  }

  /** A failed snapshot costs nothing (the log has every write); for lack of space, retries back off. */
  private failed(e: unknown): Error {
    if (!this.host.isDiskFull(e)) {
      this.host.warn(`snapshot failed (the operation log still holds every write): ${errorMessage(e)}`, `snapshot:${errorMessage(e)}`);
      return e instanceof Error ? e : new Error(errorMessage(e));
    }
    this.problem = SNAPSHOT_DISK_FULL;
    this.retryAt = Date.now() + 60_000;
    this.host.warn(SNAPSHOT_DISK_FULL, 'snapshot:disk_full');
    this.host.refreshHealth();
    return storeIoError(this.host.dir, e, 'a snapshot');
  }

  /**
   * Whether the live file view still is the database file: it fits its storage, and the
   * change counter moved in it with the write just made (`before`: the counter before it).
   */
  private liveFileUsable(before: number): boolean {
    const ok = !!this.live && this.host.fileSize() <= this.live.storage.length && changeCounter(this.live.storage) !== before;
    if (this.live && !ok) {
      this.live = undefined;
      this.host.warn(
        'snapshots now copy the whole database (its in-memory file outgrew the space reserved for it); reopening the store restores the direct write',
      );
    }
    return ok;
  }
}
