/**
 * Dynamic stop-words for large stores. FTS4 ranks every row that matches any query term (no
 * top-k pruning), so one very common term ("config" in a third of all memories) makes a query
 * cost ~4 µs × tens of thousands of rows. When a store has at least `minRows` memories, terms
 * found in more than `share` of them are left out of the full-text query as long as another term
 * remains (their idf is low, and the vector leg still sees the whole query).
 *
 * Document frequencies come from a capped count per term (the count stops just above the
 * threshold), cached for a few minutes: df drifts slowly and a stale value only moves a
 * performance decision, never visibility or filters.
 */
import type { Store } from '../store/store';

export interface CommonTermOptions {
  /** Share of rows above which a term is dropped (0 disables). */
  share: number;
  /** Stores smaller than this are never pruned. */
  minRows: number;
  /** Cache lifetime (ms). Default 5 minutes. */
  ttlMs?: number;
  /** Cached terms. Default 5000. */
  maxEntries?: number;
  now?: () => number;
}

export class CommonTermFilter {
  private readonly cache = new Map<string, { df: number; at: number }>();
  private rows: { n: number; at: number } | undefined;

  constructor(
    private readonly store: Store,
    private readonly opts: CommonTermOptions,
  ) {}

  private now(): number {
    return this.opts.now ? this.opts.now() : Date.now();
  }

  /** Approximate row count (highest rid): cheap, and soft-deleted rows are still in the FTS index. */
  rowCount(): number {
    const t = this.now();
    if (!this.rows || t - this.rows.at > 30_000) {
      const r = this.store.get<{ n: number | null }>('SELECT max(rid) AS n FROM memories');
      this.rows = { n: Number(r?.n ?? 0), at: t };
    }
    return this.rows.n;
  }

  /** Rows matching one rendered term, counted up to `cap`. */
  private df(term: string, cap: number): number {
    const t = this.now();
    const hit = this.cache.get(term);
    if (hit && t - hit.at < (this.opts.ttlMs ?? 300_000)) {
      this.cache.delete(term); // LRU: re-insert as newest
      this.cache.set(term, hit);
      return hit.df;
    }
    const r = this.store.get<{ n: number }>(
      'SELECT count(*) AS n FROM (SELECT docid FROM memories_fts WHERE memories_fts MATCH ? LIMIT ?)',
      [term, cap],
    );
    const df = Number(r?.n ?? 0);
    this.cache.set(term, { df, at: t });
    if (this.cache.size > (this.opts.maxEntries ?? 5000)) this.cache.delete(this.cache.keys().next().value!);
    return df;
  }

  /** `terms` without the common ones (at least one term is always kept). */
  prune(terms: readonly string[]): { kept: string[]; dropped: string[] } {
    const all = { kept: terms.slice(), dropped: [] as string[] };
    if (!(this.opts.share > 0) || terms.length < 2) return all;
    const n = this.rowCount();
    if (n < this.opts.minRows) return all;
    const limit = Math.floor(this.opts.share * n);
    const dfs = terms.map((t) => this.df(t, limit + 1));
    const kept = terms.filter((_, i) => dfs[i]! <= limit);
    if (kept.length === terms.length) return all;
    if (kept.length === 0) {
      // Everything is common: keep the rarest one.
      let best = 0;
      for (let i = 1; i < dfs.length; i++) if (dfs[i]! < dfs[best]!) best = i;
      return { kept: [terms[best]!], dropped: terms.filter((_, i) => i !== best) };
    }
    return { kept, dropped: terms.filter((_, i) => dfs[i]! > limit) };
  }
}
