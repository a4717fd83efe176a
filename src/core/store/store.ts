/**
 * The durable embedded store: sql.js in memory, made durable by an operation log
 * (one fdatasync'ed record per committed transaction) and periodic atomic snapshots.
 *
 * Contract (ARCHITECTURE.md "Durability contract"): a transaction is acknowledged only after its log
 * record is on disk; opening = load the newest verified snapshot + replay the log after
 * its watermark; a torn or corrupt tail is dropped with a warning and kept in
 * quarantine/. Transactions are synchronous functions: no await (so no LLM or
 * embedding call) can happen inside one.
 *
 * Faults (docs/durability.md): a failed append or fsync pauses writes (health disk_full /
 * io_error) until a durable state is re-established in the background; a log that cannot be
 * replayed opens read-only with one error and its segments copied to quarantine/.
 *
 * This file opens the store and holds its state; transactions are storeWrites.ts, snapshots and
 * the secure compaction storeSnapshots.ts, health storeHealth.ts, encryption storeCrypt.ts.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Database } from 'sql.js';
import { SqlDb } from './sqlDb';
import type { SnapshotPolicy, StoreOptions, StoreStats, Tx, WriteBlock } from './storeTypes';
import { AppendError, OpLog } from './opLog';
import type { Op } from './opCodec';
import { highestBoundRid, withoutMark } from './rowNumbers';
import { StoreLock } from './lock';
import { loadSqlJs } from './sqljs';
import { applyMigrations, defaultMigrationsDir, loadMigrations, type MigrationHost } from './migrations';
import { reserveFor } from './liveFile';
import { UserFacingError, errorMessage } from '../util/errors';
import { SNAPSHOT, loadSnapshot, type LoadedSnapshot, type VerifiedBy } from './snapshotFiles';
import { LOW_SPACE_BYTES, freeBytes, isDiskFull, nodeFs, type StoreFs } from './storeFs';
import {
  HealthTracker,
  StoreIoError,
  WarningList,
  diskFullAtOpen,
  diskFullCannotOpen,
  storeIoError,
  writeBlockFor,
  type StoreHealth,
} from './storeHealth';
import { keepSetAside, logDamageWarning, quarantineUnreplayed, replayRecords, unreplayableMessage, type NewestSegment } from './replay';
import { becomeWriter } from './writerCatchUp';
import { checkStoreLayout } from './storeLayout';
import { RetryScheduler } from './retryScheduler';
import { FtsMergeTimer, compactFullTextIndex, mergeFullTextSegments, type CompactOptions, type FtsHost } from './ftsMaintenance';
import type { FileCipher } from '../crypto/fileCipher';
import type { UserKey, UserKeyring } from '../crypto/userKeys';
import { codecFor } from './logCodec';
import { encryptionInfo, rekeyStore, storeCipherAtOpen, type EncryptionInfo, type RekeyProbe } from './storeCrypt';
import { StoreSnapshots } from './storeSnapshots';
import { StoreWrites } from './storeWrites';

export * from './storeTypes';
export type { StoreHealth, StoreHealthState } from './storeHealth';
export { StoreIoError } from './storeHealth';

const MAX_RECOVERY_DELAY_MS = 30_000;

function isDiskFullError(e: unknown): boolean {
  return isDiskFull(e) || (e instanceof StoreIoError && e.code === 'disk_full') || isDiskFull((e as StoreIoError)?.fsError);
}

export class Store extends SqlDb {
  private seq = 0;
  private closed = false;
  private readonly ftsMergeTimer: FtsMergeTimer | undefined;
  private readonly warningList = new WarningList();
  private readonly healthTracker = new HealthTracker();
  private openMs = 0;
  private replayed = 0;
  private schemaVersion = 0;
  private snapshotVerifiedBy: VerifiedBy = 'none';
  /** Why this process never writes (opened read-only, a log it cannot replay); undefined for a writer. */
  private readOnlyReason: string | undefined;
  /** The log could not be replayed: read-only for good, migrations applied in memory only. */
  private unreplayable = false;
  private writeBlock: WriteBlock | undefined;
  private readonly retry: RetryScheduler;
  private readonly sfs: StoreFs;
  /** The open found a damaged log: the writer takes a snapshot at once, so the repaired state is durable. */
  private damagedLog = false;
  private readonly snapshots: StoreSnapshots;
  private readonly writes: StoreWrites;
  /** The store's data key when it is encrypted (docs/encryption.md): every file it writes is sealed with it. */
  private cipher: FileCipher | undefined;

  private constructor(
    db: Database,
    private log: OpLog | undefined,
    private lock: StoreLock | undefined,
    readonly dir: string,
    private readonly opts: StoreOptions,
  ) {
    super(db);
    this.sfs = opts.fs ?? nodeFs;
    this.retry = new RetryScheduler(opts.recoveryIntervalMs ?? 1000, MAX_RECOVERY_DELAY_MS, () => this.tryRecover());
    if (opts.onHealthChange) this.healthTracker.onChange(opts.onHealthChange);
    const merge = opts.ftsMerge ?? { tables: ['memories_fts', 'memories_exact', 'chunks_fts'], every: 64 };
    if (merge) this.ftsMergeTimer = new FtsMergeTimer(merge.every, () => !this.closed && this.mergeFullTextSegments(merge.tables));
    this.snapshots = new StoreSnapshots({
      dir: this.dir,
      sfs: this.sfs,
      db,
      fileSize: () => this.fileSize(),
      cipher: () => this.cipher,
      log: () => this.log,
      seq: () => this.seq,
      inTx: () => this.writes.inTx,
      writeBlocked: () => !!this.writeBlock,
      warn: (m, key) => this.warn(m, key),
      refreshHealth: () => this.refreshHealth(),
      blockWrites: (block) => this.blockWrites(block),
      isDiskFull: isDiskFullError,
    });
    this.writes = new StoreWrites({
      db,
      execOp: (sql, params) => this.execOp(sql, params),
      get: (sql, params) => this.get(sql, params),
      all: (sql, params) => this.all(sql, params),
      assertWritable: () => this.assertWritable(),
      append: (ops) => this.appendDurably(ops),
      committed: () => {
        this.seq++;
        this.snapshots.changed();
        this.ftsMergeTimer?.countCommit();
      },
      warn: (m, key) => this.warn(m, key),
    });
  }

  /**
   * Open (creating) the store in `opts.dir`. When the disk is full the store opens read-only
   * with health `disk_full` and becomes the writer by itself once space is back.
   */
  static async open(opts: StoreOptions): Promise<Store> {
    if (opts.readOnly) return Store.openAs(opts, 'reader');
    try {
      const store = await Store.openAs(opts, 'writer');
      if (store.damagedLog) await store.snapshotAfterDamage();
      return store;
    } catch (e) {
      if (!isDiskFullError(e)) throw e;
      const store = await Store.openAs(opts, 'waiting-writer').catch(() => Promise.reject(diskFullCannotOpen(opts.dir, e)));
      store.blockWrites(diskFullAtOpen(store.dir, true));
      return store;
    }
  }

  private static async openAs(opts: StoreOptions, mode: 'writer' | 'reader' | 'waiting-writer'): Promise<Store> {
    const t0 = performance.now();
    const dir = path.resolve(opts.dir);
    fs.mkdirSync(dir, { recursive: true });
    checkStoreLayout(dir);
    const lock = mode === 'writer' ? StoreLock.acquire(dir, opts.purpose) : undefined;
    try {
      // The key first: nothing of an encrypted store is read before it opens (storeCrypt.ts).
      const cipher = storeCipherAtOpen(dir, { keys: opts.keys, newStoreKey: opts.newStoreKey, writer: mode === 'writer' });
      const warnings: string[] = [];
      if (lock?.tookOver) warnings.push(lock.tookOver);
      const reserve = opts.fileReserve ?? reserveFor;
      // sql.js compiles while the snapshot is read (and decrypted): it is awaited only to open it.
      const sql = loadSqlJs(opts.sqlWasmPath);
      const snap = await loadSnapshot(sql, dir, warnings, { reserve, repair: mode === 'writer', ...(cipher ? { cipher } : {}) });
      const log = mode === 'writer' ? new OpLog(dir, opts.fs ?? nodeFs, { codec: codecFor(cipher) }) : undefined;
      const store = new Store(snap.db, log, lock, dir, opts);
      store.cipher = cipher;
      if (mode === 'reader') store.readOnlyReason = opts.readOnlyReason ?? 'This memory store is open read-only.';
      store.startFrom(snap, warnings);
      store.openMs = performance.now() - t0;
      return store;
    } catch (e) {
      lock?.release();
      throw e;
    }
  }

  /** From the loaded snapshot: replay, open the log for appending, migrate, tell what happened. */
  private startFrom(snap: LoadedSnapshot, warnings: string[]): void {
    this.snapshots.live = snap.live;
    this.exec('PRAGMA foreign_keys = ON');
    this.snapshots.seq = this.seq = snap.snapshotSeq;
    this.snapshotVerifiedBy = snap.verifiedBy;
    this.snapshots.loadedUnverified = snap.verifiedBy === 'integrity_check';
    const freshSegment = this.replayLog(warnings);
    // Appends go on in the newest segment; after a lost one, in a new one (every snapshot's position has a segment after it).
    if (freshSegment) this.log?.restart(this.seq + 1);
    else this.log?.openForAppend(this.seq + 1);
    this.migrate(this.opts.migrationsDir ?? defaultMigrationsDir());
    this.ftsMergeTimer?.reset(); // schema migrations are not writes: the merge cadence counts writes only
    if (this.log && (freeBytes(this.dir) ?? Infinity) < LOW_SPACE_BYTES) this.blockWrites(diskFullAtOpen(this.dir, false));
    for (const w of warnings) this.warn(w);
    this.refreshHealth();
  }

  /**
   * Replays the log after the snapshot; a log it cannot replay leaves the store read-only (one
   * error). True when its newest segment was empty or gone (appends start a new one).
   */
  private replayLog(warnings: string[]): boolean {
    const w = this.writes;
    w.ridHigh = w.maxRid(); // before replay: a memory the log deletes keeps its number out of reach
    const newest = this.newestSegment();
    const reader = this.log ?? new OpLog(this.dir, nodeFs, { create: false, codec: codecFor(this.cipher) });
    const from = this.snapshots.seq;
    const r = reader.read(from, { repair: !!this.log });
    const done = replayRecords(r, from, (ops) => this.applyOps(withoutMark(ops)));
    if (this.log) keepSetAside(this.dir, r, done.setAsideSeqs);
    for (const rec of r.records) w.ridHigh = Math.max(w.ridHigh, highestBoundRid(rec.ops));
    w.ridHigh = Math.max(w.ridHigh, w.maxRid());
    const lastSegment = r.lastSeq === from ? newest : 'present';
    const damage = logDamageWarning(this.dir, r, done, lastSegment);
    if (damage) {
      warnings.push(damage);
      this.damagedLog = true;
    }
    this.seq = done.seq;
    this.replayed = done.replayed;
    if (this.replayed) this.snapshots.changed();
    if (done.failure) this.becomeUnreplayable(done.failure, warnings);
    return r.lostAtEnd === 'maybe' || lastSegment === 'gone';
  }

  /**
   * Every snapshot starts a new log segment after its position, so one must be there; when it is
   * gone, changes made after the snapshot may be lost (how many cannot be told).
   */
  private newestSegment(): NewestSegment {
    const at = this.snapshots.seq;
    if (at === 0) return 'present';
    return OpLog.list(this.dir).some((seg) => seg.firstSeq > at) ? 'present' : 'gone';
  }

  private becomeUnreplayable(why: string, warnings: string[]): void {
    const kept = this.log ? quarantineUnreplayed(this.dir, this.seq) : undefined;
    this.readOnlyReason = unreplayableMessage(this.dir, why, this.seq, kept);
    this.unreplayable = true;
    warnings.push(this.readOnlyReason);
    this.log?.close();
    this.log = undefined;
    this.lock?.release();
    this.lock = undefined;
  }

  /** After a damaged log was read: a snapshot now, so the next open does not read the damage again. */
  private async snapshotAfterDamage(): Promise<void> {
    try {
      await this.snapshot();
    } catch (e) {
      this.warn(`the snapshot after reading a damaged operation log failed (the log still holds every change): ${errorMessage(e)}`);
    }
  }

  /** Problems worth telling people about, once per distinct problem (repeats are counted in the entry). */
  get warnings(): string[] {
    return this.warningList.list;
  }

  /** The store's condition (ok / disk_full / io_error / read_only) and what it means. */
  health(): StoreHealth {
    return this.healthTracker.get();
  }

  /** Calls `listener` on every health change; returns the unsubscribe function. */
  onHealthChange(listener: (health: StoreHealth) => void): () => void {
    return this.healthTracker.onChange(listener);
  }

  private refreshHealth(): void {
    this.healthTracker.derive(this.readOnlyReason, this.writeBlock, this.snapshots.problem);
  }

  private warn(message: string, key?: string): void {
    if (this.warningList.add(message, key)) this.opts.onWarning?.(message);
  }

  private migrate(dir: string): void {
    const host: MigrationHost = {
      get: (sql) => this.get(sql),
      writable: !!this.log,
      unreplayable: this.unreplayable,
      apply: (ops) => this.applyOps(ops),
      transaction: (ops) => this.transaction((tx) => ops.forEach((op) => tx.run(op.sql, op.params))),
      setVersion: (v) => (this.schemaVersion = v),
    };
    applyMigrations(host, loadMigrations(dir));
  }

  /**
   * Run `fn` as one transaction. Its writes are logged and fdatasync'ed before the
   * commit; when this returns, the transaction is durable. `fn` must be synchronous.
   */
  transaction<T>(fn: (tx: Tx) => T): T {
    return this.writes.transaction(fn);
  }

  /**
   * Calls `listener` after every durable commit that wrote something (the change feed and the
   * webhook outbox wake their readers with it); returns the unsubscribe function.
   */
  onCommit(listener: () => void): () => void {
    return this.writes.onCommit(listener);
  }

  private appendDurably(ops: Op[]): void {
    try {
      this.log!.append({ seq: this.seq + 1, ops });
    } catch (e) {
      if (!(e instanceof AppendError)) throw e;
      const err = storeIoError(this.dir, e.failure.error, 'this change');
      this.blockWrites(writeBlockFor(err, e.failure));
      throw err;
    }
  }

  private blockWrites(block: WriteBlock): void {
    this.writeBlock = block;
    this.refreshHealth();
    this.warn(block.detail, `write-block:${block.code}`);
    this.retry.schedule();
  }

  /**
   * Try now to re-establish a durable state after a disk error (the store also retries by
   * itself, backing off up to 30 s). Resolves true when writes work again.
   */
  recover(): Promise<boolean> {
    if (!this.writeBlock) return Promise.resolve(!this.readOnlyReason && !this.closed);
    if (this.closed) return Promise.resolve(false);
    return this.retry.runNow().then(() => !this.writeBlock && !this.readOnlyReason && !this.closed);
  }

  private async tryRecover(): Promise<boolean> {
    const block = this.writeBlock;
    if (!block || this.closed) return true; // nothing left to retry
    try {
      await this.snapshots.pending?.catch(() => undefined);
      if (block.needsWriter) {
        const state = { dir: this.dir, sfs: this.sfs, purpose: this.opts.purpose, seq: this.seq, codec: codecFor(this.cipher) };
        const w = becomeWriter(
          state,
          (ops) => {
            this.writes.ridHigh = Math.max(this.writes.ridHigh, highestBoundRid(ops));
            this.applyOps(withoutMark(ops));
          },
          (m) => this.warn(m),
        );
        if ('lockedBy' in w) {
          this.readOnlyReason = `${w.lockedBy} This store stays read-only here.`;
          this.writeBlock = undefined;
          this.refreshHealth();
          return true; // nothing left to retry
        }
        ({ log: this.log, lock: this.lock, seq: this.seq } = w);
        block.needsWriter = false;
      }
      if (this.readOnlyReason) return true; // nothing left to retry
      if (block.needsSnapshot && this.seq !== this.snapshots.seq) await this.snapshots.start({ verify: true, rotate: false });
      block.needsSnapshot = false;
      // The next record goes to a fresh segment: nothing that failed can precede it.
      this.log!.restart(this.seq + 1);
      this.writeBlock = undefined;
      this.refreshHealth();
      return true;
    } catch (e) {
      this.warn(`re-establishing a durable state failed: ${errorMessage(e)}`, `recovery:${(e as NodeJS.ErrnoException).code ?? 'other'}`);
      return false;
    }
  }

  /**
   * One bounded FTS4 merge step per table, each a logged transaction (so replay keeps the
   * same segments). Failure only costs speed: it is recorded as a warning.
   */
  mergeFullTextSegments(tables: string[] = ['memories_fts', 'memories_exact'], minSegmentsPerLevel = 4): void {
    mergeFullTextSegments(this.ftsHost(), tables, minSegmentsPerLevel);
  }

  /** See compactFullTextIndex in ftsMaintenance.ts: merges segments in idle time, yielding between steps. */
  compactFullTextIndex(opts: CompactOptions = {}): Promise<Record<string, number>> {
    return compactFullTextIndex(this.ftsHost(), opts);
  }

  private ftsHost(): FtsHost {
    return {
      transaction: (fn) => this.transaction(fn),
      count: (sql) => Number(this.get<{ n: number }>(sql)!.n),
      closed: () => this.closed,
      warn: (m, key) => this.warn(m, key),
    };
  }

  private assertWritable(): void {
    if (this.closed) throw new Error('the store is closed');
    if (this.readOnlyReason) throw new UserFacingError(this.readOnlyReason, 'store_read_only');
    if (this.writeBlock) throw new StoreIoError(this.writeBlock.detail, this.writeBlock.code);
  }

  /** Whether a snapshot is due under `policy` (never while writes are paused or snapshots back off). */
  snapshotDue(policy: SnapshotPolicy, now = Date.now()): boolean {
    return this.snapshots.due(policy, now);
  }

  /**
   * Take a snapshot: export (synchronous, consistent at the current seq), start a new
   * log segment, then write the file atomically while writes continue in the new segment.
   * A no-op while writes are paused by a disk error (recovery takes its own snapshot) and
   * during the back-off after a snapshot failed for lack of space.
   */
  snapshot(): Promise<void> {
    return this.snapshots.take();
  }

  /**
   * A compaction that leaves on disk no copy of text removed from the database (docs/secrets.md
   * "Scanning what is already stored"): VACUUM rewrites the database without its freed pages, a
   * verified snapshot replaces the current one (the previous is not kept), and the log segments
   * and quarantine copies (old snapshots, set-aside logs) that held the old text are removed.
   * Returns how many files were removed.
   */
  async compactSecurely(): Promise<number> {
    this.assertWritable();
    return this.snapshots.compactSecurely();
  }

  stats(): StoreStats {
    const snap = path.join(this.dir, SNAPSHOT);
    return {
      seq: this.seq,
      snapshotSeq: this.snapshots.seq,
      logBytes: this.log?.totalBytes() ?? 0,
      snapshotBytes: fs.existsSync(snap) ? fs.statSync(snap).size : 0,
      schemaVersion: this.schemaVersion,
      openMs: this.openMs,
      replayedRecords: this.replayed,
      snapshotVerifiedBy: this.snapshotVerifiedBy,
      lastSnapshotFrom: this.snapshots.lastFrom,
    };
  }

  /** The data key every file of this store is sealed with; undefined when the store is not encrypted. */
  get fileCipher(): FileCipher | undefined {
    return this.cipher;
  }

  /**
   * Encrypts the store under a new data key wrapped by `target.user`, or (undefined) writes it
   * plain again: crash-safely and verified (storeCrypt.ts). Synchronous, so no write comes in
   * between; writes go on in the new form afterwards.
   */
  switchEncryption(target: { user: UserKey; keys: UserKeyring } | undefined, probe?: RekeyProbe): EncryptionInfo {
    this.assertWritable();
    if (this.writes.inTx || this.snapshots.pending)
      throw new UserFacingError('The store is busy writing a snapshot; try again in a moment.', 'store_locked');
    const next = rekeyStore(
      { dir: this.dir, seq: this.seq, current: this.cipher, snapshotBytes: (seq) => this.snapshots.bytesAt(seq) },
      target,
      probe,
    );
    this.log!.close();
    this.cipher = next;
    this.snapshots.rewritten();
    this.log = new OpLog(this.dir, this.sfs, { codec: codecFor(next) });
    this.log.openForAppend(this.seq + 1);
    return encryptionInfo(this.dir);
  }

  /** Never writes in this process (opened read-only, or a log it cannot replay). A paused writer is not read-only. */
  get isReadOnly(): boolean {
    return !!this.readOnlyReason;
  }

  /** Snapshot (if anything changed) and release the lock. Never fails for a disk problem: the log has every write. */
  async close(opts: { snapshot?: boolean } = {}): Promise<void> {
    if (this.closed) return;
    try {
      if (opts.snapshot !== false && this.log) {
        await this.snapshots.pending?.catch(() => undefined);
        if (this.writeBlock) await this.recover();
        await this.snapshot().catch((e) =>
          this.warn(`snapshot on close failed (the log still holds every write): ${errorMessage(e)}`, 'close'),
        );
      }
    } finally {
      this.closed = true;
      this.ftsMergeTimer?.stop();
      this.retry.stop();
      this.freeStatements();
      this.log?.close();
      this.db.close();
      await this.snapshots.release();
      this.lock?.release();
    }
  }
}
