/**
 * Optional reranking (docs/recall.md): reorder the head (`topN`) of a scored list with a provider
 * (cross-encoder, LLM, …); the untouched tail is appended. If the provider throws or does not
 * answer within `timeoutMs` (Promise.race against a timer) the original order is returned.
 * There is no second attempt.
 */
export interface RerankCandidate {
  id: string;
  content: string;
  score: number;
}

export interface RerankConfig {
  /** Head size handed to the provider. Default 20 (range 1–100). */
  topN: number;
  /** Default 2000 ms (range 100–30000). */
  timeoutMs: number;
  /** Provider-specific model name (memory.pipelineV2.rerankerModel). */
  model?: string;
}

export const DEFAULT_RERANK_CONFIG: RerankConfig = { topN: 20, timeoutMs: 2000 };

export type RerankProvider = (query: string, candidates: RerankCandidate[], cfg: RerankConfig) => Promise<RerankCandidate[]>;

/** Pass-through provider for tests. */
export const noopReranker: RerankProvider = async (_query, candidates) => candidates;

export interface RerankOutcome<T> {
  items: T[];
  /** 'reranked', or why the original order was kept. */
  status: 'reranked' | 'timeout' | 'failed' | 'skipped';
  error?: string;
}

const TIMEOUT = Symbol('timeout');

export async function rerank<T extends RerankCandidate>(
  query: string,
  candidates: T[],
  provider: RerankProvider,
  cfg: RerankConfig,
): Promise<RerankOutcome<T>> {
  const topN = Math.max(1, Math.floor(cfg.topN));
  if (candidates.length < 2) return { items: candidates.slice(), status: 'skipped' };
  const head = candidates.slice(0, topN);
  const tail = candidates.slice(topN);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<typeof TIMEOUT>((resolve) => {
    timer = setTimeout(() => resolve(TIMEOUT), Math.max(0, cfg.timeoutMs));
  });
  try {
    // The provider gets copies: it may mutate or return foreign objects without harming ours.
    const call = Promise.resolve().then(() =>
      provider(
        query,
        head.map((c) => ({ id: c.id, content: c.content, score: c.score })),
        cfg,
      ),
    );
    const answer = await Promise.race([call, timeout]);
    if (answer === TIMEOUT) {
      call.catch(() => undefined); // a late rejection must not become an unhandled one
      return { items: candidates.slice(), status: 'timeout', error: `reranker did not answer within ${cfg.timeoutMs} ms` };
    }
    if (!Array.isArray(answer)) return { items: candidates.slice(), status: 'failed', error: 'reranker returned no list' };
    return { items: [...reorder(head, answer), ...tail], status: 'reranked' };
  } catch (e) {
    return { items: candidates.slice(), status: 'failed', error: e instanceof Error ? e.message : String(e) };
  } finally {
    clearTimeout(timer);
  }
}

/** The head in the provider's order; unknown or repeated ids ignored, omitted ones kept after, in their order. */
function reorder<T extends RerankCandidate>(head: T[], answer: RerankCandidate[]): T[] {
  const byId = new Map(head.map((c) => [c.id, c]));
  const out: T[] = [];
  for (const a of answer) {
    const c = a && typeof a.id === 'string' ? byId.get(a.id) : undefined;
    if (!c) continue;
    out.push(c);
    byId.delete(a.id);
  }
  for (const c of head) if (byId.has(c.id)) out.push(c);
  return out;
}

/** After a reranking model fails or misses its deadline, it is not asked again for this long (ms). */
export const RERANK_PAUSE_MS = 60_000;

/**
 * `provider` that, after an error or an answer later than `cfg.timeoutMs` (rerank() has already
 * kept the order; the LLM provider's own limit ends a hanging call), is not asked again for
 * `pauseMs`: meanwhile the candidates keep their order without a call, so a stopped or overloaded
 * model costs one deadline (and one warning, from the failed call), not one per search.
 */
export function pausingReranker(provider: RerankProvider, opts: { pauseMs?: number; now?: () => number } = {}): RerankProvider {
  const pauseMs = opts.pauseMs ?? RERANK_PAUSE_MS;
  const now = opts.now ?? Date.now;
  let pausedUntil = 0;
  return async (query, candidates, cfg) => {
    if (now() < pausedUntil) return candidates;
    const t0 = now();
    try {
      const answer = await provider(query, candidates, cfg);
      if (now() - t0 > cfg.timeoutMs) pausedUntil = now() + pauseMs;
      return answer;
    } catch (e) {
      pausedUntil = now() + pauseMs;
      throw e;
    }
  };
}
