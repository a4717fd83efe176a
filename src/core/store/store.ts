/**
 * The durable embedded store: sql.js in memory, made durable by an operation log
 * (one fdatasync'ed record per committed transaction) and periodic atomic snapshots.
 *
 * Contract (ARCHITECTURE.md "Storage"): a transaction is acknowledged only after its log
 * record is on disk; opening = load the newest valid snapshot + replay the log after
 * its watermark; a torn or corrupt tail is dropped with a warning and kept in
 * quarantine/. Transactions are synchronous functions: no await (so no LLM or
 * embedding call) can happen inside one.
 */
import * as fs from 'node:fs';
import * as zlib from 'node:zlib';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Database, Statement } from 'sql.js';
import { OpLog } from './opLog';
import type { Op, SqlValue } from './opCodec';
import { StoreLock } from './lock';
import { loadSqlJs } from './sqljs';
import { defaultMigrationsDir, loadMigrations, type Migration } from './migrations';
import { fsyncDir, preserveBytes } from './fsutil';
import { changeCounter, openOnStorage, readIntoReserve, releaseStorage, reserveFor, type LiveFile } from './liveFile';
import { UserFacingError, errorMessage } from '../util/errors';

export type Row = Record<string, SqlValue>;
export type Params = SqlValue[];

export interface StoreOptions {
  dir: string;
  migrationsDir?: string;
  sqlWasmPath?: string;
  /** Who holds the lock, for the message a second process sees. */
  purpose?: string;
  /** Called for recoverable problems (dropped log tail, fallback snapshot). */
  onWarning?: (message: string) => void;
  /** Read-only: no lock, no writes, no snapshots (a second window on the same store). */
  readOnly?: boolean;
  /**
   * FTS4 tables whose index segments are merged in the background every `every` write
   * transactions (default: memories_fts and memories_exact every 64; false disables). Each committed write adds
   * a segment and FTS4 only merges 16 at a time, so a store that takes single writes keeps
   * ~40 segments, and every term lookup seeks all of them: the near-duplicate check was 18×
   * slower at 40 segments than at 1.
   */
  ftsMerge?: { tables: string[]; every: number } | false;
  /**
   * Capacity reserved for the in-memory database file, given its size (default reserveFor in
   * liveFile.ts: 2× and at least +256 MiB; reserved address space costs no memory until used).
   */
  fileReserve?: (size: number) => number;
}

/** FTS4 incremental merge steps: up to 300 pages of work, merging a level that has ≥ N segments. */
const FTS_MERGE_PAGES = 300;

export interface SnapshotPolicy {
  /** Snapshot when the active log segment is at least this big. */
  logBytes: number;
  /** …or when the oldest unsnapshotted write is older than this. */
  maxAgeMs: number;
}

export interface StoreStats {
  seq: number;
  snapshotSeq: number;
  logBytes: number;
  snapshotBytes: number;
  schemaVersion: number;
  openMs: number;
  replayedRecords: number;
  /**
   * How the snapshot was verified on open: its checksum sidecar (fast), SQLite's
   * quick_check (no or stale sidecar: O(size)), or there was none.
   */
  snapshotVerifiedBy: 'checksum' | 'quick_check' | 'none';
  /** How the last snapshot got the database's bytes: written from the live file, or a full export() copy. */
  lastSnapshotFrom: 'live-file' | 'export' | undefined;
}

const SNAPSHOT = 'snapshot.sqlite';
const SNAPSHOT_PREV = 'snapshot.prev.sqlite';
/** Sidecar of a snapshot: `crc32 <hex> <byte length>`, written and renamed with it. */
const CHECKSUM_SUFFIX = '.crc32';

function checksumLine(bytes: Uint8Array): string {
  return `crc32 ${zlib.crc32(bytes).toString(16).padStart(8, '0')} ${bytes.length}\n`;
}
const SQLITE_HEADER = Buffer.from('SQLite format 3\0', 'latin1');
/** Non-deterministic SQL cannot be replayed exactly: values must be bound from JS. */
const NON_DETERMINISTIC = /\b(current_timestamp|current_date|current_time|random\s*\(|randomblob\s*\(|changes\s*\(\s*\))|\b(datetime|date|time|julianday|unixepoch|strftime)\s*\([^)]*'now'/i;

async function writeDurably(file: string, data: Uint8Array | string): Promise<void> {
  const fh = await fs.promises.open(file, 'w');
  try {
    await fh.writeFile(data);
    await fh.sync();
  } finally {
    await fh.close();
  }
}

function stripSqlComments(sql: string): string {
  return sql.replace(/--[^\n]*/g, '').replace(/\/\*[\s\S]*?\*\//g, '');
}

/** What a snapshot writes: an exported copy, or a temp file already written from the live file (to fsync). */
type SnapshotContent = { bytes: Uint8Array } | { fd: number; checksum: string };

export class StoreCorruptError extends UserFacingError {
  constructor(message: string) {
    super(message, 'store_corrupt');
  }
}

export class SchemaTooNewError extends UserFacingError {
  constructor(found: number, known: number) {
    super(
      `This memory store uses schema version ${found}, written by a newer version of Agent Memory; ` +
        `this version knows schema versions up to ${known}. Update the extension to open it.`,
      'schema_too_new',
    );
  }
}

/** The write handle passed to a transaction body. */
export interface Tx {
  run(sql: string, params?: Params): void;
  /** Rows changed by the last run(). */
  changes(): number;
  get<T = Row>(sql: string, params?: Params): T | undefined;
  all<T = Row>(sql: string, params?: Params): T[];
}

export class Store {
  private readonly statements = new Map<string, Statement>();
  private seq = 0;
  private snapshotSeq = 0;
  private snapshotting: Promise<void> | undefined;
  private oldestUnsnapshottedAt: number | undefined;
  private inTx = false;
  private closed = false;
  private commitsSinceFtsMerge = 0;
  private ftsMergeTimer: NodeJS.Immediate | undefined;
  readonly warnings: string[] = [];
  private openMs = 0;
  private replayed = 0;
  private schemaVersion = 0;
  private snapshotVerifiedBy: StoreStats['snapshotVerifiedBy'] = 'none';
  /** The database file's bytes in MEMFS, written out directly by snapshots (see liveFile.ts). */
  private live: LiveFile | undefined;
  private lastSnapshotFrom: StoreStats['lastSnapshotFrom'];

  private constructor(
    private readonly db: Database,
    private readonly log: OpLog | undefined,
    private readonly lock: StoreLock | undefined,
    readonly dir: string,
    private readonly opts: StoreOptions,
  ) {}

  static async open(opts: StoreOptions): Promise<Store> {
    const t0 = performance.now();
    const dir = path.resolve(opts.dir);
    fs.mkdirSync(dir, { recursive: true });
    const lock = opts.readOnly ? undefined : StoreLock.acquire(dir, opts.purpose);
    try {
      const SQL = await loadSqlJs(opts.sqlWasmPath);
      const warnings: string[] = [];
      if (lock?.tookOverStale) {
        warnings.push(`took over a stale lock left by pid ${lock.tookOverStale.pid} (it is no longer running)`);
      }
      const { db, live, snapshotSeq, verifiedBy } = Store.loadSnapshot(SQL, dir, warnings, opts.fileReserve ?? reserveFor);
      const log = opts.readOnly ? undefined : new OpLog(dir);
      const store = new Store(db, log, lock, dir, opts);
      store.live = live;
      store.exec('PRAGMA foreign_keys = ON');
      store.snapshotSeq = snapshotSeq;
      store.snapshotVerifiedBy = verifiedBy;
      store.seq = snapshotSeq;
      const reader = log ?? new OpLog(dir);
      const { records, lastSeq, warnings: logWarnings } = opts.readOnly ? Store.readOnlyLog(dir, snapshotSeq) : reader.read(snapshotSeq);
      warnings.push(...logWarnings);
      if (records.length && records[0]!.seq !== snapshotSeq + 1) {
        warnings.push(
          `the log starts at record ${records[0]!.seq} but the snapshot ends at ${snapshotSeq}: ` +
            `records ${snapshotSeq + 1}–${records[0]!.seq - 1} are missing`,
        );
      }
      for (const rec of records) {
        try {
          store.applyOps(rec.ops);
        } catch (e) {
          warnings.push(`could not replay log record ${rec.seq}: ${errorMessage(e)}`);
        }
        store.replayed++;
      }
      store.seq = Math.max(snapshotSeq, lastSeq);
      if (records.length) store.oldestUnsnapshottedAt = Date.now();
      log?.openForAppend(store.seq + 1);
      store.migrate(opts.migrationsDir ?? defaultMigrationsDir());
      store.commitsSinceFtsMerge = 0; // schema migrations are not writes: the merge cadence counts writes only
      for (const w of warnings) store.warn(w);
      store.openMs = performance.now() - t0;
      return store;
    } catch (e) {
      lock?.release();
      throw e;
    }
  }

  private static readOnlyLog(dir: string, afterSeq: number) {
    // Read-only openers must not cut or quarantine anything: read a copy of the segments.
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'am-ro-'));
    try {
      const src = path.join(dir, 'log');
      fs.mkdirSync(path.join(tmp, 'log'));
      if (fs.existsSync(src)) for (const f of fs.readdirSync(src)) fs.copyFileSync(path.join(src, f), path.join(tmp, 'log', f));
      return new OpLog(tmp).read(afterSeq);
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  }

  /** Newest valid snapshot; falls back to the previous one, then to an empty database. */
  private static loadSnapshot(
    SQL: Awaited<ReturnType<typeof loadSqlJs>>,
    dir: string,
    warnings: string[],
    reserve: (size: number) => number,
  ): { db: Database; live: LiveFile | undefined; snapshotSeq: number; verifiedBy: StoreStats['snapshotVerifiedBy'] } {
    for (const name of [SNAPSHOT, SNAPSHOT_PREV]) {
      const file = path.join(dir, name);
      if (!fs.existsSync(file)) continue;
      // Read straight into the storage the database will live in (no second copy; see liveFile.ts).
      const { storage, size } = readIntoReserve(file, reserve);
      const bytes = Buffer.from(storage.buffer, storage.byteOffset, size);
      try {
        if (bytes.length < 100 || !bytes.subarray(0, 16).equals(SQLITE_HEADER)) throw new Error('not an SQLite file');
        const { db, live } = openOnStorage(SQL, storage, size);
        // The checksum written with the snapshot proves these are the bytes that were
        // exported (0.4 s at 400 MB); without it (a crash between the two renames, an older
        // store) SQLite walks every page (3 s at 400 MB).
        let sidecar: string | undefined;
        try {
          sidecar = fs.readFileSync(file + CHECKSUM_SUFFIX, 'utf8');
        } catch {
          sidecar = undefined;
        }
        const verifiedBy = sidecar === checksumLine(bytes) ? 'checksum' : 'quick_check';
        if (verifiedBy === 'quick_check') {
          const ok = db.exec('PRAGMA quick_check(1)')[0]?.values[0]?.[0];
          if (ok !== 'ok') throw new Error(`quick_check: ${String(ok)}`);
        }
        let seq = 0;
        try {
          const r = db.exec("SELECT value FROM store_meta WHERE key = 'log_seq'");
          seq = Number(r[0]?.values[0]?.[0] ?? 0);
        } catch {
          seq = 0;
        }
        if (name === SNAPSHOT_PREV) warnings.push(`used the previous snapshot because ${SNAPSHOT} was missing or damaged`);
        return { db, live, snapshotSeq: seq, verifiedBy };
      } catch (e) {
        const kept = preserveBytes(dir, name, bytes);
        fs.unlinkSync(file);
        warnings.push(`snapshot ${name} is damaged (${errorMessage(e)}); kept in ${path.relative(dir, kept)}`);
      }
    }
    // A new database: its first page (written by setting user_version) moved into reserved storage.
    const blank = new SQL.Database();
    let first: Uint8Array;
    try {
      blank.exec('PRAGMA user_version = 1; PRAGMA user_version = 0');
      first = blank.export();
    } finally {
      blank.close();
    }
    const storage = new Uint8Array(Math.max(first.length, reserve(first.length)));
    storage.set(first);
    const { db, live } = openOnStorage(SQL, storage, first.length);
    return { db, live, snapshotSeq: 0, verifiedBy: 'none' };
  }

  private warn(message: string): void {
    this.warnings.push(message);
    this.opts.onWarning?.(message);
  }

  private exec(sql: string): void {
    this.db.exec(sql);
  }

  private stmt(sql: string): Statement {
    let s = this.statements.get(sql);
    if (!s) {
      s = this.db.prepare(sql);
      this.statements.set(sql, s);
    }
    return s;
  }

  private applyOps(ops: Op[]): void {
    this.db.exec('BEGIN');
    try {
      for (const op of ops) this.execOp(op.sql, op.params);
      this.db.exec('COMMIT');
    } catch (e) {
      this.db.exec('ROLLBACK');
      throw e;
    }
  }

  private execOp(sql: string, params: Params): void {
    if (params.length === 0) {
      this.db.exec(sql);
      return;
    }
    const s = this.stmt(sql);
    try {
      s.bind(params);
      s.step();
    } finally {
      s.reset();
    }
  }

  private migrate(dir: string): void {
    const migrations = loadMigrations(dir);
    const known = migrations.length;
    const hasTable = this.get<{ n: number }>(
      "SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'",
    )!.n;
    const current = hasTable
      ? Number(this.get<{ v: number | null }>('SELECT max(version) AS v FROM schema_migrations')?.v ?? 0)
      : 0;
    if (current > known) throw new SchemaTooNewError(current, known);
    this.schemaVersion = current;
    const pending: Migration[] = migrations.filter((m) => m.version > current);
    if (!pending.length) return;
    if (this.opts.readOnly) {
      throw new UserFacingError(
        `This memory store needs schema migration ${pending[0]!.version}, which a read-only opener cannot apply.`,
        'store_needs_migration',
      );
    }
    for (const m of pending) {
      this.transaction((tx) => {
        if (!hasTable && m.version === 1) {
          tx.run('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)');
        }
        tx.run(m.sql);
        tx.run('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)', [m.version, m.name, new Date().toISOString()]);
      });
      this.schemaVersion = m.version;
    }
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
    const tx: Tx = {
      run: (sql, params = []) => {
        if (NON_DETERMINISTIC.test(stripSqlComments(sql))) {
          throw new Error(`non-deterministic SQL cannot be logged for replay; bind the value from JS instead: ${sql.slice(0, 120)}`);
        }
        this.execOp(sql, params);
        lastChanges = this.db.getRowsModified();
        ops.push({ sql, params: params.slice() });
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
      if (ops.length) {
        // Durable first: if the log write fails, the transaction is rolled back.
        this.log!.append({ seq: this.seq + 1, ops });
      }
    } catch (e) {
      this.db.exec('ROLLBACK');
      this.inTx = false;
      throw e;
    }
    this.db.exec('COMMIT');
    this.inTx = false;
    if (ops.length) {
      this.seq++;
      this.oldestUnsnapshottedAt ??= Date.now();
      this.countCommitForFtsMerge();
    }
    return result;
  }

  get<T = Row>(sql: string, params: Params = []): T | undefined {
    const s = this.stmt(sql);
    try {
      if (params.length) s.bind(params);
      return s.step() ? (s.getAsObject() as T) : undefined;
    } finally {
      s.reset();
    }
  }

  all<T = Row>(sql: string, params: Params = []): T[] {
    const s = this.stmt(sql);
    const out: T[] = [];
    try {
      if (params.length) s.bind(params);
      while (s.step()) out.push(s.getAsObject() as T);
    } finally {
      s.reset();
    }
    return out;
  }

  private countCommitForFtsMerge(): void {
    const merge = this.opts.ftsMerge ?? { tables: ['memories_fts', 'memories_exact'], every: 64 };
    if (!merge || this.ftsMergeTimer || ++this.commitsSinceFtsMerge < merge.every) return;
    // After the caller's write has returned: merging is maintenance, not part of any write.
    this.ftsMergeTimer = setImmediate(() => {
      this.ftsMergeTimer = undefined;
      if (this.closed) return;
      this.commitsSinceFtsMerge = 0;
      this.mergeFullTextSegments(merge.tables);
    });
    this.ftsMergeTimer.unref?.();
  }

  /**
   * One bounded FTS4 merge step per table, each a logged transaction (so replay keeps the
   * same segments). Failure only costs speed: it is recorded as a warning.
   */
  mergeFullTextSegments(tables: string[] = ['memories_fts'], minSegmentsPerLevel = 4): void {
    if (!Number.isInteger(minSegmentsPerLevel) || minSegmentsPerLevel < 2) throw new RangeError('minSegmentsPerLevel must be an integer ≥ 2');
    for (const t of tables) {
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(t)) throw new Error(`not a table name: ${t}`);
      try {
        this.transaction((tx) => tx.run(`INSERT INTO ${t}(${t}) VALUES('merge=${FTS_MERGE_PAGES},${minSegmentsPerLevel}')`));
      } catch (e) {
        this.warn(`merging the segments of the full-text index ${t} failed: ${errorMessage(e)}`);
      }
    }
  }

  /**
   * Merge full-text segments in bounded steps, yielding to the event loop between them,
   * until at most `maxSegments` remain per table or steps stop making progress (then each
   * level holds one segment: levels are never merged with each other). For idle time
   * (after a bulk import, before a snapshot). Returns the segments left per table.
   */
  async compactFullTextIndex(opts: { tables?: string[]; maxSegments?: number; maxSteps?: number } = {}): Promise<Record<string, number>> {
    const tables = opts.tables ?? ['memories_fts', 'memories_exact'];
    const left: Record<string, number> = {};
    for (const t of tables) {
      const count = () => Number(this.get<{ n: number }>(`SELECT count(*) AS n FROM ${t}_segdir`)!.n);
      let before = count();
      for (let step = 0; step < (opts.maxSteps ?? 10_000) && before > (opts.maxSegments ?? 4); step++) {
        await new Promise((r) => setImmediate(r));
        if (this.closed) break;
        this.mergeFullTextSegments([t], 2);
        const after = count();
        // A step may only rewrite part of a level: progress shows as fewer segments within a few steps.
        if (after >= before && step % 8 === 7) break;
        before = Math.min(before, after);
      }
      left[t] = this.closed ? before : count();
    }
    return left;
  }

  /** Register a JS function usable from SQL (e.g. bm25). Connection-level, not logged. */
  registerFunction(name: string, fn: (...args: any[]) => SqlValue): void {
    this.db.create_function(name, fn);
  }

  private assertWritable(): void {
    if (this.closed) throw new Error('the store is closed');
    if (this.opts.readOnly) throw new UserFacingError('This memory store is open read-only (another window owns it).', 'store_read_only');
  }

  /** Whether a snapshot is due under `policy`. */
  snapshotDue(policy: SnapshotPolicy, now = Date.now()): boolean {
    if (this.opts.readOnly || this.seq === this.snapshotSeq) return false;
    return (
      this.log!.activeSegmentBytes >= policy.logBytes ||
      (this.oldestUnsnapshottedAt !== undefined && now - this.oldestUnsnapshottedAt >= policy.maxAgeMs)
    );
  }

  /**
   * Take a snapshot: export (synchronous, consistent at the current seq), start a new
   * log segment, then write the file atomically while writes continue in the new segment.
   */
  snapshot(): Promise<void> {
    if (this.opts.readOnly) return Promise.resolve();
    if (this.snapshotting) return this.snapshotting;
    if (this.seq === this.snapshotSeq && fs.existsSync(path.join(this.dir, SNAPSHOT))) return Promise.resolve();
    if (this.inTx) throw new Error('cannot snapshot inside a transaction');
    const seq = this.seq;
    const counter = this.live ? changeCounter(this.live.storage) : 0;
    // The watermark lives inside the snapshot; this write is not logged on purpose.
    this.db.run("INSERT OR REPLACE INTO store_meta (key, value) VALUES ('log_seq', ?)", [String(seq)]);
    let content: SnapshotContent;
    try {
      content = this.liveFileUsable(counter) ? this.writeLiveSnapshotTemp() : { bytes: this.db.export() };
      this.lastSnapshotFrom = 'bytes' in content ? 'export' : 'live-file';
    } catch (e) {
      return Promise.reject(e);
    }
    this.log!.rotate(seq + 1);
    const startedAt = this.oldestUnsnapshottedAt;
    this.oldestUnsnapshottedAt = undefined;
    this.snapshotting = (async () => {
      try {
        await this.writeSnapshotFile(content);
        const prevSeq = this.snapshotSeq;
        this.snapshotSeq = seq;
        // Keep the segments the previous snapshot still needs, in case the newest is damaged.
        this.log!.removeCoveredSegments(prevSeq);
      } catch (e) {
        this.oldestUnsnapshottedAt = startedAt ?? Date.now();
        throw e;
      } finally {
        this.snapshotting = undefined;
      }
    })();
    return this.snapshotting;
  }

  /**
   * Whether the live file view still is the database file: it fits its storage, and the
   * change counter moved in it with the write just made (`before`: the counter before it).
   */
  private liveFileUsable(before: number): boolean {
    if (!this.live) return false;
    const size = this.fileSize();
    const ok = size <= this.live.storage.length && changeCounter(this.live.storage) !== before;
    if (!ok) {
      this.live = undefined;
      this.warn('snapshots now copy the whole database (its in-memory file outgrew the space reserved for it); reopening the store restores the direct write');
    }
    return ok;
  }

  /** page_count × page_size: the size of the database file. */
  private fileSize(): number {
    return Number(this.get<{ n: number }>('SELECT page_count * page_size AS n FROM pragma_page_count(), pragma_page_size()')!.n);
  }

  /**
   * Writes the live database file to the temp snapshot synchronously (so no transaction can
   * change it meanwhile: the bytes are consistent at this seq) into the OS's cache; the
   * fsync and renames happen asynchronously. No copy of the database is made.
   */
  private writeLiveSnapshotTemp(): SnapshotContent {
    const size = this.fileSize();
    const tmp = path.join(this.dir, `${SNAPSHOT}.tmp`);
    const fd = fs.openSync(tmp, 'w');
    try {
      let crc = 0;
      for (let off = 0; off < size; ) {
        const part = this.live!.storage.subarray(off, Math.min(size, off + 16 * 1024 * 1024));
        let done = 0;
        while (done < part.length) done += fs.writeSync(fd, part, done, part.length - done);
        crc = zlib.crc32(part, crc);
        off += part.length;
      }
      return { fd, checksum: `crc32 ${crc.toString(16).padStart(8, '0')} ${size}\n` };
    } catch (e) {
      fs.closeSync(fd);
      fs.rmSync(tmp, { force: true });
      throw e;
    }
  }

  private async writeSnapshotFile(content: SnapshotContent): Promise<void> {
    const file = path.join(this.dir, SNAPSHOT);
    const prev = path.join(this.dir, SNAPSHOT_PREV);
    const tmp = `${file}.tmp`;
    let checksum: string;
    if ('bytes' in content) {
      await writeDurably(tmp, content.bytes);
      checksum = checksumLine(content.bytes);
    } else {
      try {
        await new Promise<void>((resolve, reject) => fs.fsync(content.fd, (e) => (e ? reject(e) : resolve())));
      } finally {
        fs.closeSync(content.fd);
      }
      checksum = content.checksum;
    }
    await writeDurably(tmp + CHECKSUM_SUFFIX, checksum);
    // Each file moves with its checksum; a crash in between leaves a pair that disagrees,
    // which only means the slow check on the next open.
    if (fs.existsSync(file)) {
      fs.renameSync(file, prev);
      if (fs.existsSync(file + CHECKSUM_SUFFIX)) fs.renameSync(file + CHECKSUM_SUFFIX, prev + CHECKSUM_SUFFIX);
      else fs.rmSync(prev + CHECKSUM_SUFFIX, { force: true });
    }
    fs.renameSync(tmp, file);
    fs.renameSync(tmp + CHECKSUM_SUFFIX, file + CHECKSUM_SUFFIX);
    fsyncDir(this.dir);
  }

  /** PRAGMA integrity_check plus FTS4's own integrity check; empty when healthy. */
  integrityCheck(): string[] {
    const problems: string[] = [];
    const rows = this.db.exec('PRAGMA integrity_check')[0]?.values ?? [];
    for (const r of rows) if (r[0] !== 'ok') problems.push(String(r[0]));
    try {
      // Runs the check without changing anything; not logged.
      this.db.exec("INSERT INTO memories_fts(memories_fts) VALUES('integrity-check')");
      this.db.exec("INSERT INTO memories_exact(memories_exact) VALUES('integrity-check')");
    } catch (e) {
      problems.push(`fts: ${errorMessage(e)}`);
    }
    return problems;
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

  get isReadOnly(): boolean {
    return !!this.opts.readOnly;
  }

  /** Snapshot (if anything changed) and release the lock. */
  async close(opts: { snapshot?: boolean } = {}): Promise<void> {
    if (this.closed) return;
    try {
      if (opts.snapshot !== false && !this.opts.readOnly) {
        await this.snapshotting?.catch(() => undefined);
        await this.snapshot();
      }
    } finally {
      this.closed = true;
      if (this.ftsMergeTimer) clearImmediate(this.ftsMergeTimer);
      for (const s of this.statements.values()) s.free();
      this.statements.clear();
      this.log?.close();
      this.db.close();
      const live = this.live;
      this.live = undefined;
      if (live) await releaseStorage(live).catch(() => undefined);
      this.lock?.release();
    }
  }
}
