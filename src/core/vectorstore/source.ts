/**
 * What a vector index is built over: the rows that own vectors (memories, or the chunks of agent
 * sessions), where their vectors are, and the change tracking the migration's triggers keep for
 * them (docs/storage.md "Full-text and vectors"). Every SQL statement of changes.ts and
 * storedSimilarities.ts is written once over these names, so both kinds of index sync, rebuild
 * and score the same way. The names are constants of this file, never input.
 */
export interface VectorSource {
  /** What one row is, in warnings ("vector of memory 12 not indexed"). */
  readonly noun: string;
  /** Added to the index file's name: `<space><fileSuffix>.hnsw`. */
  readonly fileSuffix: string;
  /** The change sequence (one row, id 1) and the per-row change marks of the triggers. */
  readonly seqTable: string;
  readonly dirtyTable: string;
  /** The rows that own vectors, by integer `rid` (the vector's label), aliased `m` in the statements. */
  readonly table: string;
  /** Which of those rows are live (searchable), over alias `m`. */
  readonly live: string;
  /** The vector table, aliased `e`: its space column, its blob column, and how a row of it belongs to `m`. */
  readonly vectors: { table: string; space: string; blob: string; joins: string };
}

/** Memories: vectors in `embeddings` by text hash (migrations/0002_vectors.sql). */
export const MEMORY_VECTORS: VectorSource = {
  noun: 'memory',
  fileSuffix: '',
  seqTable: 'vector_seq',
  dirtyTable: 'vector_dirty',
  table: 'memories',
  live: 'm.deleted_at IS NULL',
  vectors: { table: 'embeddings', space: 'space', blob: 'vector', joins: 'e.text_hash = m.embedding_hash' },
};

/** Chunks of agent sessions: one vector per chunk and space in `chunks_vec` (migrations/0005_sessions.sql). */
export const CHUNK_VECTORS: VectorSource = {
  noun: 'session chunk',
  fileSuffix: '.chunks',
  seqTable: 'chunk_vector_seq',
  dirtyTable: 'chunk_vector_dirty',
  table: 'chunks',
  live: '1',
  vectors: { table: 'chunks_vec', space: 'embedding_model', blob: 'embedding_blob', joins: 'e.chunk_id = m.chunk_id' },
};

/** `<vectors table> e ON e.<space> = ? AND <join>`: the vectors of `m` in the space bound as the parameter. */
export function vectorJoin(s: VectorSource): string {
  return `${s.vectors.table} e ON e.${s.vectors.space} = ? AND ${s.vectors.joins}`;
}

/** Whose vectors in which space: what the reads of changes.ts and storedSimilarities.ts are about. */
export interface VectorScope {
  space: string;
  dim: number;
  /** Default: the memories. */
  source?: VectorSource;
}
