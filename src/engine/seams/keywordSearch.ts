/**
 * SEAM (rewire to src/core/search hybrid search when it lands): keyword-only search of one
 * store with the safe FTS4 query builder and the registered bm25() SQL function. The engine
 * calls it through `searchStore`, so swapping in the hybrid search (FTS + vector leg over a
 * VectorSearcher, fused 0.7/0.3) changes this file only.
 */
import type { Store } from '../../core/store/store';
import { buildFtsQuery } from '../../core/search/ftsQuery';
import { MATCHINFO_FORMAT } from '../../core/search/bm25';
import { rowToSummary } from '../../core/memory/rows';
import { normalizeTags } from '../../core/text/tags';
import type { MemorySummary } from '../../core/memory/types';

export interface StoreSearchOptions {
  query: string;
  limit: number;
  types?: string[];
  scope?: string;
  tags?: string[];
  now: Date;
}

export interface StoreHit {
  memory: MemorySummary;
  content: string;
  /** Positive BM25 relevance. */
  keyword: number;
}

export function searchStore(store: Store, opts: StoreSearchOptions): StoreHit[] {
  const match = buildFtsQuery(opts.query);
  if (match === null) return [];
  const where = ['memories_fts MATCH ?', 'm.deleted_at IS NULL', '(m.expires_at IS NULL OR m.expires_at > ?)'];
  const params: (string | number)[] = [match, opts.now.toISOString()];
  if (opts.types?.length) {
    where.push(`m.type IN (${opts.types.map(() => '?').join(', ')})`);
    params.push(...opts.types);
  }
  if (opts.scope) {
    where.push('m.scope = ?');
    params.push(opts.scope);
  }
  for (const tag of normalizeTags(opts.tags ?? []).tags) {
    where.push('EXISTS (SELECT 1 FROM memory_tags t WHERE t.rid = m.rid AND t.tag = ?)');
    params.push(tag);
  }
  const rows = store.all(
    `SELECT m.*, -bm25(matchinfo(memories_fts, '${MATCHINFO_FORMAT}')) AS kw
       FROM memories_fts JOIN memories m ON m.rid = memories_fts.docid
      WHERE ${where.join(' AND ')}
      ORDER BY kw DESC, m.created_at DESC
      LIMIT ?`,
    [...params, opts.limit],
  );
  return rows.map((r) => ({ memory: rowToSummary(r), content: String(r.content), keyword: Number(r.kw) }));
}
