/**
 * The SQL side of the store: one sql.js database, its prepared-statement cache, reads, and
 * applying a list of logged statements as one transaction. No durability here (store.ts).
 */
import type { Database, Statement } from 'sql.js';
import type { Op, SqlValue } from './opCodec';
import type { Params, Row } from './storeTypes';
import { errorMessage } from '../util/errors';

export abstract class SqlDb {
  protected readonly statements = new Map<string, Statement>();
  private readonly tokenizers = new Set<string>();

  protected constructor(protected readonly db: Database) {}

  protected exec(sql: string): void {
    this.db.exec(sql);
  }

  protected stmt(sql: string): Statement {
    let s = this.statements.get(sql);
    if (!s) {
      s = this.db.prepare(sql);
      this.statements.set(sql, s);
    }
    return s;
  }

  protected applyOps(ops: Op[]): void {
    this.db.exec('BEGIN');
    try {
      for (const op of ops) this.execOp(op.sql, op.params);
      this.db.exec('COMMIT');
    } catch (e) {
      this.db.exec('ROLLBACK');
      throw e;
    }
  }

  protected execOp(sql: string, params: Params): void {
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

  /** Register a JS function usable from SQL (e.g. bm25). Connection-level, not logged. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- SQLite passes whatever the SQL gives; each function checks its own
  registerFunction(name: string, fn: (...args: any[]) => SqlValue): void {
    this.db.create_function(name, fn);
  }

  /**
   * The name of a temp `fts3tokenize` table for an FTS tokenizer ('porter': memories_fts,
   * 'unicode61': memories_exact), created on first use. Connection-level like registerFunction:
   * the temp schema is neither logged nor part of a snapshot (export copies `main` only).
   */
  tokenizerTable(tokenizer: 'porter' | 'unicode61'): string {
    const name = `temp.fts_tokens_${tokenizer}`;
    if (!this.tokenizers.has(tokenizer)) {
      this.db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS ${name} USING fts3tokenize('${tokenizer}')`);
      this.tokenizers.add(tokenizer);
    }
    return name;
  }

  /** page_count × page_size: the size of the database file. */
  protected fileSize(): number {
    return Number(this.get<{ n: number }>('SELECT page_count * page_size AS n FROM pragma_page_count(), pragma_page_size()')!.n);
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

  /** Frees the prepared statements (before the database is closed). */
  protected freeStatements(): void {
    for (const s of this.statements.values()) s.free();
    this.statements.clear();
  }
}
