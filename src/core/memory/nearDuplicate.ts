/**
 * Seed 002 near-duplicate stage: find a live memory that already holds ≥ 80% of the
 * new text's words. Candidates come from the full-text index (best bm25 first), so the
 * check costs one ranked FTS query, not a scan.
 */
import type { Store } from '../store/store';
import { buildFtsQuery } from '../search/ftsQuery';
import { isNearDuplicate } from '../text/overlap';
import { LIMITS } from './limits';

/** Few terms suffice: a true near-duplicate shares most words, so it ranks at the top. */
const CANDIDATE_TERMS = 12;

export function findNearDuplicate(
  store: Store,
  projectId: string,
  content: string,
  threshold: number,
): { id: string } | undefined {
  const match = buildFtsQuery(content, { mode: 'any', maxTerms: CANDIDATE_TERMS });
  if (!match) return undefined;
  const rows = store.all<{ id: string; content: string }>(
    // CROSS JOIN pins the join order: left to itself, SQLite's planner may walk memories by
    // project and run the whole full-text query once per row (13 s instead of 15 ms at 10k).
    `SELECT m.id, m.content FROM memories_fts
      CROSS JOIN memories m ON m.rid = memories_fts.docid
      WHERE memories_fts MATCH ? AND m.project_id = ? AND m.deleted_at IS NULL
      ORDER BY bm25(matchinfo(memories_fts, 'pcnalx')) LIMIT ?`,
    [match, projectId, LIMITS.nearDuplicateCandidates],
  );
  for (const r of rows) if (isNearDuplicate(content, r.content, threshold)) return { id: r.id };
  return undefined;
}
