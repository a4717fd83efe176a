/**
 * The full-text leg: BM25 (registered JS function over FTS4 matchinfo, see bm25.ts) over
 * `memories_fts` joined to `memories`, with the shared filters in the same statement. User
 * text only ever reaches MATCH through the safe query builder (ftsQuery.ts), so quotes,
 * operators, column filters and unicode cannot break or widen the query.
 * CROSS JOIN pins the FTS table as the outer loop: otherwise SQLite may walk memories by the
 * project index and run the full-text query once per row (hundreds of times slower:
 * bench/RESULTS-design-notes.md).
 */
import type { Store } from '../store/store';
import type { SqlValue } from '../store/opCodec';
import { buildFtsQuery, type FtsQueryOptions } from './ftsQuery';
import { ensureBm25 } from './bm25';
import type { WhereClause } from './filters';

export interface TextHit {
  rid: number;
  id: string;
  createdAt: string;
  /** Positive BM25 relevance (higher = better). */
  bm25: number;
}

/**
 * Column weights title, content, tags, search_context (bm25 arguments after matchinfo): a word of
 * the memory's search context (the previous turn, a heading path; migration 0008) counts half.
 */
export const FTS_COLUMN_WEIGHTS = [1, 1, 1, 0.5] as const;
/** The first columns are the memory's own text; the rest is its search context. */
export const OWN_TEXT_COLUMNS = 3;

/** The MATCH expression for `query`, or null when nothing searchable is left. */
export function ftsExpression(query: string, opts: FtsQueryOptions = {}): string | null {
  return buildFtsQuery(query, { mode: 'any', ...opts });
}

/**
 * The full-text tables over memories: `memories_fts` (porter stemming, the default) and
 * `memories_exact` (unicode61, unstemmed: identifiers with digits, see fullTextExact.ts).
 */
export type FtsTable = 'memories_fts' | 'memories_exact';

function selectSql(where: WhereClause, extra: string, table: FtsTable): string {
  const w = FTS_COLUMN_WEIGHTS.join(', ');
  return (
    `SELECT m.rid AS rid, m.id AS id, m.created_at AS created_at, bm25(matchinfo(${table}, 'pcnalx'), ${w}) AS score ` +
    `FROM ${table} CROSS JOIN memories m ON m.rid = ${table}.docid ` +
    `WHERE ${table} MATCH ? AND ${where.sql}${extra}`
  );
}

function toHit(r: Record<string, SqlValue>): TextHit {
  return { rid: Number(r.rid), id: String(r.id), createdAt: String(r.created_at), bm25: -Number(r.score) };
}

/** Over-fetch of the ranking-only first pass (see fullTextSearch). */
const FIRST_PASS_FACTOR = 4;

/**
 * Best `k` live memories matching `expr`, best first (ties: newer first).
 * Two passes, because joining `memories` for every matching row costs as much as ranking it:
 * first rank over the FTS table alone and keep the top k×4 (ties: higher rid, i.e. newer), then
 * join and filter only those. When the filters reject so many that fewer than k survive, the
 * one-pass query (filters inside) answers instead, so the result is the same either way.
 */
export function fullTextSearch(store: Store, expr: string, where: WhereClause, k: number, table: FtsTable = 'memories_fts'): TextHit[] {
  ensureBm25(store);
  const w = FTS_COLUMN_WEIGHTS.join(', ');
  const first = k * FIRST_PASS_FACTOR;
  const twoPass =
    `SELECT m.rid AS rid, m.id AS id, m.created_at AS created_at, r.score AS score ` +
    `FROM (SELECT docid, bm25(matchinfo(${table}, 'pcnalx'), ${w}) AS score FROM ${table} ` +
    `WHERE ${table} MATCH ? ORDER BY score ASC, docid DESC LIMIT ?) AS r ` +
    `CROSS JOIN memories m ON m.rid = r.docid WHERE ${where.sql} ORDER BY r.score ASC, m.created_at DESC, m.rid DESC LIMIT ?`;
  const rows = store.all(twoPass, [expr, first, ...where.params, k]);
  if (rows.length >= k) return rows.map(toHit);
  // Fewer than k survived: either fewer than k match at all, or the filters are selective.
  const matched = Number(
    store.get<{ n: number }>(`SELECT count(*) AS n FROM (SELECT docid FROM ${table} WHERE ${table} MATCH ? LIMIT ?)`, [expr, first])!.n,
  );
  if (matched < first) return rows.map(toHit);
  const sql = `${selectSql(where, '', table)} ORDER BY score ASC, m.created_at DESC, m.rid DESC LIMIT ?`;
  return store.all(sql, [expr, ...where.params, k]).map(toHit);
}

/** BM25 of specific memories (the union's vector-only candidates); non-matching ones are absent. */
export function fullTextScores(
  store: Store,
  expr: string,
  where: WhereClause,
  rids: readonly number[],
  table: FtsTable = 'memories_fts',
): Map<number, TextHit> {
  ensureBm25(store);
  const out = new Map<number, TextHit>();
  // Chunked so the statement never hits SQLite's bound-parameter limit.
  for (let i = 0; i < rids.length; i += 500) {
    const chunk = padded(rids.slice(i, i + 500));
    const sql = selectSql(where, ` AND ${table}.docid IN (${chunk.map(() => '?').join(', ')})`, table);
    for (const r of store.all(sql, [expr, ...where.params, ...chunk])) {
      const h = toHit(r);
      out.set(h.rid, h);
    }
  }
  return out;
}

/**
 * `rids` padded with -1 (no memory has it) to the next power of two: the store caches one
 * prepared statement per SQL text, so IN-lists come in a few sizes instead of hundreds.
 */
export function padded(rids: readonly number[]): number[] {
  let n = 1;
  while (n < rids.length) n *= 2;
  const out = rids.slice();
  while (out.length < n) out.push(-1);
  return out;
}
