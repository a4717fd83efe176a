/**
 * Nearest live memories of one project. Most stores hold one project, so an unfiltered
 * search with some headroom, checked with ONE query, almost always suffices; only when too
 * few candidates belong to the project does it fall back to a filtered search (whose filter
 * runs a lookup per visited graph node — correct but ~10× the cost).
 */
import type { Store } from '../store/store';
import type { VectorSearcher } from '../vectorstore/types';

export interface Neighbour {
  id: string;
  rid: number;
  similarity: number;
}

const HEADROOM = 4;

/** Which neighbours: the `k` nearest of one project, optionally without the query's own row. */
export interface NeighbourQuery {
  projectId: string;
  k: number;
  excludeRid?: number;
}

export function projectNeighbours(store: Store, vectors: VectorSearcher, query: Float32Array, q: NeighbourQuery): Neighbour[] {
  const { projectId, k, excludeRid } = q;
  const wide = k * HEADROOM + (excludeRid === undefined ? 0 : 1);
  const hits = vectors.search(query, wide);
  const meta = lookup(
    store,
    hits.map((h) => h.rid),
  );
  const pick = (list: { rid: number; similarity: number }[], info: Map<number, { id: string; project: string }>) => {
    const out: Neighbour[] = [];
    for (const h of list) {
      const m = info.get(h.rid);
      if (h.rid === excludeRid || !m || m.project !== projectId) continue;
      out.push({ id: m.id, rid: h.rid, similarity: h.similarity });
      if (out.length === k) break;
    }
    return out;
  };
  const first = pick(hits, meta);
  // Enough of ours among the nearest, or the index has nothing more to give.
  if (first.length === k || hits.length < wide) return first;
  const cache = new Map<number, string | undefined>();
  const filter = (rid: number): boolean => {
    if (rid === excludeRid) return false;
    if (!cache.has(rid))
      cache.set(rid, store.get<{ p: string }>('SELECT project_id AS p FROM memories WHERE rid = ? AND deleted_at IS NULL', [rid])?.p);
    return cache.get(rid) === projectId;
  };
  const filtered = vectors.search(query, k, filter);
  return pick(
    filtered,
    lookup(
      store,
      filtered.map((h) => h.rid),
    ),
  );
}

function lookup(store: Store, rids: number[]): Map<number, { id: string; project: string }> {
  const out = new Map<number, { id: string; project: string }>();
  if (!rids.length) return out;
  const rows = store.all<{ rid: number; id: string; project_id: string }>(
    `SELECT rid, id, project_id FROM memories WHERE deleted_at IS NULL AND rid IN (${rids.map(() => '?').join(', ')})`,
    rids,
  );
  for (const r of rows) out.set(Number(r.rid), { id: String(r.id), project: String(r.project_id) });
  return out;
}
