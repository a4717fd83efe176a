/**
 * Seed 002 near-duplicate stage: find a live memory that already holds ≥ 80% of the
 * new text's words. Candidates come from the full-text index (best bm25 first) through
 * a query over a few two-word phrases, so the check scores a handful of documents, not
 * every memory that shares a common word (30 ms at 10k memories that way).
 */
import type { Store } from '../store/store';
import { STOP_WORDS } from '../search/ftsQuery';
import { BIGRAM_THRESHOLD, isNearDuplicate } from '../text/overlap';
import { tokenizeWords } from '../text/tokenize';
import { LIMITS } from './limits';

/** Upper bound on the phrases of the candidate query (very long texts). */
const MAX_CANDIDATE_TERMS = 24;

/**
 * Words as one FTS4 phrase. tokenizeWords yields only letters, digits, marks and inner
 * apostrophes, none of which can act as an FTS operator inside double quotes.
 */
const phrase = (...words: string[]) => `"${words.join(' ')}"`;

/**
 * The bigram phrases to search for, or `null` for texts too short to have bigrams. A
 * near-duplicate (isNearDuplicate) also contains ≥ BIGRAM_THRESHOLD of the distinct word
 * bigrams of the new text, so it lacks at most ⌊(1 − BIGRAM_THRESHOLD) · B⌋ of them and
 * contains at least one of ANY ⌊(1 − BIGRAM_THRESHOLD) · B⌋ + 1. Two-word phrases match
 * few documents, so little is scored; bigrams made only of content words are preferred
 * (their doclists are short).
 */
export function candidateBigrams(content: string): string[] | null {
  const words = tokenizeWords(content);
  if (words.length < 3) return null;
  const seen = new Set<string>();
  const bigrams: [string, string][] = [];
  for (let i = 1; i < words.length; i++) {
    const key = `${words[i - 1]} ${words[i]}`;
    if (!seen.has(key)) {
      seen.add(key);
      bigrams.push([words[i - 1]!, words[i]!]);
    }
  }
  const need = Math.floor(bigrams.length * (1 - BIGRAM_THRESHOLD)) + 1;
  const stops = (b: [string, string]) => Number(STOP_WORDS.has(b[0])) + Number(STOP_WORDS.has(b[1]));
  return bigrams
    .map((b, i) => ({ b, i, s: stops(b) }))
    .sort((x, y) => x.s - y.s || y.b[0].length + y.b[1].length - x.b[0].length - x.b[1].length || x.i - y.i)
    .slice(0, Math.min(need, MAX_CANDIDATE_TERMS))
    .map(({ b }) => phrase(...b));
}

export function findNearDuplicate(
  store: Store,
  projectId: string,
  content: string,
  threshold: number,
): { id: string } | undefined {
  const phrases = candidateBigrams(content) ?? [...new Set(tokenizeWords(content))].map((w) => phrase(w));
  if (!phrases.length) return undefined;
  const rows = store.all<{ id: string; content: string }>(
    // CROSS JOIN pins the join order: left to itself, SQLite's planner may walk memories by
    // project and run the whole full-text query once per row (13 s instead of 15 ms at 10k).
    `SELECT m.id, m.content FROM memories_fts
      CROSS JOIN memories m ON m.rid = memories_fts.docid
      WHERE memories_fts MATCH ? AND m.project_id = ? AND m.deleted_at IS NULL
      ORDER BY bm25(matchinfo(memories_fts, 'pcnalx')) LIMIT ?`,
    [phrases.join(' OR '), projectId, LIMITS.nearDuplicateCandidates],
  );
  for (const r of rows) if (isNearDuplicate(content, r.content, threshold)) return { id: r.id };
  return undefined;
}
