/**
 * Fallback search of one store when its vector side could not open (no embedder, index
 * error): the core's full-text leg alone (safe FTS4 query, bm25, the shared live/type/scope/tag
 * filter). The engine uses HybridSearch whenever it can; this keeps search working otherwise.
 */
import type { Store } from '../../core/store/store';
import { ftsExpression, fullTextSearch } from '../../core/search/fullText';
import { buildMemoryFilter } from '../../core/search/filters';
import { rowToSummary } from '../../core/memory/rows';
import type { MemorySummary } from '../../core/memory/types';

export interface StoreSearchOptions {
  projectId: string;
  query: string;
  limit: number;
  types?: string[];
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
  const expr = ftsExpression(opts.query);
  if (expr === null) return [];
  const where = buildMemoryFilter(opts.projectId, { ...(opts.types ? { types: opts.types } : {}), ...(opts.tags ? { tags: opts.tags } : {}) }, opts.now);
  return fullTextSearch(store, expr, where, opts.limit).flatMap((hit) => {
    const row = store.get('SELECT * FROM memories WHERE rid = ?', [hit.rid]);
    return row ? [{ memory: rowToSummary(row), content: String(row.content), keyword: hit.bm25 }] : [];
  });
}
