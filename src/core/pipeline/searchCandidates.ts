/**
 * Adapter from the hybrid search (src/core/search HybridSearch, typed structurally here so
 * this module does not depend on its internals) to the decision stage's FindCandidates:
 * search with the fact as the query, keep results at or above `minScore`, and load each
 * candidate's full content (search results carry a preview only).
 */
import type { Store } from '../store/store';
import type { Candidate, FindCandidates } from './decision';

export interface CandidateSearch {
  search(req: { query: string; limit?: number; minScore?: number; noRerank?: boolean }): Promise<{
    results: { memory: { id: string; type: string }; finalScore: number }[];
  }>;
}

export function createSearchCandidateFinder(store: Store, search: CandidateSearch, opts: { minScore?: number } = {}): FindCandidates {
  return async (text, limit) => {
    const res = await search.search({
      query: text,
      limit: Math.max(1, Math.min(limit, 100)),
      minScore: opts.minScore ?? 0,
      noRerank: true,
    });
    const out: Candidate[] = [];
    for (const r of res.results) {
      const row = store.get<{ content: string }>('SELECT content FROM memories WHERE id = ? AND deleted_at IS NULL', [r.memory.id]);
      if (!row) continue;
      out.push({ id: r.memory.id, type: r.memory.type, content: String(row.content), score: r.finalScore });
    }
    return out;
  };
}
