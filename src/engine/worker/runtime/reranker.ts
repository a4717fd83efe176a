/**
 * The search reranker of the configuration (memory.pipelineV2.reranker*): the LLM reranker
 * (src/core/search/llmRerank.ts) over an Ollama provider at the pipeline's URL, with the
 * reranker's own model and deadline, paused for a minute after a failure. Off unless rerankerEnabled.
 */
import { ollamaProviderFromConfig } from '../../../core/llm/ollamaProvider';
import type { PipelineV2Config } from '../../../core/config/types';
import { llmReranker } from '../../../core/search/llmRerank';
import { pausingReranker } from '../../../core/search/rerank';
import type { HybridSearchDeps } from '../../../core/search/types';

type RerankerSettings = Pick<
  PipelineV2Config,
  'rerankerEnabled' | 'rerankerModel' | 'rerankerTopN' | 'rerankerTimeoutMs' | 'ollamaUrl' | 'extractionModel'
>;

export function rerankerFromConfig(c: RerankerSettings): HybridSearchDeps['reranker'] {
  if (!c.rerankerEnabled) return undefined;
  const model = c.rerankerModel.trim() || c.extractionModel;
  const llm = ollamaProviderFromConfig({ ollamaUrl: c.ollamaUrl, extractionModel: model, extractionTimeout: c.rerankerTimeoutMs });
  // A failing or slow model is not asked again for a minute (rerank.ts): one deadline, not one per search.
  return { provider: pausingReranker(llmReranker(llm)), config: { topN: c.rerankerTopN, timeoutMs: c.rerankerTimeoutMs, model } };
}
