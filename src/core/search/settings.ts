/**
 * Defaults of the read path (the search.* tunables and the graph boost), and their checks.
 *
 * Fusion defaults were chosen by measurement on LoCoMo (bench/locomo/RESULTS.md): see there for
 * the figures behind `normalization` and the weights.
 */
import type { SearchSettings } from './types';
import { RELEVANCE_FLOOR, UNKNOWN_QUERY_FLOOR } from './relevance';

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
  ranking: 'relevance',
  relevanceFloor: true,
  minRelevance: RELEVANCE_FLOOR,
  minRelevanceUnknown: UNKNOWN_QUERY_FLOOR,
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
  // that are in more than a tenth of the store's memories (the middle of the plateau 0.075–0.15
  // with today's read path; 0.2 kept a common word in the query: RESULTS.md "The embedded query's
  // common words").
  queryStripQuestionMarks: true,
  queryCommonShare: 0.1,
  queryCommonMinRows: 200,
  // …and the mean with the query as written (question marks removed): better at every depth.
  queryRawView: true,
  // A memory written on a date the query names gets +0.2 (RESULTS.md round 3).
  dateBoost: 0.2,
  dateSlackDays: 1,
};

type NumericKey = Exclude<{ [K in keyof SearchSettings]: SearchSettings[K] extends number ? K : never }[keyof SearchSettings], undefined>;

function bad(key: string, why: string): never {
  throw new RangeError(`search setting ${key} ${why}`);
}

/** A number from 0 to 1. */
function checkUnit(s: SearchSettings, key: NumericKey): void {
  const v = s[key];
  if (!Number.isFinite(v) || v < 0 || v > 1) bad(key, `must be a number from 0 to 1, got ${String(v)}`);
}

/** A whole number ≥ `min`. */
function checkWhole(s: SearchSettings, key: NumericKey, min: number): void {
  const v = s[key];
  if (!Number.isInteger(v) || v < min) bad(key, `must be a whole number ≥ ${min}, got ${String(v)}`);
}

/** A finite number ≥ `min` (`what`: how the message names it, 'a number ' or nothing). */
function checkAtLeast(s: SearchSettings, key: NumericKey, min: number, what: string): void {
  const v = s[key];
  if (!Number.isFinite(v) || v < min) bad(key, `must be ${what}≥ ${min}, got ${String(v)}`);
}

export function resolveSearchSettings(partial: Partial<SearchSettings> = {}): SearchSettings {
  const s: SearchSettings = { ...DEFAULT_SEARCH_SETTINGS };
  for (const [k, v] of Object.entries(partial)) if (v !== undefined) (s as unknown as Record<string, unknown>)[k] = v;
  for (const key of ['vectorWeight', 'keywordWeight', 'graphBoostWeight', 'dateBoost'] as const) checkUnit(s, key);
  if (s.vectorWeight + s.keywordWeight <= 0) bad('vectorWeight + keywordWeight', 'must be above 0');
  if (!['minmax', 'inverse', 'saturate'].includes(s.normalization))
    bad('normalization', `must be minmax, inverse or saturate, got ${String(s.normalization)}`);
  for (const key of ['defaultLimit', 'maxLimit', 'minCandidates'] as const) checkWhole(s, key, 1);
  if (s.defaultLimit > s.maxLimit) bad('defaultLimit', `(${s.defaultLimit}) must not exceed maxLimit (${s.maxLimit})`);
  checkUnit(s, 'commonTermShare');
  checkUnit(s, 'minRelevance');
  checkUnit(s, 'minRelevanceUnknown');
  if (s.ranking !== 'relevance' && s.ranking !== 'hybrid') bad('ranking', `must be relevance or hybrid, got ${String(s.ranking)}`);
  checkUnit(s, 'queryCommonShare');
  checkWhole(s, 'queryCommonMinRows', 0);
  checkAtLeast(s, 'dateSlackDays', 0, 'a number ');
  checkAtLeast(s, 'minScore', 0, 'a number ');
  checkAtLeast(s, 'candidateMultiplier', 1, '');
  checkWhole(s, 'feedbackDocs', 0);
  checkAtLeast(s, 'feedbackWeight', 0, 'a number ');
  checkAtLeast(s, 'graphBoostTimeoutMs', 1, '');
  for (const key of ['vectorFloor', 'vectorStrong'] as const) {
    const v = s[key];
    if (v !== undefined && !(v >= -1 && v <= 1)) bad(key, `must be a cosine from -1 to 1, got ${String(v)}`);
  }
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
