/**
 * Score normalization and the weighted merge of the two legs over the candidate UNION.
 *
 *   minmax   (default): each leg scaled to [0,1] over the candidates that leg scored:
 *            (s − min) / (max − min); all-equal → 1. Unscored → 0.
 *   inverse  text = 1 / (1 + |bm25|); vector = cosine clamped to [0,1].
 *            NOTE: this map DEcreases as |bm25| grows, so it inverts the keyword ranking;
 *            kept for the measurement that documents why it is not the default.
 *   saturate text = |bm25| / (1 + |bm25|): a bounded, per-query-independent map that keeps
 *            the keyword order; vector as `inverse`.
 * final = wV·vector + wK·text (docs/recall.md). When one leg did not run at all, its weight goes to
 * the other so scores stay on the same 0…1 scale for `min_score`.
 */
import type { MatchType, Normalization } from './types';
import { inDateWindows, type DateWindow } from './queryDates';

export interface Candidate {
  rid: number;
  id: string;
  createdAt: string;
  /** Positive BM25 relevance when the full-text query matched this memory. */
  bm25?: number;
  /** Cosine similarity when this memory has a vector in the active space. */
  similarity?: number;
  /** Found by the full-text MATCH. */
  keywordHit: boolean;
  /** Found in the vector leg's top-k. */
  vectorHit: boolean;
}

export interface Fused extends Candidate {
  textScore: number;
  vectorScore: number;
  /** Weighted sum (date boost included, see {@link applyDateBoost}) before any graph boost. */
  hybridScore: number;
  /** Added to hybridScore because the memory was written on a date the query names (0: not). */
  dateBoost: number;
  matchType: MatchType;
}

export interface FuseWeights {
  vector: number;
  keyword: number;
}

/** The `inverse` map (docs/recall.md): kept to document why it is not used. */
export function inverseBm25(score: number): number {
  return 1 / (1 + Math.abs(score));
}

export function saturateBm25(score: number): number {
  const a = Math.abs(score);
  return a / (1 + a);
}

export function clampCosine(similarity: number): number {
  return Math.min(1, Math.max(0, similarity));
}

/** Min-max scaling of the defined entries; undefined stays undefined. */
export function minMax(values: readonly (number | undefined)[]): (number | undefined)[] {
  let lo = Infinity;
  let hi = -Infinity;
  for (const v of values) {
    if (v === undefined) continue;
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  const span = hi - lo;
  return values.map((v) => (v === undefined ? undefined : span > 0 ? (v - lo) / span : 1));
}

function normalizeText(values: (number | undefined)[], mode: Normalization): (number | undefined)[] {
  if (mode === 'minmax') return minMax(values);
  const f = mode === 'inverse' ? inverseBm25 : saturateBm25;
  return values.map((v) => (v === undefined ? undefined : f(v)));
}

function normalizeVector(values: (number | undefined)[], mode: Normalization): (number | undefined)[] {
  return mode === 'minmax' ? minMax(values) : values.map((v) => (v === undefined ? undefined : clampCosine(v)));
}

/** Weights of the legs that ran, rescaled to sum 1 (a leg that did not run gets 0). */
export function effectiveWeights(w: FuseWeights, legs: { keyword: boolean; vector: boolean }): FuseWeights {
  const v = legs.vector ? Math.max(0, w.vector) : 0;
  const k = legs.keyword ? Math.max(0, w.keyword) : 0;
  const sum = v + k;
  if (sum <= 0) return legs.vector ? { vector: 1, keyword: 0 } : { vector: 0, keyword: 1 };
  return { vector: v / sum, keyword: k / sum };
}

export function fuse(
  cands: readonly Candidate[],
  weights: FuseWeights,
  mode: Normalization,
  legs: { keyword: boolean; vector: boolean },
): Fused[] {
  const w = effectiveWeights(weights, legs);
  const text = normalizeText(
    cands.map((c) => (c.bm25 !== undefined && c.bm25 > 0 ? c.bm25 : undefined)),
    mode,
  );
  const vec = normalizeVector(
    cands.map((c) => c.similarity),
    mode,
  );
  const out = new Array<Fused>(cands.length);
  for (let i = 0; i < cands.length; i++) {
    const c = cands[i]!;
    const textScore = text[i] ?? 0;
    const vectorScore = legs.vector ? (vec[i] ?? 0) : 0;
    out[i] = fused(c, textScore, vectorScore, w.vector * vectorScore + w.keyword * textScore, 0);
  }
  return out;
}

/**
 * One fused candidate, every field written in the same order: `{ ...c, … }` per candidate (and
 * again per boost) copied through V8's generic spread path and left objects of several shapes;
 * the spreads cost young-generation GC time (bench/RESULTS-design-notes.md).
 */
function fused(c: Candidate, textScore: number, vectorScore: number, hybridScore: number, dateBoost: number): Fused {
  return {
    rid: c.rid,
    id: c.id,
    createdAt: c.createdAt,
    bm25: c.bm25,
    similarity: c.similarity,
    keywordHit: c.keywordHit,
    vectorHit: c.vectorHit,
    textScore,
    vectorScore,
    hybridScore,
    dateBoost,
    matchType: matchTypeOf(c),
  };
}

/** Which legs found the candidate (a boosted copy keeps its hits, so the same answer as before the boost). */
function matchTypeOf(c: Candidate): MatchType {
  return c.keywordHit && c.vectorHit ? 'hybrid' : c.keywordHit ? 'keyword' : 'vector';
}

/**
 * The date boost: `weight` added to the hybrid score of every candidate whose created_at falls
 * inside one of the windows the query names (queryDates.ts), each widened by `slackMs` on both
 * sides (time zones: a memory written late on 20 May in UTC+2 is stored as 20 May UTC, one
 * asked about "21 May" may be stored on the 20th or 22nd). No windows or weight 0: unchanged.
 */
export function applyDateBoost(fused: Fused[], windows: readonly DateWindow[], weight: number, slackMs: number): Fused[] {
  if (windows.length === 0 || !(weight > 0)) return fused;
  return fused.map((c) => (inDateWindows(c.createdAt, windows, slackMs) ? withDateBoost(c, weight) : c));
}

function withDateBoost(c: Fused, weight: number): Fused {
  return fused(c, c.textScore, c.vectorScore, c.hybridScore + weight, weight);
}

/** Best first; equal scores → newer first (created_at), then higher rid (inserted later). */
export function compareRanked(
  a: { finalScore: number; createdAt: string; rid: number },
  b: { finalScore: number; createdAt: string; rid: number },
): number {
  return compareScored(a.finalScore, a, b.finalScore, b);
}

/** compareRanked with the scores given apart (e.g. hybridScore before any boost), no object copies. */
export function compareScored(
  sa: number,
  a: { createdAt: string; rid: number },
  sb: number,
  b: { createdAt: string; rid: number },
): number {
  if (sa !== sb) return sb - sa;
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt ? 1 : -1;
  return b.rid - a.rid;
}
