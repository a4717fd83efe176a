/**
 * A {@link RerankProvider} backed by any LlmProvider (Ollama by default in the engine): the
 * model gets the query and the numbered candidates and answers the numbers best first, as JSON
 * (`{"order":[3,1,2]}`). Unknown, repeated or missing numbers are tolerated (rerank.ts keeps
 * omitted candidates after the ranked ones); an unparseable answer throws, which makes rerank()
 * keep the original order. The timeout is rerank()'s Promise.race plus the LLM call's own limit.
 */
import type { LlmProvider } from '../llm/types';
import { parseLlmJson } from '../llm/parseJson';
import type { RerankCandidate, RerankProvider } from './rerank';

/** Characters of each candidate shown to the model. */
export const RERANK_SNIPPET_CHARS = 400;

const SCHEMA = {
  type: 'object',
  properties: { order: { type: 'array', items: { type: 'integer' } } },
  required: ['order'],
} as const;

export function rerankPrompt(query: string, candidates: readonly RerankCandidate[]): string {
  const lines = candidates.map((c, i) => `${i + 1}. ${c.content.replace(/\s+/g, ' ').slice(0, RERANK_SNIPPET_CHARS)}`);
  return [
    'Rank the numbered memories by how well each answers or relates to the query.',
    'Answer with JSON only: {"order": [numbers, most relevant first]}. Include every number once.',
    '',
    `Query: ${query.replace(/\s+/g, ' ').slice(0, 1000)}`,
    '',
    'Memories:',
    ...lines,
  ].join('\n');
}

export function llmReranker(llm: LlmProvider): RerankProvider {
  return async (query, candidates, cfg) => {
    const raw = await llm.generate(rerankPrompt(query, candidates), {
      format: SCHEMA as unknown as Record<string, unknown>,
      timeoutMs: cfg.timeoutMs,
      temperature: 0,
    });
    const parsed = parseLlmJson(raw);
    if (!parsed.ok) throw new Error(`reranker: ${parsed.error}`);
    const order = (parsed.value as { order?: unknown })?.order;
    if (!Array.isArray(order)) throw new Error('reranker: the answer has no "order" list');
    const out: RerankCandidate[] = [];
    for (const n of order) {
      const c = Number.isInteger(n) ? candidates[(n as number) - 1] : undefined;
      if (c) out.push(c);
    }
    return out;
  };
}
