/** Vector index layer: HNSW (hnswlib-wasm) + exact fallback + durable index files. Host-agnostic. */
export { loadHnswlib, setHnswlibLogSink, HnswlibRuntime } from './hnswlib';
export { HnswIndex, HNSW_DEFAULTS, type HnswParams } from './hnswIndex';
export { ExactIndex, type ExactParams } from './exactIndex';
export {
  saveIndexFile,
  loadIndexFile,
  readIndexFileInfo,
  removeStaleIndexTemps,
  INDEX_FILE_VERSION,
  type IndexFileInfo,
  type LoadIndexOptions,
  type SaveIndexOptions,
} from './indexFile';
export { CorruptIndexError, HnswlibError, type CorruptIndexReason } from './errors';
export { recallAtK } from './recall';
export { type VectorHit, type VectorIndex, type LabelFilter, type VectorSpace, MAX_LABEL } from './types';
