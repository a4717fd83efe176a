/**
 * Query expansion through the pipeline's LLM (docs/recall.md "Query expansion"; optional, off by
 * default): the model is asked for a few other wordings of a search query — the words a memory
 * answering it would use — and recall searches with each, keeping for every memory the best
 * relevance found (an alternate wording's relevance counted at {@link ALTERNATE_SHARE}).
 *
 * Bounded, never in the way: the model has `timeoutMs` (a Promise.race, so a model that ignores
 * its own deadline still does not hold the search); a timeout, an error or an unusable answer
 * leaves the query as written, with the reason recorded. After such a failure expansion pauses for
 * {@link PAUSE_MS}, so a stopped or overloaded Ollama costs one deadline, not one per search. Answers
 * are cached per query text (search-as-you-type asks the same text again).
 */
import type { LlmProvider } from '../llm/types';
import { parseLlmJson } from '../llm/parseJson';
import { errorMessage } from '../util/errors';
import { RELEVANCE_FLOOR } from './relevance';
import { DEFAULT_SEARCH_SETTINGS } from './settings';
import type { SearchRequest, SearchResponse, SearchResult } from './types';

/** An alternate wording's relevance counts this share: the query as written wins ties. */
export const ALTERNATE_SHARE = 0.9;
/** At most this many alternate wordings are searched. */
export const MAX_ALTERNATES = 3;
/** Longest alternate wording kept (characters). */
export const MAX_ALTERNATE_CHARS = 200;
/** After a timeout or a failure, no expansion for this long (ms). */
export const PAUSE_MS = 60_000;
/** Expansions remembered (query texts). */
export const CACHE_ENTRIES = 200;

/** Asks a model for other wordings of `query` (up to MAX_ALTERNATES; the caller cleans them). */
export type QueryExpander = (query: string, timeoutMs: number) => Promise<string[]>;

export interface ExpansionOutcome {
  /** The alternate wordings to search with (none unless `status` is 'expanded'). */
  alternates: string[];
  /**
   * 'expanded'; 'unchanged' (the model gave no usable wording); 'timeout' / 'failed' (the query
   * as written is searched); 'paused' (a recent failure: not asked). A cached answer reports its
   * own status with `ms` 0.
   */
  status: 'expanded' | 'unchanged' | 'timeout' | 'failed' | 'paused';
  /** Why, for 'timeout', 'failed' and 'paused'. */
  reason?: string;
  /** Time spent waiting for the model (0 when cached or paused). */
  ms: number;
}

const TIMEOUT = Symbol('timeout');

/** Trimmed, single-spaced, cut, without repeats or the query itself (case-insensitive). */
export function cleanAlternates(query: string, raw: readonly unknown[]): string[] {
  const seen = new Set([norm(query)]);
  const out: string[] = [];
  for (const r of raw) {
    if (typeof r !== 'string') continue;
    const s = r.replace(/\s+/g, ' ').trim().slice(0, MAX_ALTERNATE_CHARS).trim();
    if (!/[\p{L}\p{N}]/u.test(s) || seen.has(norm(s))) continue;
    seen.add(norm(s));
    out.push(s);
    if (out.length >= MAX_ALTERNATES) break;
  }
  return out;
}

function norm(s: string): string {
  return s
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/** The expansion state of one engine: the pause after a failure and the cache of answers. */
export class QueryExpansion {
  private pausedUntil = 0;
  private pauseReason = '';
  private readonly cache = new Map<string, string[]>();

  constructor(private readonly now: () => number = Date.now) {}

  /**
   * Alternate wordings of `query` from `expander` within `timeoutMs`; never throws. `model` names
   * the expander's model: answers are cached per model and query.
   */
  async expand(query: string, expander: QueryExpander, timeoutMs: number, model = ''): Promise<ExpansionOutcome> {
    const key = query.trim();
    const cacheKey = `${model}\u0000${key}`;
    const cached = this.cache.get(cacheKey);
    if (cached) return { alternates: cached, status: cached.length ? 'expanded' : 'unchanged', ms: 0 };
    if (this.now() < this.pausedUntil) return { alternates: [], status: 'paused', reason: this.pauseReason, ms: 0 };
    const t0 = performance.now();
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<typeof TIMEOUT>((resolve) => {
      timer = setTimeout(() => resolve(TIMEOUT), Math.max(0, timeoutMs));
    });
    const call = Promise.resolve().then(() => expander(key, timeoutMs));
    try {
      const answer = await Promise.race([call, deadline]);
      const ms = performance.now() - t0;
      if (answer === TIMEOUT) {
        call.catch(() => undefined); // a late rejection must not become an unhandled one
        return this.failed('timeout', `the model did not answer within ${timeoutMs} ms`, ms);
      }
      const alternates = cleanAlternates(key, Array.isArray(answer) ? answer : []);
      this.remember(cacheKey, alternates);
      return { alternates, status: alternates.length ? 'expanded' : 'unchanged', ms };
    } catch (e) {
      return this.failed('failed', errorMessage(e), performance.now() - t0);
    } finally {
      clearTimeout(timer);
    }
  }

  private failed(status: 'timeout' | 'failed', reason: string, ms: number): ExpansionOutcome {
    this.pausedUntil = this.now() + PAUSE_MS;
    this.pauseReason = reason;
    return { alternates: [], status, reason, ms };
  }

  private remember(key: string, alternates: string[]): void {
    if (this.cache.size >= CACHE_ENTRIES) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(key, alternates);
  }
}

const SCHEMA = {
  type: 'object',
  properties: { queries: { type: 'array', items: { type: 'string' } } },
  required: ['queries'],
} as const;

export function expansionPrompt(query: string): string {
  return [
    "Someone searches a software project's memory: short notes of decisions, fixes, conventions and preferences.",
    `Write up to ${MAX_ALTERNATES} other search queries for the same question, each using the words a note that answers it`,
    'would likely contain: the technical terms, tool and file names, synonyms. Do not answer the question.',
    'Answer with JSON only: {"queries": ["…", "…"]}.',
    '',
    `Query: ${query.replace(/\s+/g, ' ').slice(0, 1000)}`,
  ].join('\n');
}

/** A {@link QueryExpander} backed by an LlmProvider (the pipeline's Ollama model in the engine). */
export function llmQueryExpander(llm: LlmProvider): QueryExpander {
  return async (query, timeoutMs) => {
    const raw = await llm.generate(expansionPrompt(query), {
      format: SCHEMA as unknown as Record<string, unknown>,
      timeoutMs,
      temperature: 0,
    });
    const parsed = parseLlmJson(raw);
    if (!parsed.ok) throw new Error(`the model's answer is not JSON: ${parsed.error}`);
    const queries = (parsed.value as { queries?: unknown })?.queries;
    if (!Array.isArray(queries)) throw new Error('the model\'s answer has no "queries" list');
    return queries as string[];
  };
}

/**
 * Relevance above this, for the query as written, makes a memory related to it: some evidence of
 * meaning (a cosine above the embedder's calibrated floor) or of words.
 */
export const RELATED_RELEVANCE = 1e-6;

/**
 * `search` with the query as written and with each alternate wording (those never reranked), one
 * list: every memory once, at the best of its relevance as written and ALTERNATE_SHARE × its
 * relevance under an alternate (which must still reach `floor`), ranked by that relevance; a
 * memory found through an alternate says which (`evidence.alternate`). Warnings, legs and timings
 * of all the searches are combined.
 *
 * An alternate wording lifts what the query as written is related to, and brings in nothing else: a
 * memory it finds counts only if the query as written has some evidence for it, below the floor
 * too (one more search of the query, `poolLimit` results, floor RELATED_RELEVANCE). A model that
 * answers with generic or off-topic wordings ("other wording", whose "second" matches one memory's
 * "120-second budget") cannot make an off-topic question find memories (bench/RESULTS-recall.md).
 */
export async function searchWithAlternates(
  search: (req: SearchRequest) => Promise<SearchResponse>,
  req: SearchRequest,
  alternates: readonly string[],
  opts: { poolLimit: number; floor?: number },
): Promise<SearchResponse> {
  const first = await search(req);
  if (alternates.length === 0) return first;
  const floor = opts.floor ?? RELEVANCE_FLOOR;
  const best = new Map<string, SearchResult>(first.results.map((r) => [r.memory.id, r]));
  const warnings = new Set(first.warnings);
  const legs = { ...first.legs };
  const timings = { ...first.timings };
  const add = (r: SearchResponse) => {
    for (const w of r.warnings) warnings.add(w);
    legs.keyword ||= r.legs.keyword;
    legs.vector ||= r.legs.vector;
    timings.embedMs += r.timings.embedMs;
    timings.searchMs += r.timings.searchMs;
  };
  const pool = await search({
    ...req,
    limit: Math.max(opts.poolLimit, req.limit ?? 0),
    minRelevance: RELATED_RELEVANCE,
    noRerank: true,
    withContent: false,
  });
  add(pool);
  const related = new Set(pool.results.map((r) => r.memory.id));
  for (const query of alternates) {
    const r = await search({ ...req, query, noRerank: true });
    add(r);
    for (const hit of r.results) {
      const relevance = hit.relevance * ALTERNATE_SHARE;
      const had = best.get(hit.memory.id);
      if (relevance < floor || !related.has(hit.memory.id) || (had && had.relevance >= relevance)) continue;
      best.set(hit.memory.id, { ...hit, relevance, finalScore: relevance, evidence: { ...hit.evidence, alternate: query } });
    }
  }
  const results = [...best.values()]
    .sort((a, b) => b.relevance - a.relevance || b.memory.createdAt.localeCompare(a.memory.createdAt))
    .slice(0, req.limit ?? DEFAULT_SEARCH_SETTINGS.defaultLimit);
  return { results, warnings: [...warnings], legs, timings };
}
