/**
 * How informative a query's words are in THIS store (docs/recall.md "Relevance"): the document
 * frequency of each term in the full-text index, as BM25's idf turns it into a weight. A word in
 * many memories ("use", "time", "fix" in a project's notes) weighs little, a rare word or an exact
 * identifier a lot, and a word no memory holds the most (a query about something the store does
 * not know is mostly unmatched).
 *
 * Counts come from the index the term is looked up in (porter or exact, fullTextExact.ts), capped
 * just above a share of the store (a very common word's count reads its whole doclist otherwise)
 * and cached for a few minutes: document frequencies drift slowly, and a stale one moves a weight
 * a little, never what is visible. The store's speakers (memories.speaker) are cached the same way.
 *
 * One search's three users of a count share this cache: the relevance plan, and the two
 * common-word filters (commonTerms.ts: the keyword leg's, the embedded query's). Each counted the
 * same words again on their first sight, ~15 % of a search's CPU in a store's first queries.
 */
import type { Store } from '../store/store';
import { needsExactIndex } from './fullTextExact';

/** Terms in more than this share of the store are counted as being in exactly that share. */
const DF_CAP_SHARE = 0.25;
const TTL_MS = 300_000;
const MAX_ENTRIES = 5000;

/** BM25's idf (Lucene's variant, never ≤ 0): ln(1 + (N − df + 0.5) / (df + 0.5)). */
export function idf(df: number, n: number): number {
  const N = Math.max(n, df, 1);
  return Math.log(1 + (N - df + 0.5) / (df + 0.5));
}

export class TermStats {
  private readonly df = new Map<string, { n: number; cap: number; at: number }>();
  private rows: { n: number; at: number } | undefined;
  private speakerNames: { names: Map<string, string>; at: number } | undefined;

  constructor(
    private readonly store: Store,
    private readonly now: () => number = Date.now,
  ) {}

  /** Memories in the store (highest rid: cheap; tombstones count, as they do in the index). */
  rowCount(): number {
    const t = this.now();
    if (!this.rows || t - this.rows.at > 30_000) {
      const r = this.store.get<{ n: number | null }>('SELECT max(rid) AS n FROM memories');
      this.rows = { n: Number(r?.n ?? 0), at: t };
    }
    return this.rows.n;
  }

  /**
   * Memories holding the rendered term (`"word"`, `"pre*"`, `"a phrase"`), counted up to a quarter
   * of the store or `atLeast`, whichever is more (a count that reached its cap means "at least").
   */
  documentFrequency(rendered: string, atLeast = 0): number {
    const t = this.now();
    const cap = Math.max(1, Math.ceil(DF_CAP_SHARE * this.rowCount()), atLeast);
    const hit = this.df.get(rendered);
    if (hit && t - hit.at < TTL_MS && (hit.n < hit.cap || hit.cap >= cap)) {
      this.df.delete(rendered); // LRU: re-insert as newest
      this.df.set(rendered, hit);
      return hit.n;
    }
    const table = needsExactIndex(rendered) ? 'memories_exact' : 'memories_fts';
    let n: number;
    try {
      const r = this.store.get<{ n: number }>(`SELECT count(*) AS n FROM (SELECT docid FROM ${table} WHERE ${table} MATCH ? LIMIT ?)`, [
        rendered,
        cap,
      ]);
      n = Number(r?.n ?? 0);
    } catch {
      n = 0; // a term the index cannot parse matches nothing
    }
    this.df.delete(rendered);
    this.df.set(rendered, { n, cap, at: t });
    if (this.df.size > MAX_ENTRIES) this.df.delete(this.df.keys().next().value!);
    return n;
  }

  /** Memories of the project written inside [start, end) (the weight of a date a query names). */
  datedCount(projectId: string, start: number, end: number): number {
    const r = this.store.get<{ n: number }>(
      'SELECT count(*) AS n FROM memories WHERE project_id = ? AND created_at >= ? AND created_at < ?',
      [projectId, new Date(start).toISOString(), new Date(end).toISOString()],
    );
    return Number(r?.n ?? 0);
  }

  /** The speakers of the store's memories, by their lower-cased name (and first name when it has several words). */
  speakers(): Map<string, string> {
    const t = this.now();
    if (this.speakerNames && t - this.speakerNames.at < 30_000) return this.speakerNames.names;
    const names = new Map<string, string>();
    for (const r of this.store.all<{ s: string }>('SELECT DISTINCT speaker AS s FROM memories WHERE speaker IS NOT NULL LIMIT 1000')) {
      const name = String(r.s);
      const key = name.toLowerCase();
      names.set(key, name);
      const first = key.split(/\s+/)[0]!;
      if (first !== key && !names.has(first)) names.set(first, name);
    }
    this.speakerNames = { names, at: t };
    return names;
  }
}
