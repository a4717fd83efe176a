/** The read path: hybrid recall (full text + vectors), fusion, graph boost, reranking. */
export { HybridSearch, MAX_QUERY_CHARS } from './hybrid';
export { IndexVectorSearcher } from './indexSearcher';
export { DEFAULT_SEARCH_SETTINGS, resolveSearchSettings, searchSettingsFromConfig } from './settings';
export { fuse, minMax, inverseBm25, saturateBm25, clampCosine, effectiveWeights, compareRanked, type Candidate, type Fused } from './fuse';
export {
  rerank,
  noopReranker,
  DEFAULT_RERANK_CONFIG,
  type RerankCandidate,
  type RerankConfig,
  type RerankProvider,
  type RerankOutcome,
} from './rerank';
export { buildMemoryFilter, type WhereClause } from './filters';
export { fullTextSearch, fullTextScores, ftsExpression, type TextHit } from './fullText';
export { buildFtsQuery, parseFtsTerms } from './ftsQuery';
export { registerBm25, bm25Relevance } from './bm25';
export type * from './types';
export { llmReranker, rerankPrompt } from './llmRerank';
