/**
 * Absolute relevance of a search result (docs/recall.md "Relevance"). The hybrid ranking
 * (fuse.ts) min-max scales each leg over the candidates of one search, so its scores only order
 * one result list: the best candidate of a nonsense query still scores 1. This module answers
 * the two questions that ranking cannot:
 *
 * - the floor: does a candidate have any evidence at all? Either a keyword match on a word that
 *   is not a stop-word, or a cosine with the query at or above the embedder's calibrated floor;
 * - the relevance people see: one number 0…1 built from absolute signals (the share of the
 *   query's words the memory contains, the cosine relative to the embedder's calibration), so
 *   it means the same on every query and in both stores.
 */
import type { Store } from '../store/store';
import type { FullTextLeg } from './fullTextExact';
import { termsPresent } from './termPresence';
import { FTS_MAX_TERMS, parseFtsTerms, STOP_WORDS } from './ftsQuery';

/**
 * Where an embedder's cosine stops meaning anything: `floor`, the cosine a result needs when no
 * keyword matched (above what off-topic queries reach), and `strong`, a cosine that counts as
 * fully related. Measured on LoCoMo with bench/locomo/calibrate.ts (bench/RESULTS-relevance.md).
 */
export interface VectorCalibration {
  floor: number;
  strong: number;
  /** 'measured' (bench/RESULTS-relevance.md) or 'provisional' (not measured on this machine). */
  source: 'measured' | 'provisional';
}

/** Calibrations by embedder id prefix (Embedder.id: 'builtin:use-lite', 'hash:3', 'ollama:nomic-embed-text'). */
const CALIBRATIONS: readonly { prefix: string; calibration: VectorCalibration }[] = [
  { prefix: 'builtin:use-lite', calibration: { floor: 0.45, strong: 0.8, source: 'measured' } },
  { prefix: 'hash:', calibration: { floor: 0.3, strong: 0.7, source: 'measured' } },
  { prefix: 'ollama:nomic-embed-text', calibration: { floor: 0.6, strong: 0.85, source: 'provisional' } },
];

/** An embedder nobody calibrated: a strict floor, so unknown models fail closed rather than return everything. */
export const UNCALIBRATED: VectorCalibration = { floor: 0.6, strong: 0.85, source: 'provisional' };

export function vectorCalibration(embedderId: string | undefined): VectorCalibration {
  if (embedderId === undefined) return UNCALIBRATED;
  return CALIBRATIONS.find((c) => embedderId.startsWith(c.prefix))?.calibration ?? UNCALIBRATED;
}

/** A query term a keyword match can count for: `rendered` is its MATCH form, `label` what people read. */
export interface ContentTerm {
  rendered: string;
  label: string;
}

/**
 * The query's words that are not stop-words, its prefixes (`auth*`) and quoted phrases, in
 * order, without repeats. Empty when the query is only stop-words ("what is it"): the keyword
 * leg then searches the stop-words, and such matches do not clear the floor.
 */
export function contentTerms(query: string): ContentTerm[] {
  const out: ContentTerm[] = [];
  const seen = new Set<string>();
  for (const t of parseFtsTerms(query)) {
    if (t.kind === 'word' && STOP_WORDS.has(t.text)) continue;
    const label = t.kind === 'phrase' ? t.words.join(' ') : t.text;
    const rendered = t.kind === 'prefix' ? `"${label}*"` : `"${label}"`;
    if (seen.has(rendered)) continue;
    seen.add(rendered);
    out.push({ rendered, label });
    if (out.length >= FTS_MAX_TERMS) break;
  }
  return out;
}

/**
 * Which of `terms` each memory in `rids` contains, stemmed like the keyword leg ("deploy" matches
 * "deploying"; identifiers with digits exactly, fullTextExact.ts). The keyword leg answers for the
 * terms it searched (`leg.held`: no further query); the rest (very common words the leg left
 * out, identifier terms, an unpruned leg) are looked for in the memories' own tokens
 * (termPresence.ts), in labels in the query's order.
 */
export function matchedTerms(
  store: Store,
  terms: readonly ContentTerm[],
  rids: readonly number[],
  leg?: Pick<FullTextLeg, 'held' | 'heldTerms'>,
): Map<number, string[]> {
  const out = new Map<number, string[]>();
  if (terms.length === 0 || rids.length === 0) return out;
  const answered = new Set(leg?.held ? leg.heldTerms : []);
  const fromLeg = terms.some((t) => answered.has(t.rendered)) ? leg!.held!(rids) : new Map<number, Set<string>>();
  const rest = terms.filter((t) => !answered.has(t.rendered)).map((t) => t.rendered);
  const fromText = termsPresent(store, rest, rids);
  for (const rid of rids) {
    const a = fromLeg.get(rid);
    const b = fromText.get(rid);
    if (!a && !b) continue;
    const labels = terms.filter((t) => (answered.has(t.rendered) ? a?.has(t.rendered) : b?.has(t.rendered))).map((t) => t.label);
    if (labels.length) out.set(rid, labels);
  }
  return out;
}

/** Whether a candidate clears the floor (see the file header); `vectorFloor` undefined: the vector leg did not run. */
export function clearsFloor(c: { bm25?: number; similarity?: number }, keywordCounts: boolean, vectorFloor: number | undefined): boolean {
  if (keywordCounts && c.bm25 !== undefined && c.bm25 > 0) return true;
  return vectorFloor !== undefined && c.similarity !== undefined && c.similarity >= vectorFloor;
}

/**
 * The relevance people see, 0…1: keyword evidence k = 0.5 + 0.5 × (share of the query's content
 * terms the memory contains), 0 without a match; vector evidence v = the cosine placed between
 * the embedder's floor (0) and its `strong` cosine (1), clamped; relevance = 1 − (1 − k)(1 − v),
 * so either kind of evidence alone can carry a result and both together rank higher.
 */
export function relevanceOf(matched: number, total: number, similarity: number | undefined, cal: VectorCalibration | undefined): number {
  const k = matched > 0 && total > 0 ? 0.5 + (0.5 * Math.min(matched, total)) / total : 0;
  const v = cal && similarity !== undefined ? Math.min(1, Math.max(0, (similarity - cal.floor) / (cal.strong - cal.floor))) : 0;
  return 1 - (1 - k) * (1 - v);
}
