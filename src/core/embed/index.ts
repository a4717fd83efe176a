/** Embedding providers: one {@link Embedder} interface, three implementations, a cache, a chooser. */
export { EmbedderError, spaceName, type EmbedKind, type Embedder, type EmbedderErrorCode } from './types';
export { cosine, dot, l2normalize, toUnitFloat32 } from './vector';
export { ENGLISH_STOPWORDS, removeStopwords } from './stopwords';
export { fmix32, fnv1a32 } from './hashing';
export { HASH_EMBEDDER_VERSION, HashEmbedder, type HashEmbedderOptions } from './hashEmbedder';
export {
  UseLiteEmbedder,
  defaultUseLiteWorkerPath,
  useLiteMissing,
  prepareUseLiteText,
  type UseLiteEmbedderOptions,
  type UseLiteLoadInfo,
  type UseLiteStats,
} from './useLite';
export {
  DEFAULT_OLLAMA_HOST,
  OllamaError,
  createOllamaFetch,
  normalizeOllamaHost,
  refusedConnection,
  toOllamaError,
  type OllamaErrorCode,
  type OllamaFetchOptions,
} from './ollamaHttp';
export {
  DEFAULT_OLLAMA_EMBED_MODEL,
  OllamaEmbedder,
  canonicalModelName,
  type EnsureModelResult,
  type OllamaEmbedderOptions,
  type OllamaProbe,
  type PullProgress,
} from './ollama';
export { CachedEmbedder, EmbeddingCache, embedTextHash, type EmbeddingCacheOptions, type EmbeddingCacheStats } from './cache';
export {
  DEFAULT_BUILTIN_IDLE_MS,
  selectEmbedder,
  type EmbedderSelection,
  type EmbeddingProviderSetting,
  type SelectEmbedderConfig,
} from './select';
export { installNetworkGuard, NetworkBlockedError, type NetworkAttempt, type NetworkGuard } from './networkGuard';
