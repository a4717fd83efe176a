/**
 * What consolidation knows about the memories of the graph panel's memory view: pending
 * similarity suggestions (consolidation_suggestions) become 'similar' edges, and past merges
 * (the 'merged' history rows of the survivors, whose metadata names the absorbed memories)
 * become 'merged' edges to the absorbed memory, drawn as a tombstone node. See
 * docs/consolidation.md for how suggestions and merges are made.
 */
import type { Store } from '../../../core/store/store';
import type { GraphEdge, GraphNode } from '../../protocol';
import { truncateFlat } from '../../../core/text/truncate';

/** Tombstones drawn for merges, at most: a long merge history should not bury the live memories. */
const MAX_MERGED_NODES = 60;
/** Graphemes of a node label: enough for the panel's hover text; the canvas shows a shorter cut. */
const LABEL_GRAPHEMES = 200;

/** A memory row as a node of the memory view. */
export function memoryNode(r: Record<string, unknown>, mergedInto?: string): GraphNode {
  const title = typeof r.title === 'string' ? r.title.trim() : '';
  return {
    id: String(r.id),
    label: truncateFlat(title || (typeof r.content === 'string' ? r.content : ''), LABEL_GRAPHEMES),
    type: String(r.type),
    scope: r.scope as GraphNode['scope'],
    importance: Number(r.importance),
    ...(mergedInto ? { mergedInto } : {}),
  };
}

const marks = (n: number) => Array.from({ length: n }, () => '?').join(', ');

/** Pending suggestions between two shown memories. */
export function similarityEdges(store: Store, ids: string[]): GraphEdge[] {
  if (!ids.length) return [];
  return store
    .all(
      `SELECT memory_a_id, memory_b_id, similarity FROM consolidation_suggestions
        WHERE status = 'pending' AND memory_a_id IN (${marks(ids.length)}) AND memory_b_id IN (${marks(ids.length)})
        ORDER BY similarity DESC`,
      [...ids, ...ids],
    )
    .map((r) => ({ from: String(r.memory_a_id), to: String(r.memory_b_id), kind: 'similar', strength: Number(r.similarity) }));
}

/** The absorbed ids a 'merged' history row names; a malformed row names none. */
function absorbedIds(metadataJson: unknown): string[] {
  try {
    const absorbed = (JSON.parse(String(metadataJson)) as { absorbed?: unknown }).absorbed;
    return Array.isArray(absorbed) ? absorbed.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return [];
  }
}

/** 'merged' edges from the shown survivors to what they absorbed, and a tombstone node for each absorbed memory not shown. */
export function mergeLinks(store: Store, ids: string[]): { nodes: GraphNode[]; edges: GraphEdge[] } {
  if (!ids.length) return { nodes: [], edges: [] };
  const shown = new Set(ids);
  const survivorOf = new Map<string, string>();
  for (const r of store.all(
    `SELECT memory_id, metadata_json FROM memory_history WHERE event = 'merged' AND memory_id IN (${marks(ids.length)})
      ORDER BY created_at DESC`,
    ids,
  )) {
    for (const absorbed of absorbedIds(r.metadata_json)) {
      if (absorbed !== r.memory_id && !survivorOf.has(absorbed)) survivorOf.set(absorbed, String(r.memory_id));
    }
  }
  const hidden = [...survivorOf.keys()].filter((id) => !shown.has(id)).slice(0, MAX_MERGED_NODES);
  const nodes = hidden.length
    ? store
        .all(`SELECT * FROM memories WHERE id IN (${marks(hidden.length)})`, hidden)
        .map((r) => memoryNode(r, survivorOf.get(String(r.id))))
    : [];
  const drawn = new Set([...ids, ...nodes.map((n) => n.id)]);
  const edges: GraphEdge[] = [];
  for (const [absorbed, survivor] of survivorOf) {
    if (drawn.has(absorbed)) edges.push({ from: survivor, to: absorbed, kind: 'merged', strength: 1 });
  }
  return { nodes, edges };
}
