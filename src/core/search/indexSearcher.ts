/**
 * A {@link VectorSearcher} over one in-memory VectorIndex (HnswIndex or ExactIndex) whose labels
 * are memories.rid. Used by tests and benchmarks; the engine uses src/core/vectorstore.
 */
import type { VectorIndex } from '../vector/types';
import type { VectorSearcher } from './types';

type IndexWithVectors = VectorIndex & { getVector(label: number): Float32Array | undefined };

export class IndexVectorSearcher implements VectorSearcher {
  /**
   * `vectorOf`: where `similarities` reads stored vectors (default the index's getVector).
   * HnswIndex.getVector copies through embind (slow per vector: bench/RESULTS-design-notes.md), so callers scoring many
   * keyword-only candidates against an HNSW index pass a faster source.
   */
  constructor(
    private readonly index: IndexWithVectors,
    readonly space: string,
    private readonly vectorOf: (rid: number) => Float32Array | undefined = (rid) => index.getVector(rid),
  ) {}

  get dimension(): number {
    return this.index.dim;
  }

  search(query: Float32Array, k: number, filter?: (rid: number) => boolean): { rid: number; similarity: number }[] {
    return this.index.search(query, k, filter).map((h) => ({ rid: h.label, similarity: h.similarity }));
  }

  vectorsOf(rids: number[]): Map<number, Float32Array> {
    const out = new Map<number, Float32Array>();
    for (const rid of rids) {
      const v = this.vectorOf(rid);
      if (v) out.set(rid, v);
    }
    return out;
  }

  /** Exact cosine of the query with each stored vector; rids without a vector are absent. */
  similarities(query: Float32Array, rids: number[]): Map<number, number> {
    const out = new Map<number, number>();
    let qq = 0;
    for (let i = 0; i < query.length; i++) qq += query[i]! * query[i]!;
    const qn = Math.sqrt(qq);
    if (!(qn > 0)) return out;
    for (const rid of rids) {
      const v = this.vectorOf(rid);
      if (!v || v.length !== query.length) continue;
      let d = 0;
      let vv = 0;
      for (let i = 0; i < v.length; i++) {
        d += v[i]! * query[i]!;
        vv += v[i]! * v[i]!;
      }
      if (vv > 0) out.set(rid, d / (qn * Math.sqrt(vv)));
    }
    return out;
  }
}
