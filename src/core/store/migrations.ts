/**
 * Versioned schema migrations: `migrations/NNNN_name.sql`, applied in order, each in
 * the transaction that records it in `schema_migrations`.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Op } from './opCodec';
import { SchemaTooNewError } from './storeTypes';
import { UserFacingError } from '../util/errors';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** The migrations folder: next to the bundle (dist/migrations) or at the repo root. */
export function defaultMigrationsDir(): string {
  const candidates = [
    process.env.AGENT_MEMORY_MIGRATIONS,
    path.join(__dirname, 'migrations'),
    path.join(__dirname, '..', 'migrations'),
    path.resolve(__dirname, '..', '..', '..', 'migrations'),
  ];
  for (const c of candidates) if (c && fs.existsSync(c)) return c;
  throw new Error(`migrations folder not found (looked in ${candidates.filter(Boolean).join(', ')})`);
}

export function loadMigrations(dir: string): Migration[] {
  const out: Migration[] = [];
  for (const file of fs.readdirSync(dir).sort()) {
    const m = /^(\d{4})_([a-z0-9_]+)\.sql$/.exec(file);
    if (!m) continue;
    out.push({ version: Number(m[1]), name: m[2]!, sql: fs.readFileSync(path.join(dir, file), 'utf8') });
  }
  for (let i = 0; i < out.length; i++) {
    if (out[i]!.version !== i + 1) {
      throw new Error(`migrations must be numbered 0001, 0002, … without gaps; found ${out[i]!.version} at position ${i + 1}`);
    }
  }
  return out;
}

/** The statements that apply a migration and record it (the first also creates schema_migrations). */
export function migrationOps(m: Migration, createTable: boolean): Op[] {
  const ops: Op[] = [];
  if (createTable) {
    ops.push({
      sql: 'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)',
      params: [],
    });
  }
  ops.push({ sql: m.sql, params: [] });
  ops.push({
    sql: 'INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)',
    params: [m.version, m.name, new Date().toISOString()],
  });
  return ops;
}

/** What applying migrations needs of the store. */
export interface MigrationHost {
  get(sql: string): Record<string, unknown> | undefined;
  /** This process writes the store (a reader cannot migrate). */
  writable: boolean;
  /** The log could not be replayed: migrations are applied in memory only (nothing is written). */
  unreplayable: boolean;
  apply(ops: Op[]): void;
  transaction(ops: Op[]): void;
  setVersion(version: number): void;
}

/** Applies the pending migrations, each in one logged transaction; refuses a schema newer than these. */
export function applyMigrations(host: MigrationHost, migrations: Migration[]): void {
  const known = migrations.length;
  const hasTable = Number(host.get("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'")!.n);
  const current = hasTable ? Number(host.get('SELECT max(version) AS v FROM schema_migrations')?.v ?? 0) : 0;
  if (current > known) throw new SchemaTooNewError(current, known);
  host.setVersion(current);
  const pending = migrations.filter((m) => m.version > current);
  if (!pending.length) return;
  if (!host.writable && !host.unreplayable) {
    throw new UserFacingError(
      `This memory store needs schema migration ${pending[0]!.version}, which a read-only opener cannot apply.`,
      'store_needs_migration',
    );
  }
  for (const m of pending) {
    const ops = migrationOps(m, !hasTable && m.version === 1);
    // A store that cannot replay its log shows the current schema in memory only (nothing is written).
    if (host.unreplayable) host.apply(ops);
    else host.transaction(ops);
    host.setVersion(m.version);
  }
}
