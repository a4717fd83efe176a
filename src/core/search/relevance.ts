/**
 * The one relevance of a search result (docs/recall.md "Relevance"): a number 0…1 built from
 * absolute evidence, so that 80 % means the same on every query and in both stores. Results are
 * ranked by it (hybrid.ts), so the relevance people see decreases down every list, and a result
 * needs RELEVANCE_FLOOR of it to be shown at all: "no relevant memories" is a correct answer.
 *
 * Evidence:
 * - keyword k: the share of the query's information the memory matches. Each query unit weighs
 *   its idf in this store (termStats.ts): a word in many memories weighs little, a rare word, an
 *   exact identifier or a word no memory holds weighs a lot. Units are the query's content words
 *   (matched in the memory's own text, or at CONTEXT_SHARE in its search context: the previous
 *   turn, a heading path), a date it names (matched by the memory's date or a day its text refers
 *   to) and a speaker it names (matched by the memory's speaker; a memory of someone else that only
 *   mentions the name counts CONTEXT_SHARE). A match on one common word of a
 *   longer question is a small share: alone it is not relevant.
 * - vector v: the cosine with the query placed between the embedder's calibrated `floor` (0) and
 *   `strong` (1) cosines.
 * - graph g: the knowledge-graph boost, when asked for.
 * relevance = 1 − (1 − k)^(wK/w) · (1 − v)^(wV/w) · (1 − g), wK/wV the search weights and w the larger
 * of them (0.5/0.5: exponents 1): either kind of evidence can carry a result, both together rank higher.
 */
import type { Store } from '../store/store';
import type { FullTextLeg } from './fullTextExact';
import { termsPresent } from './termPresence';
import { FTS_MAX_TERMS, parseFtsTerms, STOP_WORDS } from './ftsQuery';
import type { DateWindow } from './queryDates';

/** A result needs this much relevance to be shown (calibrated with the embedders' cosines below). */
export const RELEVANCE_FLOOR = 0.3;
/**
 * The floor when the store holds none of the query's words anywhere (not in any memory's text or
 * search context): the query is about something this store may not know, only meaning can match,
 * and it must be strong — with USE-lite a cosine of 0.47 instead of 0.415. Off-topic queries of
 * made-up or far-off words ("hypervisor pagetables" in a chat) reach 0.42–0.54 on short, generic
 * memories; a paraphrase of a memory usually shares some word with the rest of the store, and
 * when it does not, its answer is above this (bench/RESULTS-recall.md).
 */
export const UNKNOWN_QUERY_FLOOR = 0.4;
/** A query word found only in a memory's search context counts this share of a match in its own text. */
export const CONTEXT_SHARE = 0.5;

/**
 * Where an embedder's cosine starts to be evidence (`floor`, relevance 0) and where it is full
 * evidence (`strong`, relevance 1). A memory found by meaning alone needs a cosine of
 * floor + RELEVANCE_FLOOR × (strong − floor). The off-topic cosines of each embedder are in
 * bench/RESULTS-relevance.md (bench/locomo/calibrate.ts); the values below were chosen on the
 * coding-memory set and LoCoMo, with what they cost, in bench/RESULTS-recall.md.
 */
export interface VectorCalibration {
  floor: number;
  strong: number;
  /** 'measured' (bench/RESULTS-recall.md) or 'provisional' (not measured on this machine). */
  source: 'measured' | 'provisional';
}

/** Calibrations by embedder id prefix (Embedder.id: 'builtin:use-lite', 'hash:3', 'ollama:nomic-embed-text'). */
const CALIBRATIONS: readonly { prefix: string; calibration: VectorCalibration }[] = [
  { prefix: 'builtin:use-lite', calibration: { floor: 0.25, strong: 0.8, source: 'measured' } },
  { prefix: 'hash:', calibration: { floor: 0.15, strong: 0.65, source: 'measured' } },
  { prefix: 'ollama:nomic-embed-text', calibration: { floor: 0.45, strong: 0.85, source: 'provisional' } },
];

/** An embedder nobody calibrated: strict, so unknown models fail closed rather than return everything. */
export const UNCALIBRATED: VectorCalibration = { floor: 0.45, strong: 0.9, source: 'provisional' };

export function vectorCalibration(embedderId: string | undefined): VectorCalibration {
  if (embedderId === undefined) return UNCALIBRATED;
  return CALIBRATIONS.find((c) => embedderId.startsWith(c.prefix))?.calibration ?? UNCALIBRATED;
}

/** The cosine a memory found by meaning alone needs under `cal`. */
export function vectorOnlyFloor(cal: VectorCalibration): number {
  return cal.floor + RELEVANCE_FLOOR * (cal.strong - cal.floor);
}

/** A query term a keyword match can count for: `rendered` is its MATCH form, `label` what people read. */
export interface ContentTerm {
  rendered: string;
  label: string;
}

/**
 * The query's words that are not stop-words, its prefixes (`auth*`) and quoted phrases, in
 * order, without repeats. Empty when the query is only stop-words ("what is it"): the keyword
 * leg then searches the stop-words, and such matches are no evidence.
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

/** One piece of what a query asks about, with its weight (idf in this store). */
export type QueryUnit =
  | { kind: 'term'; label: string; rendered: string; weight: number }
  | { kind: 'date'; label: string; windows: DateWindow[]; weight: number }
  | { kind: 'speaker'; label: string; rendered: string; speaker: string; weight: number };

/** What a query can be matched on: its units and the vector calibration (none without a vector leg). */
export interface QueryEvidence {
  units: QueryUnit[];
  /** Σ weight of the units. */
  total: number;
  cal: VectorCalibration | undefined;
  /** The search weights of the legs that ran (effectiveWeights). */
  weights: { keyword: number; vector: number };
}

/** What one candidate matched: rendered terms in its own text, in its search context, its date and speaker. */
export interface CandidateMatch {
  own: ReadonlySet<string>;
  context: ReadonlySet<string>;
  /** Its date (created_at or a day its text refers to) is in a window the query names. */
  dated: boolean;
  speaker: string | null;
}

export const NO_MATCH: CandidateMatch = { own: new Set(), context: new Set(), dated: false, speaker: null };

/** The keyword evidence k (0…1): the weighted share of the query's units the candidate matches. */
export function keywordEvidence(q: QueryEvidence, m: CandidateMatch): number {
  if (!(q.total > 0)) return 0;
  let got = 0;
  for (const u of q.units) {
    if (u.kind === 'term') got += m.own.has(u.rendered) ? u.weight : m.context.has(u.rendered) ? CONTEXT_SHARE * u.weight : 0;
    else if (u.kind === 'date') got += m.dated ? u.weight : 0;
    else got += speakerMatch(u, m) * u.weight;
  }
  return Math.min(1, got / q.total);
}

/**
 * A speaker the query names: fully matched by the memory's speaker field; a memory of someone else
 * that only mentions the name (the person addressed, or talked about) counts CONTEXT_SHARE.
 */
function speakerMatch(u: { rendered: string; speaker: string }, m: CandidateMatch): number {
  if (m.speaker !== null && m.speaker.toLowerCase() === u.speaker.toLowerCase()) return 1;
  return m.own.has(u.rendered) || m.context.has(u.rendered) ? CONTEXT_SHARE : 0;
}

/** The vector evidence v (0…1) of a cosine under `cal`. */
export function vectorEvidence(similarity: number | undefined, cal: VectorCalibration | undefined): number {
  if (!cal || similarity === undefined) return 0;
  return Math.min(1, Math.max(0, (similarity - cal.floor) / (cal.strong - cal.floor)));
}

/** The relevance people see and results are ranked by (file header). */
export function combineEvidence(k: number, v: number, graph: number, weights: { keyword: number; vector: number }): number {
  // Exponents relative to the heavier leg: 0.5/0.5 → 1 and 1, a leg that did not run → 0.
  const top = Math.max(weights.keyword, weights.vector);
  const ek = top > 0 ? weights.keyword / top : 1;
  const ev = top > 0 ? weights.vector / top : 1;
  const keep = Math.pow(1 - k, ek) * Math.pow(1 - v, ev) * (1 - Math.min(1, Math.max(0, graph)));
  return Math.min(1, Math.max(0, 1 - keep));
}

/**
 * Which content terms each memory in `rids` holds, stemmed like the keyword leg ("deploy" matches
 * "deploying"; identifiers with digits exactly, fullTextExact.ts), in its own text (title,
 * content, tags) and in its search context. The keyword leg answers for the terms it searched
 * (`leg.held`: no further query); the rest (very common words the leg left out, identifier terms,
 * an unpruned leg) are looked for in the memories' own tokens (termPresence.ts).
 */
export function matchedTerms(
  store: Store,
  terms: readonly ContentTerm[],
  rids: readonly number[],
  leg?: Pick<FullTextLeg, 'held' | 'heldTerms'>,
): Map<number, TermSets> {
  const out = new Map<number, TermSets>();
  if (terms.length === 0 || rids.length === 0) return out;
  const answered = new Set(leg?.held ? leg.heldTerms : []);
  const fromLeg = terms.some((t) => answered.has(t.rendered)) ? leg!.held!(rids) : new Map<number, TermSets>();
  const rest = terms.filter((t) => !answered.has(t.rendered)).map((t) => t.rendered);
  const fromText = termsPresent(store, rest, rids);
  for (const rid of rids) {
    const a = fromLeg.get(rid);
    const b = fromText.get(rid);
    if (!a && !b) continue;
    const sets = merged(terms, (t) => (answered.has(t.rendered) ? a : b));
    if (sets.own.size || sets.context.size) out.set(rid, sets);
  }
  return out;
}

/** Terms found in a memory's own text, and those found only in its search context. */
type TermSets = { own: Set<string>; context: Set<string> };

/** Each term from the source that answers for it: in the memory's own text, else in its context. */
function merged(terms: readonly ContentTerm[], sourceOf: (t: ContentTerm) => TermSets | undefined): TermSets {
  const own = new Set<string>();
  const context = new Set<string>();
  for (const t of terms) {
    const src = sourceOf(t);
    if (src?.own.has(t.rendered)) own.add(t.rendered);
    else if (src?.context.has(t.rendered)) context.add(t.rendered);
  }
  return { own, context };
}

/** The labels of `terms` a match holds in its own text, in query order (what a result shows as matched). */
export function matchedLabels(terms: readonly ContentTerm[], m: CandidateMatch): string[] {
  return terms.filter((t) => m.own.has(t.rendered)).map((t) => t.label);
}
