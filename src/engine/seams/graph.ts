/**
 * SEAM (rewire to src/core/graph when the knowledge graph lands): the memory graph of one
 * store: memories as nodes, stored relationships (memory_relationships) as edges, plus
 * "shared tag" edges so a fresh store without extracted relations still shows its structure.
 */
import type { Store } from '../../core/store/store';
import type { GraphData, GraphEdge, GraphNode, GraphParams } from '../protocol';

const MAX_TAG_EDGES_PER_TAG = 12;

export function queryGraph(store: Store, params: GraphParams, maxNodes: number): GraphData {
  const limit = Math.max(1, Math.min(params.limit ?? 100, maxNodes));
  let rows;
  if (params.centerId) {
    // The centre, its direct relations, then memories sharing a tag with it.
    rows = store.all(
      `WITH c AS (SELECT rid, id FROM memories WHERE id = ?),
            linked AS (
              SELECT to_memory_id AS id FROM memory_relationships WHERE from_memory_id = (SELECT id FROM c)
              UNION SELECT from_memory_id FROM memory_relationships WHERE to_memory_id = (SELECT id FROM c)
              UNION SELECT m.id FROM memory_tags t JOIN memory_tags t2 ON t2.tag = t.tag JOIN memories m ON m.rid = t2.rid
                     WHERE t.rid = (SELECT rid FROM c))
       SELECT * FROM memories WHERE deleted_at IS NULL AND (id = (SELECT id FROM c) OR id IN (SELECT id FROM linked))
       ORDER BY (id = (SELECT id FROM c)) DESC, created_at DESC LIMIT ?`,
      [params.centerId, limit + 1],
    );
  } else {
    rows = store.all('SELECT * FROM memories WHERE deleted_at IS NULL ORDER BY created_at DESC LIMIT ?', [limit + 1]);
  }
  const truncated = rows.length > limit;
  rows = rows.slice(0, limit);
  const nodes: GraphNode[] = rows.map((r) => ({
    id: String(r.id),
    label: String(r.title || String(r.content).slice(0, 60)),
    type: String(r.type),
    scope: r.scope as GraphNode['scope'],
    importance: Number(r.importance),
  }));
  const ids = new Set(nodes.map((n) => n.id));
  const edges: GraphEdge[] = [];
  if (ids.size) {
    const marks = [...ids].map(() => '?').join(', ');
    for (const r of store.all(
      `SELECT from_memory_id, to_memory_id, relationship, strength FROM memory_relationships
        WHERE from_memory_id IN (${marks}) AND to_memory_id IN (${marks})`,
      [...ids, ...ids],
    )) {
      edges.push({ from: String(r.from_memory_id), to: String(r.to_memory_id), kind: String(r.relationship), strength: Number(r.strength) });
    }
    const byTag = new Map<string, string[]>();
    for (const r of store.all(
      `SELECT t.tag, m.id FROM memory_tags t JOIN memories m ON m.rid = t.rid WHERE m.id IN (${marks}) ORDER BY t.tag, m.created_at`,
      [...ids],
    )) {
      const list = byTag.get(String(r.tag)) ?? [];
      list.push(String(r.id));
      byTag.set(String(r.tag), list);
    }
    for (const [tag, members] of byTag) {
      // A chain, not a clique: n-1 edges per tag keep big tags readable.
      const m = members.slice(0, MAX_TAG_EDGES_PER_TAG + 1);
      for (let i = 1; i < m.length; i++) edges.push({ from: m[i - 1]!, to: m[i]!, kind: `shared_tag:${tag}`, strength: 0.5 });
    }
  }
  return { nodes, edges, truncated };
}
