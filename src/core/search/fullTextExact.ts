/**
 * Identifiers with digits in the full-text leg. SQLite's porter tokenizer cuts a word longer
 * than 6 bytes that contains a digit to its first 3 + last 3 bytes (`sha256sum`, `sha512sum`
 * and `sha1sum` all index as "shasum"; `v2beta1` as "v2bta1"…), and a prefix with a digit
 * (`sha256*`) no longer finds the words it was cut from. Such query terms are looked up in
 * `memories_exact` (unicode61: no stemming, no cutting; migration 0004), every other term in
 * the porter index `memories_fts`, and a memory's keyword score is the sum of its BM25 in both:
 * the memory holding the exact identifier matches it, the ones holding a colliding one do not.
 */
import type { Store } from '../store/store';
import type { WhereClause } from './filters';
import { fullTextScores, fullTextSearch, type TextHit } from './fullText';
import { FullTextRanking } from './fullTextRank';
import { joinFtsTerms } from './ftsQuery';

/** Words porter leaves whole: up to 6 bytes when they hold a digit. */
const PORTER_DIGIT_WORD_MAX_BYTES = 6;

/** Whether porter would change this word beyond recognition (it holds a digit and is long). */
function porterCutsWord(word: string): boolean {
  return /\d/.test(word) && Buffer.byteLength(word, 'utf8') > PORTER_DIGIT_WORD_MAX_BYTES;
}

/**
 * Whether a rendered term (`"word"`, `"pre*"`, `"a phrase"`, see ftsQuery.buildFtsTerms) must be
 * looked up exactly: a word or phrase word porter would cut, or a prefix holding a digit.
 */
export function needsExactIndex(rendered: string): boolean {
  const inner = rendered.replace(/^"|"$/g, '');
  if (inner.endsWith('*')) return /\d/.test(inner);
  return inner.split(' ').some(porterCutsWord);
}

/** The rendered terms split by the index that answers them. */
export function splitByIndex(terms: readonly string[]): { stemmed: string[]; exact: string[] } {
  const stemmed: string[] = [];
  const exact: string[] = [];
  for (const t of terms) (needsExactIndex(t) ? exact : stemmed).push(t);
  return { stemmed, exact };
}

export type ScoreFn = (rids: number[]) => Map<number, TextHit>;

export interface FullTextLeg {
  /** Best `k` keyword hits, best first. */
  hits: TextHit[];
  /** Keyword scores of given memories (absent: no match); null when there are no terms. */
  scores: ScoreFn | null;
  /**
   * Which of the leg's rendered terms given memories hold, when the leg already knows (the
   * pruned ranking reads every match's per-term hits); `heldTerms` lists the terms it answers for.
   */
  held?: (rids: readonly number[]) => Map<number, { own: Set<string>; context: Set<string> }>;
  heldTerms?: readonly string[];
}

/** The exact-identifier index's top-k and scorer. */
function exactIndexLeg(store: Store, terms: string[], where: WhereClause, k: number): FullTextLeg {
  const expr = joinFtsTerms(terms);
  return {
    hits: fullTextSearch(store, expr, where, k, 'memories_exact'),
    scores: (rids) => fullTextScores(store, expr, where, rids, 'memories_exact'),
  };
}

/** The porter index's top-k and scorer: the pruned ranking when allowed. */
function stemmedIndexLeg(store: Store, terms: string[], where: WhereClause, k: number, pruning: boolean): FullTextLeg {
  const expr = joinFtsTerms(terms);
  const ranking = pruning ? FullTextRanking.prepare(store, terms, where) : null;
  if (ranking) {
    const held = (rids: readonly number[]) =>
      new Map(
        [...ranking.termsHeld(rids)].map(([rid, h]) => [
          rid,
          { own: new Set(h.own.map((i) => terms[i]!)), context: new Set(h.context.map((i) => terms[i]!)) },
        ]),
      );
    return { hits: ranking.topK(k), scores: (rids) => ranking.scores(rids), held, heldTerms: terms };
  }
  return { hits: fullTextSearch(store, expr, where, k), scores: (rids) => fullTextScores(store, expr, where, rids) };
}

/** Sum of both scorers per memory (a memory matching only one index keeps that score). */
function summed(a: ScoreFn, b: ScoreFn): ScoreFn {
  return (rids) => {
    const out = new Map<number, TextHit>();
    for (const part of [a(rids), b(rids)]) {
      for (const [rid, h] of part) {
        const prev = out.get(rid);
        out.set(rid, prev ? { ...prev, bm25: prev.bm25 + h.bm25 } : h);
      }
    }
    return out;
  };
}

function byScore(a: TextHit, b: TextHit): number {
  return b.bm25 - a.bm25 || (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0) || b.rid - a.rid;
}

/**
 * The keyword leg for rendered `terms` (null: no keyword leg). Without identifier terms this
 * is the porter index alone, exactly as before. With both kinds, the top-k is taken over the
 * union of each index's top-k, scored in both (a memory far down both lists can be missed;
 * identifier queries match few memories, so the union is almost always all of them).
 */
export function fullTextLeg(store: Store, terms: string[] | null, where: WhereClause, k: number, pruning: boolean): FullTextLeg {
  if (terms === null || terms.length === 0) return { hits: [], scores: null };
  const { stemmed, exact } = splitByIndex(terms);
  if (exact.length === 0) return stemmedIndexLeg(store, stemmed, where, k, pruning);
  const exactLeg = exactIndexLeg(store, exact, where, k);
  if (stemmed.length === 0) return exactLeg;
  const stemLeg = stemmedIndexLeg(store, stemmed, where, k, pruning);
  const scores = summed(stemLeg.scores!, exactLeg.scores!);
  const rids = [...new Set([...stemLeg.hits, ...exactLeg.hits].map((h) => h.rid))];
  const hits = [...scores(rids).values()].sort(byScore).slice(0, k);
  return { hits, scores, ...(stemLeg.held ? { held: stemLeg.held, heldTerms: stemLeg.heldTerms } : {}) };
}
