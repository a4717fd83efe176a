/** The read path's public shapes: what a search asks for and what it answers. */
import type { Embedder } from '../embed/types';
import type { MemoryScope, MemorySummary } from '../memory/types';
import type { SearchEvidence } from './evidence';

export type { SearchEvidence };

/**
 * The vector leg's view of a vector store (implemented by src/core/vectorstore; tests and
 * benchmarks use {@link IndexVectorSearcher} over an ExactIndex/HnswIndex). `rid` is the
 * memories.rid of the memory a vector belongs to; similarity is cosine (1 … −1).
 */
export interface VectorSearcher {
  readonly space: string;
  readonly dimension: number;
  /** Live vectors it can find; 0 lets a search skip embedding its query. Absent: not known. */
  readonly size?: number;
  search(query: Float32Array, k: number, filter?: (rid: number) => boolean): { rid: number; similarity: number }[];
  similarities(query: Float32Array, rids: number[]): Map<number, number>;
  /** Stored vectors of live memories (absent: none); used by vector feedback. */
  vectorsOf?(rids: number[]): Map<number, Float32Array>;
}

/** `minmax` (default): scale each leg to [0,1] over the candidate union.
 *  `inverse`: text = 1/(1+|bm25|), vector = cosine clamped to [0,1].
 *  `saturate`: text = |bm25|/(1+|bm25|) (bounded, keeps the keyword order), vector as `inverse`. */
export type Normalization = 'minmax' | 'inverse' | 'saturate';

export type MatchType = 'hybrid' | 'vector' | 'keyword';

/** Graph boost (docs/pipeline.md "Knowledge graph"): ids to boost, computed under a deadline. */
export type GraphBoostProvider = (query: string, deadlineMs: number) => { memoryIds: Set<string>; timedOut: boolean };

export interface SearchFilters {
  /** Memory types to keep (any of). */
  types?: string[];
  scope?: MemoryScope;
  /** Every listed tag must be present. */
  tags?: string[];
  /**
   * Written at or after this instant (an ISO date-time; a date alone is midnight UTC). Applied in
   * SQL by both legs, like the other filters, so a date-limited search still finds `limit` hits.
   */
  createdAfter?: string;
  /** Written before this instant (ISO, as createdAfter). */
  createdBefore?: string;
}

export interface SearchRequest extends SearchFilters {
  query: string;
  /** Default `search.default_limit` (20); more than `search.max_limit` (100) is an error. */
  limit?: number;
  /** Results whose final score is below this are dropped (0…1). Default 0. */
  minScore?: number;
  /** Ask for the graph boost (used only when a provider is configured). */
  graphBoost?: boolean;
  /** Skip the reranker for this request even when one is configured. */
  noRerank?: boolean;
  /**
   * The relevance floor of this request instead of the settings' (0…1; docs/recall.md "The floor").
   * Query expansion asks for the query's related memories below the floor (queryExpansion.ts).
   */
  minRelevance?: number;
  /**
   * Also read each result's whole content (SearchResult.content), in the one statement that
   * reads the results' rows: for callers that show it (the engine's search), instead of reading
   * every hit again. Without it only the summary's preview is copied out of sql.js.
   */
  withContent?: boolean;
}

export interface SearchResult {
  /** memories.rid of the result (the engine records accesses by it). */
  rid: number;
  memory: MemorySummary;
  /** The whole content, when the request asked for it (SearchRequest.withContent). */
  content?: string;
  /**
   * Normalized vector score (0 when the memory has no vector in this space or the leg was off);
   * with vector feedback on (settings.feedbackDocs), of the cosine with the moved query.
   */
  vectorScore: number;
  /** Normalized full-text score (0 when the text did not match). */
  textScore: number;
  /** Added by the graph boost (0 when not boosted). */
  graphBoost: number;
  /** Added because the memory was written on a date the query names (settings.dateBoost; 0 when not). */
  dateBoost: number;
  /**
   * What the list is ranked by: the relevance (settings.ranking 'relevance', the default), or
   * weights · (vectorScore, textScore) + dateBoost + graphBoost under the min-max 'hybrid' ranking
   * kept for measurements. A reranker may reorder results, not rescore them.
   */
  finalScore: number;
  /** Which legs found it: full-text MATCH, vector top-k, or both. */
  matchType: MatchType;
  /** Cosine with the query (absent without a vector leg or a vector for this memory). */
  similarity?: number;
  /**
   * Absolute relevance 0…1, comparable across queries and stores (relevance.ts, docs/recall.md);
   * results are ranked by it, so it never rises down the list.
   */
  relevance: number;
  /** The query's words (and quoted phrases) this memory contains in its own text, in query order. */
  matchedTerms: string[];
  /** What the relevance is made of (shown on hover and in --json). */
  evidence: SearchEvidence;
}

export interface SearchTimings {
  /** Query embedding (not part of the search latency). */
  embedMs: number;
  /** Everything else: both legs, fusion, boost, rerank, hydration. */
  searchMs: number;
}

export interface SearchResponse {
  results: SearchResult[];
  /** Degradations that did not fail the search (embedding failed, graph boost timed out, …). */
  warnings: string[];
  /** Which legs ran. */
  legs: { keyword: boolean; vector: boolean };
  timings: SearchTimings;
}

export interface SearchSettings {
  /** `search.vector_weight`. */
  vectorWeight: number;
  /** `search.keyword_weight`. */
  keywordWeight: number;
  normalization: Normalization;
  defaultLimit: number;
  maxLimit: number;
  /** `search.min_score`: default for requests that do not give one. */
  minScore: number;
  /** Candidates fetched per leg = max(limit × this, minCandidates). */
  candidateMultiplier: number;
  minCandidates: number;
  /** memory.pipelineV2.graphBoostWeight. */
  graphBoostWeight: number;
  /** memory.pipelineV2.graphBoostTimeoutMs. */
  graphBoostTimeoutMs: number;
  /** Drop English stop-words from the query before embedding it (measured on LoCoMo). */
  queryStopwords: boolean;
  /**
   * 'relevance' (default): results ranked by the one relevance (relevance.ts), which people see.
   * 'hybrid': the min-max fusion of both legs (fuse.ts) plus the date boost, kept for A/B
   * measurements; its order and the relevance shown disagree.
   */
  ranking: 'relevance' | 'hybrid';
  /** Drop candidates whose relevance is below `minRelevance` (relevance.ts). Off only for measurements. */
  relevanceFloor: boolean;
  /** The floor itself (default RELEVANCE_FLOOR). */
  minRelevance: number;
  /**
   * The floor for a query none of whose words the store holds anywhere (default
   * UNKNOWN_QUERY_FLOOR): only meaning can then match, and it must be strong.
   */
  minRelevanceUnknown: number;
  /** Override the embedder's calibrated cosines (calibration runs, bench/locomo/calibrate.ts). */
  vectorFloor?: number;
  vectorStrong?: number;
  /** Dynamic stop-words (commonTerms.ts): drop query terms in more than this share of rows… (0 = off) */
  commonTermShare: number;
  /** …once the store has at least this many memories. */
  commonTermMinRows: number;
  /** Add adjacent word pairs as phrases to the full-text query (ftsQuery `pairs`). */
  phrasePairs: boolean;
  /** Score keyword-only candidates on the vector leg (exact cosine). */
  fillVectorScores: boolean;
  /** Score vector-only candidates on the keyword leg (BM25 restricted to them). */
  fillTextScores: boolean;
  /**
   * Keyword top-k by the exact pruned method (fullTextRank.ts) instead of ranking every matching
   * row: same results, fewer rows scored. Off only for A/B measurements.
   */
  fullTextPruning: boolean;
  /**
   * Vector feedback (Rocchio, feedback.ts): the best this many fused results of a first pass
   * move the query vector, then the search runs again with it (0 = off)…
   */
  feedbackDocs: number;
  /** …with this weight for the mean of their unit vectors, relative to the unit query. */
  feedbackWeight: number;
  /** Remove question marks from the query before embedding it (embed/queryText.ts). */
  queryStripQuestionMarks: boolean;
  /**
   * Leave out of the EMBEDDED query the words found in more than this share of the store's
   * memories (0 = off; the full-text query keeps them; one is kept if all are common)…
   */
  queryCommonShare: number;
  /** …once the store has at least this many memories. */
  queryCommonMinRows: number;
  /**
   * Also embed the query as written (question marks removed, stop-words and common words kept)
   * and search with the mean of the two unit vectors (one more query embedding per search).
   */
  queryRawView: boolean;
  /**
   * Added to the fused score of memories written on a date the query names ("on 21 May, 2023",
   * "in July 2023", "in 2024"; queryDates.ts). 0 = off.
   */
  dateBoost: number;
  /** Each named day, month or year is widened by this many days on both sides (time zones). */
  dateSlackDays: number;
}

export interface HybridSearchDeps {
  /** Project whose memories are searched (memories.project_id). */
  projectId: string;
  embedder?: Embedder;
  vectors?: VectorSearcher;
  graphBoost?: GraphBoostProvider;
  settings?: Partial<SearchSettings>;
  /** Injectable clock (expiry is judged against it). */
  now?: () => Date;
  /** Told which memories a search returned, after the results are built (lifecycle bookkeeping). */
  access?: { record(rids: Iterable<number>): void };
  /** Optional reranking, docs/recall.md (off when absent). */
  reranker?: { provider: import('./rerank').RerankProvider; config?: Partial<import('./rerank').RerankConfig> };
}
