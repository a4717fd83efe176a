/**
 * Near-duplicate check (docs/write-path.md "Validate"): find a live memory that already holds ≥ 80% of the
 * new text's words. Candidates come from the full-text index (best bm25 first) through
 * a query over the few rarest words that any near-duplicate must contain, so the check
 * reads short doclists and scores a handful of documents.
 */
import { ENGLISH_STOPWORDS } from '../embed/stopwords';
import type { Store } from '../store/store';
import { isNearDuplicate } from '../text/overlap';
import { tokenizeWords } from '../text/tokenize';

/** Words per document-frequency query. */
const MAX_LOOKUP_WORDS = 64;

/**
 * Words as one FTS4 phrase. tokenizeWords yields only letters, digits, marks and inner
 * apostrophes, none of which can act as an FTS operator inside double quotes.
 */
const phrase = (...words: string[]) => `"${words.join(' ')}"`;

/**
 * How many documents contain each word, in one query: matchinfo's `x` gives, for every
 * phrase of the query and every column, the number of rows with a hit, computed by FTS4 in
 * C over the whole index. The largest column count stands for the word; words no document
 * holds get 0. (Counts include tombstoned rows, which stay indexed.)
 */
export function documentFrequencies(store: Store, words: string[]): Map<string, number> {
  const out = new Map<string, number>(words.map((w) => [w, 0]));
  if (!words.length) return out;
  const row = store.get<{ mi: Uint8Array }>(
    `SELECT matchinfo(memories_fts, 'pcx') AS mi FROM memories_fts WHERE memories_fts MATCH ? LIMIT 1`,
    [words.map((w) => phrase(w)).join(' OR ')],
  );
  if (!row) return out;
  const mi = new Uint32Array(row.mi.buffer, row.mi.byteOffset, row.mi.byteLength / 4);
  const [p, c] = [mi[0]!, mi[1]!];
  for (let i = 0; i < p && i < words.length; i++) {
    let docs = 0;
    for (let j = 0; j < c; j++) docs = Math.max(docs, mi[2 + 3 * (i * c + j) + 2]!);
    out.set(words[i]!, docs);
  }
  return out;
}

/**
 * Document frequencies remembered per store. They only steer which words are searched
 * (rare ones first), so slightly stale positive counts are harmless; the cache is dropped when it
 * grows past its bound. Words repeat across memories, so after a warm-up almost every
 * lookup is a hit and the misses are rare words, whose doclists are short.
 */
class FrequencyCache {
  private readonly counts = new Map<string, number>();
  constructor(
    private readonly store: Store,
    private readonly maxEntries = 50_000,
  ) {}

  get(words: string[]): Map<string, number> {
    const missing = words.filter((w) => !this.counts.has(w) && !ENGLISH_STOPWORDS.has(w));
    const fresh = new Map<string, number>();
    if (missing.length) {
      if (this.counts.size + missing.length > this.maxEntries) this.counts.clear();
      for (let i = 0; i < missing.length; i += MAX_LOOKUP_WORDS) {
        for (const [w, n] of documentFrequencies(this.store, missing.slice(i, i + MAX_LOOKUP_WORDS))) {
          fresh.set(w, n);
          // A zero is never kept: "in no document" must be true now, or a near-duplicate
          // written since would be ruled out. A stale positive count only reorders words.
          if (n > 0) this.counts.set(w, n);
        }
      }
    }
    return new Map(words.map((w) => [w, this.counts.get(w) ?? fresh.get(w) ?? (ENGLISH_STOPWORDS.has(w) ? STOPWORD_FREQUENCY : 0)]));
  }
}

/**
 * What a stop-word's count is taken to be, unlooked-up: above any real count, so it sorts after
 * every other word. Their doclists are the longest of all (looking up a new text's words in a
 * 20,000-memory store: 3.1 ms with them, 0.9 ms without). Counting one as present when no
 * document holds it only makes the check read more doclists, never miss a near-duplicate
 * (candidateWords then takes more words than it needs).
 */
const STOPWORD_FREQUENCY = Number.MAX_SAFE_INTEGER;

const caches = new WeakMap<Store, FrequencyCache>();

/** Cap on the words looked up (very long texts): beyond it the check is best-effort. */
const MAX_CANDIDATE_WORDS = 32;
/** Documents (by most words held) whose text is compared with the new one. */
const MAX_VERIFIED = 20;

export interface CandidateWords {
  /** The rarest indexed words of the new text. */
  words: string[];
  /** How many of them any near-duplicate must contain (1 or 2). */
  minHits: number;
}

/**
 * The words whose documents are candidates, or `null` when no near-duplicate can exist.
 * A near-duplicate at `threshold` lacks at most m = ⌊(1 − threshold) · n⌋ of the n distinct
 * words, and surely lacks every word no document contains (z of them): if z > m there is
 * none. Otherwise it lacks at most m − z of the indexed words, so it holds at least 2 of
 * ANY m − z + 2 of them (when there are that many), else at least 1 of any m − z + 1. The
 * rarest are taken: their doclists are short, so few documents are counted. (Searching every
 * word, two-word phrases and FTS4 pair queries were all slower — FTS4 reloads a word's doclist
 * for every pair it is in; figures: bench/RESULTS-design-notes.md.)
 */
export function candidateWords(
  content: string,
  threshold: number,
  frequencies: (words: string[]) => Map<string, number>,
): CandidateWords | null {
  const words = [...new Set(tokenizeWords(content))];
  if (!words.length) return null;
  // The epsilon keeps 10 × (1 − 0.8) = 1.9999… from flooring to 1.
  const allowedMissing = Math.floor(words.length * (1 - threshold) + 1e-9);
  const df = frequencies(words);
  const indexed = words.filter((w) => df.get(w)! > 0).sort((a, b) => df.get(a)! - df.get(b)! || (a < b ? -1 : a > b ? 1 : 0));
  const absent = words.length - indexed.length;
  if (absent > allowedMissing) return null;
  const pairs = allowedMissing - absent + 2;
  if (pairs <= indexed.length && pairs <= MAX_CANDIDATE_WORDS) return { words: indexed.slice(0, pairs), minHits: 2 };
  return { words: indexed.slice(0, Math.min(pairs - 1, MAX_CANDIDATE_WORDS)), minHits: 1 };
}

/**
 * Documents holding at least `minHits` of `words`, most words first: one doclist read per
 * word (docids only, in C), counted in JS.
 */
function documentsHolding(store: Store, { words, minHits }: CandidateWords): number[] {
  const hits = new Map<number, number>();
  for (const w of words) {
    for (const r of store.all<{ docid: number }>('SELECT docid FROM memories_fts WHERE memories_fts MATCH ?', [phrase(w)])) {
      hits.set(r.docid, (hits.get(r.docid) ?? 0) + 1);
    }
  }
  return [...hits]
    .filter(([, n]) => n >= minHits)
    .sort((a, b) => b[1] - a[1] || b[0] - a[0])
    .slice(0, MAX_VERIFIED)
    .map(([docid]) => docid);
}

export function findNearDuplicate(
  store: Store,
  projectId: string,
  content: string,
  threshold: number,
): { id: string; title: string; content: string } | undefined {
  let cache = caches.get(store);
  if (!cache) caches.set(store, (cache = new FrequencyCache(store)));
  const candidates = candidateWords(content, threshold, (w) => cache.get(w));
  if (!candidates?.words.length) return undefined;
  const rids = documentsHolding(store, candidates);
  if (!rids.length) return undefined;
  const rows = store.all<{ rid: number; id: string; title: string; content: string }>(
    `SELECT rid, id, title, content FROM memories WHERE rid IN (${rids.map(() => '?').join(', ')}) AND project_id = ? AND deleted_at IS NULL`,
    [...rids, projectId],
  );
  const byRid = new Map(rows.map((r) => [r.rid, r]));
  for (const rid of rids) {
    const r = byRid.get(rid);
    if (r && isNearDuplicate(content, r.content, threshold)) return { id: r.id, title: r.title, content: r.content };
  }
  return undefined;
}
