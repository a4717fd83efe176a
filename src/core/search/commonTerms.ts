/**
 * Dynamic stop-words for large stores. FTS4 ranks every row that matches any query term (no
 * top-k pruning), so one very common term ("config" in a third of all memories) makes a query
 * cost ~4 µs × tens of thousands of rows. When a store has at least `minRows` memories, terms
 * found in more than `share` of them are left out of the full-text query as long as another term
 * remains (their idf is low, and the vector leg still sees the whole query).
 *
 * Document frequencies come from termStats.ts: a capped count per term, in the index that answers
 * it, cached for a few minutes: df drifts slowly and a stale value only moves a performance
 * decision, never visibility or filters.
 */
import type { TermStats } from './termStats';

export interface CommonTermOptions {
  /** Share of rows above which a term is dropped (0 disables). */
  share: number;
  /** Stores smaller than this are never pruned. */
  minRows: number;
}

export class CommonTermFilter {
  /** `stats` holds the counts, shared with the relevance plan (termStats.ts). */
  constructor(
    private readonly stats: TermStats,
    private readonly opts: CommonTermOptions,
  ) {}

  /** Approximate row count (highest rid): cheap, and soft-deleted rows are still in the FTS index. */
  rowCount(): number {
    return this.stats.rowCount();
  }

  /** `terms` without the common ones (at least one term is always kept). */
  prune(terms: readonly string[]): { kept: string[]; dropped: string[] } {
    const all = { kept: terms.slice(), dropped: [] as string[] };
    if (!(this.opts.share > 0) || terms.length < 2) return all;
    const n = this.rowCount();
    if (n < this.opts.minRows) return all;
    const limit = Math.floor(this.opts.share * n);
    const dfs = terms.map((t) => this.stats.documentFrequency(t, limit + 1));
    const kept = terms.filter((_, i) => dfs[i]! <= limit);
    if (kept.length === terms.length) return all;
    // Everything is common: the first word stays. Counts above the limit are not compared (the
    // rarest of them by full count was tried and lost a LoCoMo question).
    if (kept.length === 0) return { kept: [terms[0]!], dropped: terms.slice(1) };
    return { kept, dropped: terms.filter((_, i) => dfs[i]! > limit) };
  }
}
