/**
 * The memory graph of one store for the graph panel: memories as nodes; edges from stored
 * relationships (memory_relationships: SUPERSEDES, …), from entities of the knowledge graph
 * two memories both mention (src/core/graph tables, filled by the pipeline), and from shared
 * tags, so a fresh store without extracted entities still shows its structure; and what
 * consolidation knows (memoryGraphLinks.ts): pending similarity suggestions and past merges.
 */
import type { Store } from '../../../core/store/store';
import { LIMIT_RANGES } from '../../../core/memory/limits';
import type { GraphData, GraphEdge, GraphParams } from '../../protocol';
import { memoryNode, mergeLinks, similarityEdges } from './memoryGraphLinks';

const MAX_GROUP_EDGES = 12;

/** The memory view of one store: up to `params.limit` memories (checked by the handler). */
export function queryMemoryGraph(store: Store, params: GraphParams): GraphData {
  const limit = params.limit ?? LIMIT_RANGES.memoryGraph.default;
  let rows;
  if (params.centerId) {
    // The centre, its direct relations, then memories sharing a tag with it.
    rows = store.all(
      `WITH c AS (SELECT rid, id FROM memories WHERE id = ?),
            linked AS (
              SELECT to_memory_id AS id FROM memory_relationships WHERE from_memory_id = (SELECT id FROM c)
              UNION SELECT from_memory_id FROM memory_relationships WHERE to_memory_id = (SELECT id FROM c)
              UNION SELECT m.id FROM memory_tags t JOIN memory_tags t2 ON t2.tag = t.tag JOIN memories m ON m.rid = t2.rid
                     WHERE t.rid = (SELECT rid FROM c)
              UNION SELECT memory_b_id FROM consolidation_suggestions WHERE status = 'pending' AND memory_a_id = (SELECT id FROM c)
              UNION SELECT memory_a_id FROM consolidation_suggestions WHERE status = 'pending' AND memory_b_id = (SELECT id FROM c))
       SELECT * FROM memories WHERE deleted_at IS NULL AND (id = (SELECT id FROM c) OR id IN (SELECT id FROM linked))
       ORDER BY (id = (SELECT id FROM c)) DESC, created_at DESC LIMIT ?`,
      [params.centerId, limit + 1],
    );
  } else {
    rows = store.all('SELECT * FROM memories WHERE deleted_at IS NULL ORDER BY created_at DESC LIMIT ?', [limit + 1]);
  }
  const truncated = rows.length > limit;
  rows = rows.slice(0, limit);
  const nodes = rows.map((r) => memoryNode(r));
  const ids = new Set(nodes.map((n) => n.id));
  const edges: GraphEdge[] = [];
  if (ids.size) {
    const marks = [...ids].map(() => '?').join(', ');
    for (const r of store.all(
      `SELECT from_memory_id, to_memory_id, relationship, strength FROM memory_relationships
        WHERE from_memory_id IN (${marks}) AND to_memory_id IN (${marks})`,
      [...ids, ...ids],
    )) {
      edges.push({
        from: String(r.from_memory_id),
        to: String(r.to_memory_id),
        kind: String(r.relationship),
        strength: Number(r.strength),
      });
    }
    // Memories sharing a tag, or an entity of the knowledge graph (pipeline extraction).
    const groups: [string, string][] = [
      ...store
        .all(
          `SELECT t.tag AS k, m.id FROM memory_tags t JOIN memories m ON m.rid = t.rid
            WHERE m.id IN (${marks}) ORDER BY t.tag, m.created_at`,
          [...ids],
        )
        .map((r): [string, string] => [`shared_tag:${String(r.k)}`, String(r.id)]),
      ...(hasTable(store, 'memory_entity_mentions')
        ? store
            .all(
              `SELECT e.name AS k, x.memory_id AS id FROM memory_entity_mentions x
                JOIN entities e ON e.id = x.entity_id JOIN memories m ON m.id = x.memory_id
                      WHERE x.memory_id IN (${marks}) ORDER BY e.name, m.created_at`,
              [...ids],
            )
            .map((r): [string, string] => [`entity:${String(r.k)}`, String(r.id)])
        : []),
    ];
    const byKey = new Map<string, string[]>();
    for (const [key, id] of groups) byKey.set(key, [...(byKey.get(key) ?? []), id]);
    for (const [kind, members] of byKey) {
      // A chain, not a clique: n-1 edges per group keep big groups readable.
      const m = members.slice(0, MAX_GROUP_EDGES + 1);
      for (let i = 1; i < m.length; i++) edges.push({ from: m[i - 1]!, to: m[i]!, kind, strength: kind.startsWith('entity:') ? 0.8 : 0.5 });
    }
  }
  const live = [...ids];
  const merges = mergeLinks(store, live);
  return { nodes: [...nodes, ...merges.nodes], edges: [...edges, ...similarityEdges(store, live), ...merges.edges], truncated };
}

function hasTable(store: Store, name: string): boolean {
  return !!store.get(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`, [name]);
}
