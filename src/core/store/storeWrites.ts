/**
 * The store's write transactions (ARCHITECTURE.md "Durability contract"): a synchronous body
 * whose statements are collected as the operation log's record, appended and fdatasync'ed
 * before COMMIT (a failed append rolls back); memory row numbers bound so replay gives the same
 * ones (rowNumbers.ts); listeners told after each durable commit. The Store (store.ts) owns one.
 */
import type { Database } from 'sql.js';
import { errorMessage } from '../util/errors';
import type { Op, SqlValue } from './opCodec';
import { REPLAYABLE_MARK, planInsert } from './rowNumbers';
import { NON_DETERMINISTIC, normalizeParams, stripSqlComments } from './sqlText';
import type { Params, Row, Tx } from './storeTypes';

/** What the transactions need of the store. */
export interface WriteHost {
  readonly db: Database;
  /** Runs one statement (sql.js, prepared-statement cache). */
  execOp(sql: string, params: Params): void;
  get<T = Row>(sql: string, params?: Params): T | undefined;
  all<T = Row>(sql: string, params?: Params): T[];
  /** Throws when this process may not write now (closed, read-only, writes paused). */
  assertWritable(): void;
  /** Appends the record durably, or throws (the transaction then rolls back). */
  append(ops: Op[]): void;
  /** A transaction that wrote something committed. */
  committed(): void;
  warn(message: string, key?: string): void;
}

export class StoreWrites {
  /** A transaction body is running. */
  inTx = false;
  /** The highest memory row number given out or seen; new memories get the next one (rowNumbers.ts). */
  ridHigh = 0;
  private readonly listeners = new Set<() => void>();

  constructor(private readonly host: WriteHost) {}

  /** Store.transaction: `fn` runs as one transaction, durable when this returns. */
  transaction<T>(fn: (tx: Tx) => T): T {
    this.host.assertWritable();
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
      get: (sql, params) => this.host.get(sql, params),
      all: (sql, params) => this.host.all(sql, params),
    };
    this.inTx = true;
    this.host.db.exec('BEGIN');
    let result: T;
    try {
      result = fn(tx);
      if (result instanceof Promise) {
        throw new Error('transaction bodies must be synchronous (no awaits inside a transaction)');
      }
      // Durable first: if the log write fails, the transaction is rolled back.
      if (ops.length) this.host.append(replayable ? [{ sql: REPLAYABLE_MARK, params: [] }, ...ops] : ops);
    } catch (e) {
      this.host.db.exec('ROLLBACK');
      this.inTx = false;
      this.ridHigh = ridHigh;
      throw e;
    }
    this.host.db.exec('COMMIT');
    this.inTx = false;
    if (ops.length) {
      this.host.committed();
      this.notifyCommit();
    }
    return result;
  }

  /** Calls `listener` after every durable commit that wrote something; returns the unsubscribe function. */
  onCommit(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The highest memory row number in the database (0 before the memories table exists). */
  maxRid(): number {
    try {
      return Number(this.host.get<{ n: number | null }>('SELECT max(rid) AS n FROM memories')?.n ?? 0);
    } catch {
      return 0;
    }
  }

  private notifyCommit(): void {
    for (const l of [...this.listeners]) {
      try {
        l();
      } catch (e) {
        this.host.warn(`a listener of committed changes failed: ${errorMessage(e)}`, 'commit-listener');
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
    this.host.execOp(run.sql, run.params);
    const changes = this.host.db.getRowsModified();
    if (plan.kind !== 'none' && changes > 0)
      this.ridHigh = Math.max(this.ridHigh, plan.kind === 'bound' && plan.rid ? plan.rid : this.lastRowId());
    return { ...run, changes, unbound: plan.kind === 'unbound' && changes > 0 };
  }

  private lastRowId(): number {
    return Number(this.host.get<{ n: number }>('SELECT last_insert_rowid() AS n')!.n);
  }
}
