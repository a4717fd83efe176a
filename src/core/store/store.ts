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
 */
/* eslint-disable max-lines -- 528 lines since secure compaction and encryption at rest landed;
   splitting the class (open, snapshots, encryption) belongs to the codebase layout work. */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Database } from 'sql.js';
import { SqlDb } from './sqlDb';
import type { SnapshotPolicy, StoreOptions, StoreStats, Tx, WriteBlock } from './storeTypes';
import { AppendError, OpLog } from './opLog';
import type { Op, SqlValue } from './opCodec';
import { REPLAYABLE_MARK, highestBoundRid, planInsert, withoutMark } from './rowNumbers';
import { StoreLock } from './lock';
import { loadSqlJs } from './sqljs';
import { applyMigrations, defaultMigrationsDir, loadMigrations, type MigrationHost } from './migrations';
import { changeCounter, releaseStorage, reserveFor, type LiveFile } from './liveFile';
import { UserFacingError, errorMessage } from '../util/errors';
import {
  SNAPSHOT,
  loadSnapshot,
  removeOldCopies,
  discardSnapshotTemp,
  writeSnapshotFile,
  writeSnapshotTemp,
  type LoadedSnapshot,
  type SnapshotContent,
  type VerifiedBy,
} from './snapshotFiles';
import { LOW_SPACE_BYTES, freeBytes, isDiskFull, nodeFs, type StoreFs } from './storeFs';
import {
  HealthTracker,
  SNAPSHOT_DISK_FULL,
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
import { normalizeParams, stripSqlComments, NON_DETERMINISTIC } from './sqlText';
import type { FileCipher } from '../crypto/fileCipher';
import type { UserKey, UserKeyring } from '../crypto/userKeys';
import { codecFor } from './logCodec';
import { encryptionInfo, rekeyStore, storeCipherAtOpen, type EncryptionInfo, type RekeyProbe } from './storeCrypt';

export * from './storeTypes';
export type { StoreHealth, StoreHealthState } from './storeHealth';
export { StoreIoError } from './storeHealth';

const MAX_RECOVERY_DELAY_MS = 30_000;

function isDiskFullError(e: unknown): boolean {
  return isDiskFull(e) || (e instanceof StoreIoError && e.code === 'disk_full') || isDiskFull((e as StoreIoError)?.fsError);
}

export class Store extends SqlDb {
  private seq = 0;
  private snapshotSeq = 0;
  private snapshotting: Promise<void> | undefined;
  private oldestUnsnapshottedAt: number | undefined;
  private inTx = false;
  private closed = false;
  private readonly ftsMergeTimer: FtsMergeTimer | undefined;
  private readonly warningList = new WarningList();
  private readonly healthTracker = new HealthTracker();
  private openMs = 0;
  private replayed = 0;
  private schemaVersion = 0;
  private snapshotVerifiedBy: VerifiedBy = 'none';
  /** The database file's bytes in MEMFS, written out directly by snapshots (see liveFile.ts). */
  private live: LiveFile | undefined;
  private lastSnapshotFrom: StoreStats['lastSnapshotFrom'];
  /** Why this process never writes (opened read-only, a log it cannot replay); undefined for a writer. */
  private readOnlyReason: string | undefined;
  /** The log could not be replayed: read-only for good, migrations applied in memory only. */
  private unreplayable = false;
  private writeBlock: WriteBlock | undefined;
  /** Snapshots fail (disk full) while writes to the log still work; retried after snapshotRetryAt. */
  private snapshotProblem: string | undefined;
  private snapshotRetryAt = 0;
  private readonly retry: RetryScheduler;
  /** The loaded snapshot matched no checksum: the next snapshot replaces it and never makes it snapshot.prev. */
  private loadedUnverified = false;
  private readonly sfs: StoreFs;
  /** The highest memory row number given out or seen; new memories get the next one (rowNumbers.ts). */
  private ridHigh = 0;
  /** The open found a damaged log: the writer takes a snapshot at once, so the repaired state is durable. */
  private damagedLog = false;
  private readonly commitListeners = new Set<() => void>();
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
    this.live = snap.live;
    this.exec('PRAGMA foreign_keys = ON');
    this.snapshotSeq = this.seq = snap.snapshotSeq;
    this.snapshotVerifiedBy = snap.verifiedBy;
    this.loadedUnverified = snap.verifiedBy === 'integrity_check';
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
    this.ridHigh = this.maxRid(); // before replay: a memory the log deletes keeps its number out of reach
    const newest = this.newestSegment();
    const reader = this.log ?? new OpLog(this.dir, nodeFs, { create: false, codec: codecFor(this.cipher) });
    const r = reader.read(this.snapshotSeq, { repair: !!this.log });
    const done = replayRecords(r, this.snapshotSeq, (ops) => this.applyOps(withoutMark(ops)));
    if (this.log) keepSetAside(this.dir, r, done.setAsideSeqs);
    for (const rec of r.records) this.ridHigh = Math.max(this.ridHigh, highestBoundRid(rec.ops));
    this.ridHigh = Math.max(this.ridHigh, this.maxRid());
    const lastSegment = r.lastSeq === this.snapshotSeq ? newest : 'present';
    const damage = logDamageWarning(this.dir, r, done, lastSegment);
    if (damage) {
      warnings.push(damage);
      this.damagedLog = true;
    }
    this.seq = done.seq;
    this.replayed = done.replayed;
    if (this.replayed) this.oldestUnsnapshottedAt = Date.now();
    if (done.failure) this.becomeUnreplayable(done.failure, warnings);
    return r.lostAtEnd === 'maybe' || lastSegment === 'gone';
  }

  /**
   * Every snapshot starts a new log segment after its position, so one must be there; when it is
   * gone, changes made after the snapshot may be lost (how many cannot be told).
   */
  private newestSegment(): NewestSegment {
    if (this.snapshotSeq === 0) return 'present';
    return OpLog.list(this.dir).some((seg) => seg.firstSeq > this.snapshotSeq) ? 'present' : 'gone';
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
    this.healthTracker.derive(this.readOnlyReason, this.writeBlock, this.snapshotProblem);
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
    this.assertWritable();
    if (this.inTx) throw new Error('nested transactions are not supported');
    const ops: Op[] = [];
    let lastChanges = 0;
    let replayable = true;
    const ridHigh = this.ridHigh;
    const tx: Tx = {
      run: (sql, params = []) => {
        if (NON_DETERMINISTIC.test(stripSqlComments(sql))) {
          throw new Error(`non-deterministic SQL cannot be logged for replay; bind the value from JS instead: ${sql.slice(0, 120)}`);
        }
        const op = this.runLogged(sql, normalizeParams(params));
        lastChanges = op.changes;
        if (op.unbound) replayable = false;
        ops.push({ sql: op.sql, params: op.params });
      },
      changes: () => lastChanges,
      get: (sql, params) => this.get(sql, params),
      all: (sql, params) => this.all(sql, params),
    };
    this.inTx = true;
    this.db.exec('BEGIN');
    let result: T;
    try {
      result = fn(tx);
      if (result instanceof Promise) {
        throw new Error('transaction bodies must be synchronous (no awaits inside a transaction)');
      }
      // Durable first: if the log write fails, the transaction is rolled back.
      if (ops.length) this.appendDurably(replayable ? [{ sql: REPLAYABLE_MARK, params: [] }, ...ops] : ops);
    } catch (e) {
      this.db.exec('ROLLBACK');
      this.inTx = false;
      this.ridHigh = ridHigh;
      throw e;
    }
    this.db.exec('COMMIT');
    this.inTx = false;
    if (ops.length) {
      this.seq++;
      this.oldestUnsnapshottedAt ??= Date.now();
      this.ftsMergeTimer?.countCommit();
      this.notifyCommit();
    }
    return result;
  }

  /**
   * Calls `listener` after every durable commit that wrote something (the change feed and the
   * webhook outbox wake their readers with it); returns the unsubscribe function.
   */
  onCommit(listener: () => void): () => void {
    this.commitListeners.add(listener);
    return () => this.commitListeners.delete(listener);
  }

  private notifyCommit(): void {
    for (const l of [...this.commitListeners]) {
      try {
        l();
      } catch (e) {
        this.warn(`a listener of committed changes failed: ${errorMessage(e)}`, 'commit-listener');
      }
    }
  }

  /**
   * Runs one statement of a transaction and returns what to log: an insert into memories runs
   * with its row number bound (rowNumbers.ts), so a replay gives the row the same number.
   */
  private runLogged(sql: string, params: SqlValue[]): { sql: string; params: SqlValue[]; changes: number; unbound: boolean } {
    const plan = planInsert(sql, params, () => this.ridHigh + 1);
    const run = plan.kind === 'bound' ? plan : { sql, params };
    this.execOp(run.sql, run.params);
    const changes = this.db.getRowsModified();
    if (plan.kind !== 'none' && changes > 0)
      this.ridHigh = Math.max(this.ridHigh, plan.kind === 'bound' && plan.rid ? plan.rid : this.lastRowId());
    return { ...run, changes, unbound: plan.kind === 'unbound' && changes > 0 };
  }

  private lastRowId(): number {
    return Number(this.get<{ n: number }>('SELECT last_insert_rowid() AS n')!.n);
  }

  /** The highest memory row number in the database (0 before the memories table exists). */
  private maxRid(): number {
    try {
      return Number(this.get<{ n: number | null }>('SELECT max(rid) AS n FROM memories')?.n ?? 0);
    } catch {
      return 0;
    }
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
      await this.snapshotting?.catch(() => undefined);
      if (block.needsWriter) {
        const state = { dir: this.dir, sfs: this.sfs, purpose: this.opts.purpose, seq: this.seq, codec: codecFor(this.cipher) };
        const w = becomeWriter(
          state,
          (ops) => {
            this.ridHigh = Math.max(this.ridHigh, highestBoundRid(ops));
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
      if (block.needsSnapshot && this.seq !== this.snapshotSeq) await this.startSnapshot({ verify: true, rotate: false });
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
    if (!this.log || this.writeBlock || this.seq === this.snapshotSeq || now < this.snapshotRetryAt) return false;
    return (
      this.log.activeSegmentBytes >= policy.logBytes ||
      (this.oldestUnsnapshottedAt !== undefined && now - this.oldestUnsnapshottedAt >= policy.maxAgeMs)
    );
  }

  /**
   * Take a snapshot: export (synchronous, consistent at the current seq), start a new
   * log segment, then write the file atomically while writes continue in the new segment.
   * A no-op while writes are paused by a disk error (recovery takes its own snapshot) and
   * during the back-off after a snapshot failed for lack of space.
   */
  snapshot(): Promise<void> {
    if (!this.log || this.writeBlock || Date.now() < this.snapshotRetryAt) return Promise.resolve();
    if (this.snapshotting) return this.snapshotting;
    if (this.seq === this.snapshotSeq && fs.existsSync(path.join(this.dir, SNAPSHOT))) return Promise.resolve();
    if (this.inTx) throw new Error('cannot snapshot inside a transaction');
    return this.startSnapshot({ verify: false, rotate: true });
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
    if (this.inTx) throw new Error('cannot compact inside a transaction');
    await this.snapshotting?.catch(() => undefined);
    const size = this.fileSize();
    this.db.run('VACUUM');
    // A VACUUM that shrinks the file makes MEMFS copy it into a new array: the live view is then
    // stale, and snapshots copy the database until the store is opened again (nothing is wrong: no warning).
    if (this.fileSize() < size) this.live = undefined;
    await this.startSnapshot({ verify: true, rotate: true, keepPrevious: false });
    return this.log!.removeCoveredSegments(this.snapshotSeq) + removeOldCopies(this.dir);
  }

  private startSnapshot(opts: { verify: boolean; rotate: boolean; keepPrevious?: boolean }): Promise<void> {
    const seq = this.seq;
    const counter = this.live ? changeCounter(this.live.storage) : 0;
    // The watermark lives inside the snapshot; this write is not logged on purpose.
    this.db.run("INSERT OR REPLACE INTO store_meta (key, value) VALUES ('log_seq', ?)", [String(seq)]);
    let content: SnapshotContent;
    try {
      const fromLive = this.liveFileUsable(counter);
      content = fromLive
        ? writeSnapshotTemp(this.dir, this.sfs, this.live!.storage, this.fileSize(), this.cipher)
        : { bytes: this.cipher ? this.cipher.sealFile('snapshot', this.db.export()) : this.db.export() };
      this.lastSnapshotFrom = 'bytes' in content ? 'export' : 'live-file';
      if (opts.rotate) this.rotateForSnapshot(seq, content);
    } catch (e) {
      return Promise.reject(this.snapshotFailed(e));
    }
    const startedAt = this.oldestUnsnapshottedAt;
    this.oldestUnsnapshottedAt = undefined;
    this.snapshotting = (async () => {
      try {
        await writeSnapshotFile(this.dir, this.sfs, content, {
          keepPrevious: opts.keepPrevious !== false && !this.loadedUnverified,
          verify: opts.verify,
        });
        this.loadedUnverified = false;
        const prevSeq = this.snapshotSeq;
        this.snapshotSeq = seq;
        this.snapshotProblem = undefined;
        this.snapshotRetryAt = 0;
        this.refreshHealth();
        // Keep the segments the previous snapshot still needs, in case the newest is damaged.
        this.log?.removeCoveredSegments(prevSeq);
      } catch (e) {
        this.oldestUnsnapshottedAt = startedAt ?? Date.now();
        throw this.snapshotFailed(e);
      } finally {
        this.snapshotting = undefined;
      }
    })();
    return this.snapshotting;
  }

  /** Writes continue in a new segment while the snapshot file is written; if it cannot be started, writes pause. */
  private rotateForSnapshot(seq: number, content: SnapshotContent): void {
    try {
      this.log!.rotate(seq + 1);
    } catch (e) {
      discardSnapshotTemp(this.dir, content);
      const err = storeIoError(this.dir, e, 'a new log segment');
      this.blockWrites({ code: err.code as WriteBlock['code'], detail: err.message, needsSnapshot: false, needsWriter: false });
      throw err;
    }
  }

  /** A failed snapshot costs nothing (the log has every write); for lack of space, retries back off. */
  private snapshotFailed(e: unknown): Error {
    if (!isDiskFullError(e)) {
      this.warn(`snapshot failed (the operation log still holds every write): ${errorMessage(e)}`, `snapshot:${errorMessage(e)}`);
      return e instanceof Error ? e : new Error(errorMessage(e));
    }
    this.snapshotProblem = SNAPSHOT_DISK_FULL;
    this.snapshotRetryAt = Date.now() + 60_000;
    this.warn(SNAPSHOT_DISK_FULL, 'snapshot:disk_full');
    this.refreshHealth();
    return storeIoError(this.dir, e, 'a snapshot');
  }

  /**
   * Whether the live file view still is the database file: it fits its storage, and the
   * change counter moved in it with the write just made (`before`: the counter before it).
   */
  private liveFileUsable(before: number): boolean {
    const ok = !!this.live && this.fileSize() <= this.live.storage.length && changeCounter(this.live.storage) !== before;
    if (this.live && !ok) {
      this.live = undefined;
      this.warn(
        'snapshots now copy the whole database (its in-memory file outgrew the space reserved for it); reopening the store restores the direct write',
      );
    }
    return ok;
  }

  stats(): StoreStats {
    const snap = path.join(this.dir, SNAPSHOT);
    return {
      seq: this.seq,
      snapshotSeq: this.snapshotSeq,
      logBytes: this.log?.totalBytes() ?? 0,
      snapshotBytes: fs.existsSync(snap) ? fs.statSync(snap).size : 0,
      schemaVersion: this.schemaVersion,
      openMs: this.openMs,
      replayedRecords: this.replayed,
      snapshotVerifiedBy: this.snapshotVerifiedBy,
      lastSnapshotFrom: this.lastSnapshotFrom,
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
    if (this.inTx || this.snapshotting)
      throw new UserFacingError('The store is busy writing a snapshot; try again in a moment.', 'store_locked');
    const next = rekeyStore(
      { dir: this.dir, seq: this.seq, current: this.cipher, snapshotBytes: (seq) => this.snapshotBytes(seq) },
      target,
      probe,
    );
    this.log!.close();
    [this.cipher, this.snapshotSeq, this.oldestUnsnapshottedAt, this.loadedUnverified] = [next, this.seq, undefined, false];
    this.log = new OpLog(this.dir, this.sfs, { codec: codecFor(next) });
    this.log.openForAppend(this.seq + 1);
    return encryptionInfo(this.dir);
  }

  /** The database's bytes with the snapshot watermark at `seq`: the live file when it is usable, else an export. */
  private snapshotBytes(seq: number): Uint8Array {
    const counter = this.live ? changeCounter(this.live.storage) : 0;
    this.db.run("INSERT OR REPLACE INTO store_meta (key, value) VALUES ('log_seq', ?)", [String(seq)]);
    return this.liveFileUsable(counter) ? this.live!.storage.subarray(0, this.fileSize()) : this.db.export();
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
        await this.snapshotting?.catch(() => undefined);
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
      const live = this.live;
      this.live = undefined;
      if (live) await releaseStorage(live).catch(() => undefined);
      this.lock?.release();
    }
  }
}
