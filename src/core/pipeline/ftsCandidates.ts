/**
 * A candidate finder over the full-text index alone (the keyword leg only): `buildFtsQuery`,
 * the registered `bm25(matchinfo(memories_fts,'pcnalx'))`, scores normalized to [0, 1] by
 * 1 / (1 + |score|), then `minScore`. The hybrid search (src/core/search) replaces it in the
 * engine; this one serves tests, benchmarks and hosts without vectors.
 *
 * Note on the normalization: with bm25 returning a negated relevance, a stronger match has a
 * larger |score| and so a SMALLER normalized value (the `inverse` map of docs/recall.md);
 * ordering therefore follows bm25 (best first), and `minScore` is a floor on that value.
 */
import type { Store } from '../store/store';
import { buildFtsQuery } from '../search/ftsQuery';
import { ensureBm25 } from '../search/bm25';
import type { Candidate, FindCandidates } from './decision';

export function createFtsCandidateFinder(store: Store, opts: { projectId?: string; minScore?: number } = {}): FindCandidates {
  const minScore = opts.minScore ?? 0;
  return async (text, limit) => {
    const match = buildFtsQuery(text);
    if (!match) return [];
    ensureBm25(store);
    const rows = store.all<{ id: string; type: string; content: string; s: number }>(
      `SELECT m.id, m.type, m.content, bm25(matchinfo(memories_fts, 'pcnalx')) AS s
       FROM memories_fts CROSS JOIN memories m ON m.rid = memories_fts.docid
       WHERE memories_fts MATCH ? AND m.deleted_at IS NULL ${opts.projectId ? 'AND m.project_id = ?' : ''}
       ORDER BY s ASC LIMIT ?`,
      opts.projectId ? [match, opts.projectId, limit * 2] : [match, limit * 2],
    );
    const out: Candidate[] = [];
    for (const r of rows) {
      const score = 1 / (1 + Math.abs(Number(r.s)));
      if (score < minScore) continue;
      out.push({ id: String(r.id), type: String(r.type), content: String(r.content), score });
      if (out.length >= limit) break;
    }
    return out;
  };
}
