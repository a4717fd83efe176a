/**
 * Defaults of the read path (the search.* tunables and the graph boost), and their checks.
 *
 * Fusion defaults were chosen by measurement on LoCoMo (bench/locomo/RESULTS.md): see there for
 * the figures behind `normalization` and the weights.
 */
import type { SearchSettings } from './types';

export const DEFAULT_SEARCH_SETTINGS: SearchSettings = {
  // 0.5/0.5 rather than 0.7/0.3: with the offline default embedder (USE-lite) the vector leg is
  // the weaker one (measured on LoCoMo: bench/locomo/RESULTS.md).
  vectorWeight: 0.5,
  keywordWeight: 0.5,
  normalization: 'minmax',
  defaultLimit: 20,
  maxLimit: 100,
  minScore: 0,
  candidateMultiplier: 3,
  minCandidates: 50,
  graphBoostWeight: 0.15,
  graphBoostTimeoutMs: 500,
  queryStopwords: true,
  commonTermShare: 0.05,
  commonTermMinRows: 20_000,
  phrasePairs: false,
  fillVectorScores: true,
  fillTextScores: true,
  fullTextPruning: true,
  // Rocchio on the vector leg: off. With the cleaner query text below it costs recall at @10 (it
  // narrows multi-hop questions to one topic; bench/locomo/RESULTS.md round 3). 0.7 is the weight
  // to use when turning it on.
  feedbackDocs: 0,
  feedbackWeight: 0.7,
  // Query text for the embedder (bench/locomo/RESULTS.md round 3): no question marks, and no words
  // that are in more than a fifth of the store's memories (the middle of a plateau).
  queryStripQuestionMarks: true,
  queryCommonShare: 0.2,
  queryCommonMinRows: 200,
  // …and the mean with the query as written (question marks removed): better at every depth.
  queryRawView: true,
  // A memory written on a date the query names gets +0.2 (RESULTS.md round 3).
  dateBoost: 0.2,
  dateSlackDays: 1,
};

export function resolveSearchSettings(partial: Partial<SearchSettings> = {}): SearchSettings {
  const s: SearchSettings = { ...DEFAULT_SEARCH_SETTINGS };
  for (const [k, v] of Object.entries(partial)) if (v !== undefined) (s as unknown as Record<string, unknown>)[k] = v;
  const bad = (key: string, why: string): never => {
    throw new RangeError(`search setting ${key} ${why}`);
  };
  for (const key of ['vectorWeight', 'keywordWeight', 'graphBoostWeight', 'dateBoost'] as const) {
    if (!Number.isFinite(s[key]) || s[key] < 0 || s[key] > 1) bad(key, `must be a number from 0 to 1, got ${String(s[key])}`);
  }
  if (s.vectorWeight + s.keywordWeight <= 0) bad('vectorWeight + keywordWeight', 'must be above 0');
  if (!['minmax', 'inverse', 'saturate'].includes(s.normalization))
    bad('normalization', `must be minmax, inverse or saturate, got ${String(s.normalization)}`);
  for (const key of ['defaultLimit', 'maxLimit', 'minCandidates'] as const) {
    if (!Number.isInteger(s[key]) || s[key] < 1) bad(key, `must be a whole number ≥ 1, got ${String(s[key])}`);
  }
  if (s.defaultLimit > s.maxLimit) bad('defaultLimit', `(${s.defaultLimit}) must not exceed maxLimit (${s.maxLimit})`);
  if (!Number.isFinite(s.commonTermShare) || s.commonTermShare < 0 || s.commonTermShare > 1)
    bad('commonTermShare', `must be a number from 0 to 1, got ${String(s.commonTermShare)}`);
  if (!Number.isFinite(s.queryCommonShare) || s.queryCommonShare < 0 || s.queryCommonShare > 1)
    bad('queryCommonShare', `must be a number from 0 to 1, got ${String(s.queryCommonShare)}`);
  if (!Number.isInteger(s.queryCommonMinRows) || s.queryCommonMinRows < 0)
    bad('queryCommonMinRows', `must be a whole number ≥ 0, got ${String(s.queryCommonMinRows)}`);
  if (!Number.isFinite(s.dateSlackDays) || s.dateSlackDays < 0)
    bad('dateSlackDays', `must be a number ≥ 0, got ${String(s.dateSlackDays)}`);
  if (!Number.isFinite(s.minScore) || s.minScore < 0) bad('minScore', `must be a number ≥ 0, got ${String(s.minScore)}`);
  if (!Number.isFinite(s.candidateMultiplier) || s.candidateMultiplier < 1)
    bad('candidateMultiplier', `must be ≥ 1, got ${String(s.candidateMultiplier)}`);
  if (!Number.isInteger(s.feedbackDocs) || s.feedbackDocs < 0)
    bad('feedbackDocs', `must be a whole number ≥ 0, got ${String(s.feedbackDocs)}`);
  if (!Number.isFinite(s.feedbackWeight) || s.feedbackWeight < 0)
    bad('feedbackWeight', `must be a number ≥ 0, got ${String(s.feedbackWeight)}`);
  if (!Number.isFinite(s.graphBoostTimeoutMs) || s.graphBoostTimeoutMs < 1)
    bad('graphBoostTimeoutMs', `must be ≥ 1, got ${String(s.graphBoostTimeoutMs)}`);
  return s;
}

/** The engine's agent.yaml values (src/core/config) as search settings. */
export function searchSettingsFromConfig(cfg: {
  search: { vector_weight: number; keyword_weight: number; default_limit: number; max_limit: number; min_score: number };
  memory: { pipelineV2: { graphBoostWeight: number; graphBoostTimeoutMs: number } };
}): Partial<SearchSettings> {
  return {
    vectorWeight: cfg.search.vector_weight,
    keywordWeight: cfg.search.keyword_weight,
    defaultLimit: cfg.search.default_limit,
    maxLimit: cfg.search.max_limit,
    minScore: cfg.search.min_score,
    graphBoostWeight: cfg.memory.pipelineV2.graphBoostWeight,
    graphBoostTimeoutMs: cfg.memory.pipelineV2.graphBoostTimeoutMs,
  };
}
