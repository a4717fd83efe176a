/**
 * Search over both stores: each store's runtime runs the one hybrid search (keyword-only when
 * it has no vectors) with its relevance floor, the lists are ranked together by the absolute
 * relevance (src/core/search/relevance.ts: one scale for both stores, where the stores' own
 * min-max scores are not comparable); the hits count as accesses (written after the answer) only
 * when the caller says they go to an agent (recordAccess). With memory.pipelineV2.queryExpansionEnabled
 * the pipeline's model is asked once per search for other wordings, and each store is searched with
 * them too (src/core/search/queryExpansion.ts; bounded, a failure is a warning).
 */
import type { ResolvedConfig } from '../../../core/config';
import type { MemoryScope } from '../../../core/memory/types';
import type { SearchRequest, SearchResponse as StoreSearchResponse, SearchResult } from '../../../core/search/types';
import type { LlmProvider } from '../../../core/llm/types';
import { llmQueryExpander, QueryExpansion, searchWithAlternates } from '../../../core/search/queryExpansion';
import { createdRange } from './createdRange';
import type { SearchHit, SearchLeg, SearchParams, SearchResponse, StoreName } from '../../protocol';

/**
 * What the search needs of one store (a StoreRuntime; the LoCoMo bench builds them over its own
 * stores): its hybrid search, whose results carry their rows (asked withContent: no second read).
 */
export interface SearchableStore {
  readonly name: StoreName;
  search(req: SearchRequest): Promise<StoreSearchResponse>;
  readonly access?: { record(rids: Iterable<number>): void } | undefined;
}

/** What the search needs of the engine (an EngineContext). */
export interface SearchContext {
  readonly config: Pick<ResolvedConfig, 'search' | 'memory'>;
  readonly stores: { forScope(scope: MemoryScope | undefined): readonly SearchableStore[] };
  warn(message: string): void;
}

export class SearchService {
  private readonly expansion = new QueryExpansion();

  /** `llm`: the pipeline's model (live with the configuration), for query expansion. */
  constructor(
    private readonly ctx: SearchContext,
    private readonly llm?: () => LlmProvider,
  ) {}

  /** Other wordings of `query` when query expansion is on and a model is there; none otherwise (the reason is a warning). */
  private async alternates(query: string): Promise<string[]> {
    const p = this.ctx.config.memory.pipelineV2;
    if (!p.queryExpansionEnabled || !this.llm || !/[\p{L}\p{N}]/u.test(query)) return [];
    const llm = this.llm();
    const out = await this.expansion.expand(query, llmQueryExpander(llm), p.queryExpansionTimeoutMs, llm.id);
    if (out.status === 'timeout' || out.status === 'failed')
      this.ctx.warn(`search: query expansion skipped (${out.reason}); searched as written, and not asked again for a minute.`);
    return out.alternates;
  }

  /** `params` are checked by the protocol handler (limit within search.default_limit … max_limit). */
  async search(params: SearchParams): Promise<SearchResponse> {
    const t0 = performance.now();
    const { default_limit: def, max_limit: max, min_score: minScore } = this.ctx.config.search;
    const limit = params.limit ?? def;
    // The created-at range goes into each store's query like the type and tag filters (src/core/search/filters.ts).
    const filters = {
      ...(params.types ? { types: params.types } : {}),
      ...(params.tags ? { tags: params.tags } : {}),
      ...createdRange(params),
    };
    const perStore: SearchHit[][] = [];
    const legs = new Set<SearchLeg>();
    const alternates = await this.alternates(params.query);
    const req: SearchRequest = {
      query: params.query,
      limit,
      minScore,
      ...filters,
      graphBoost: this.ctx.config.memory.pipelineV2.graphEnabled,
      withContent: true,
    };
    // The stores at once: their query embeddings then reach the built-in model in one call (turnBatch.ts).
    const stores = this.ctx.stores.forScope(params.scope);
    const answers = await Promise.all(stores.map((rt) => searchWithAlternates((q) => rt.search(q), req, alternates, { poolLimit: max })));
    stores.forEach((rt, i) => {
      const r = answers[i]!;
      if (r.legs.keyword) legs.add('keyword');
      if (r.legs.vector) legs.add('vector');
      for (const w of r.warnings) this.ctx.warn(`search: ${w}`);
      const rids: number[] = [];
      const hits: SearchHit[] = [];
      perStore.push(hits);
      for (const res of r.results) {
        rids.push(res.rid);
        hits.push(toHit(res, rt.name));
      }
      // Hits handed to an agent or cited are accesses (docs/lifecycle.md "Access"), written after the answer; browsing never is.
      if (params.recordAccess === true) rt.access?.record(rids);
    });
    const hits = mergeInOrder(perStore, limit);
    return { query: params.query, hits, legsUsed: [...legs], tookMs: performance.now() - t0 };
  }
}

/**
 * Merges the stores' result lists by relevance (ties by recency) while keeping each list's own
 * order: a list is ranked by its store's hybrid score (or a reranker), and that order is kept.
 */
function mergeInOrder(lists: SearchHit[][], limit: number): SearchHit[] {
  const heads = lists.map(() => 0);
  const out: SearchHit[] = [];
  while (out.length < limit) {
    let best = -1;
    for (let i = 0; i < lists.length; i++) {
      const h = lists[i]![heads[i]!];
      if (!h) continue;
      const b = best >= 0 ? lists[best]![heads[best]!]! : undefined;
      if (!b || h.relevance > b.relevance || (h.relevance === b.relevance && h.memory.createdAt > b.memory.createdAt)) best = i;
    }
    if (best < 0) break;
    out.push(lists[best]![heads[best]!]!);
    heads[best]!++;
  }
  return out;
}

function toHit(res: SearchResult, store: StoreName): SearchHit {
  return {
    memory: res.memory,
    content: res.content ?? res.memory.preview,
    score: res.finalScore,
    relevance: res.relevance,
    matchedTerms: res.matchedTerms,
    ...(res.similarity !== undefined ? { similarity: res.similarity } : {}),
    legs: legScores(res),
    evidence: res.evidence,
    store,
    matchType: res.matchType,
  };
}

function legScores(r: SearchResult): SearchHit['legs'] {
  const legs: SearchHit['legs'] = {};
  if (r.matchType !== 'vector') legs.keyword = r.textScore;
  if (r.matchType !== 'keyword') legs.vector = r.vectorScore;
  if (r.graphBoost > 0) legs.graph = r.graphBoost;
  if (r.dateBoost > 0) legs.date = r.dateBoost;
  else if (r.evidence.date) legs.date = 1; // ranked by relevance: the named date is matched, not boosted
  return legs;
}
