/** Vector store: HNSW per embedding space wired to the durable store, plus background re-embedding. */
export { VectorStore, snapshotWithVectors, type VectorStoreOptions, type VectorStoreState, type VectorStoreStats } from './vectorStore';
export { DEFAULT_VECTOR_PARAMS, type PreparedEmbedding, type VectorIndexParams, type VectorSearcher } from './types';
export { currentVectorSeq, liveVectorCount } from './changes';
export { blobToVector, vectorToBlob } from './blob';
