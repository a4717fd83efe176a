/**
 * Graph-augmented search (docs/pipeline.md "Knowledge graph"): memory ids linked to a query through the knowledge
 * graph. Synchronous, deadline-bounded (checked after each step: on timeout the ids gathered
 * so far come back with `timedOut`), empty on any exception. Boosting is additive, so a
 * partial or empty answer never hurts recall correctness.
 */
export interface GraphReader {
  all<T = Record<string, unknown>>(sql: string, params?: (string | number | null)[]): T[];
}

export const GRAPH_BOOST_LIMITS = { entityHits: 20, neighbours: 50, memories: 200, maxTokens: 32 } as const;

export interface GraphBoostResult {
  memoryIds: string[];
  /** Matched entities + one-hop neighbours. */
  entityIds: string[];
  timedOut: boolean;
}

/** Query tokens: 2+ character alphanumeric runs, lowercased, distinct. */
export function graphQueryTokens(query: string): string[] {
  const toks = (query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((t) => t.length >= 2);
  return [...new Set(toks)].slice(0, GRAPH_BOOST_LIMITS.maxTokens);
}

export function getGraphBoostIds(
  db: GraphReader,
  query: string,
  opts: { deadlineMs?: number; deadline?: number; now?: () => number } = {},
): GraphBoostResult {
  const now = opts.now ?? Date.now;
  const deadline = opts.deadline ?? now() + (opts.deadlineMs ?? 500);
  const empty: GraphBoostResult = { memoryIds: [], entityIds: [], timedOut: false };
  try {
    const tokens = graphQueryTokens(typeof query === 'string' ? query : '');
    if (!tokens.length) return empty;
    // 1. Entities whose canonical name contains a token, most mentioned first.
    const hits = db.all<{ id: string }>(
      `SELECT id FROM entities WHERE ${tokens.map(() => 'canonical_name LIKE ?').join(' OR ')} ORDER BY mentions DESC, id LIMIT ?`,
      [...tokens.map((t) => `%${t}%`), GRAPH_BOOST_LIMITS.entityHits],
    );
    const entityIds = hits.map((h) => String(h.id));
    if (!entityIds.length) return empty;
    if (now() > deadline) return { memoryIds: [], entityIds, timedOut: true };
    // 2. One hop through relations, both directions.
    const marks = entityIds.map(() => '?').join(', ');
    const neighbours = db.all<{ id: string }>(
      `SELECT id FROM (
         SELECT target_entity_id AS id FROM relations WHERE source_entity_id IN (${marks})
         UNION SELECT source_entity_id AS id FROM relations WHERE target_entity_id IN (${marks})
       ) WHERE id NOT IN (${marks}) LIMIT ?`,
      [...entityIds, ...entityIds, ...entityIds, GRAPH_BOOST_LIMITS.neighbours],
    );
    const expanded = [...entityIds, ...neighbours.map((n) => String(n.id))];
    if (now() > deadline) return { memoryIds: [], entityIds: expanded, timedOut: true };
    // 3. Memories that mention any of them, tombstones excluded.
    const rows = db.all<{ memory_id: string }>(
      `SELECT DISTINCT mm.memory_id FROM memory_entity_mentions mm JOIN memories m ON m.id = mm.memory_id
       WHERE mm.entity_id IN (${expanded.map(() => '?').join(', ')}) AND m.deleted_at IS NULL LIMIT ?`,
      [...expanded, GRAPH_BOOST_LIMITS.memories],
    );
    const memoryIds = rows.map((r) => String(r.memory_id));
    return { memoryIds, entityIds: expanded, timedOut: now() > deadline };
  } catch {
    return empty;
  }
}

/**
 * The shape src/core/search's HybridSearch takes as `graphBoost` (GraphBoostProvider):
 * `(query, deadlineMs) => { memoryIds: Set<string>; timedOut }`. `enabled` is read per call
 * so `graphEnabled` can change at run time.
 */
export function createGraphBoostProvider(db: GraphReader, enabled: () => boolean = () => true) {
  return (query: string, deadlineMs: number): { memoryIds: Set<string>; timedOut: boolean } => {
    if (!enabled()) return { memoryIds: new Set(), timedOut: false };
    const r = getGraphBoostIds(db, query, { deadlineMs });
    return { memoryIds: new Set(r.memoryIds), timedOut: r.timedOut };
  };
}
