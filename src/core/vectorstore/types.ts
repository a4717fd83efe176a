/** Shapes shared by the vector store, the write path and the read path. */

/**
 * What the read path codes against (structurally identical to src/core/search/types.ts).
 * `rid` is memories.rid; similarity is cosine (1 … −1).
 */
export interface VectorSearcher {
  readonly space: string;
  readonly dimension: number;
  /** k nearest live memories by cosine, best first. `filter` runs inside the graph walk. Syncs with the DB first. */
  search(query: Float32Array, k: number, filter?: (rid: number) => boolean): { rid: number; similarity: number }[];
  /** Cosine similarity of the stored vectors of these rids to `query`; rids without a vector are omitted. */
  similarities(query: Float32Array, rids: number[]): Map<number, number>;
}

/** HNSW parameters (config `vector.*`). Changing M or efConstruction rebuilds the index. */
export interface VectorIndexParams {
  M: number;
  efConstruction: number;
  efSearch: number;
}

export const DEFAULT_VECTOR_PARAMS: VectorIndexParams = { M: 16, efConstruction: 100, efSearch: 50 };

/** A vector computed for a text, ready to be written with the memory in one transaction. */
export interface PreparedEmbedding {
  /** Embedder.space of the vector. */
  space: string;
  /** embedTextHash() of the exact text that was embedded (see embeddingText()). */
  textHash: string;
  vector: Float32Array;
}
