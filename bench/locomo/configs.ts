// The registry of named retriever configs that `bench/locomo/run.ts` runs, in this order.
// Add engine-backed configs (full-text only, each embedder alone, hybrid) here: each entry is
// a factory that gets a fresh work directory for its per-sample stores (see retriever.ts).
import { ReferenceBm25Retriever } from './referenceBm25';
import type { RetrieverFactory } from './retriever';

export interface RetrieverConfig {
  /** One line for the table header / `--list`. */
  description: string;
  create: RetrieverFactory;
}

export const configs: Record<string, RetrieverConfig> = {
  'reference-bm25': {
    description: 'README reference: plain in-memory BM25 (k1 1.2, b 0.75, stop words, no stemming)',
    create: () => new ReferenceBm25Retriever(),
  },
};

/** The config that stands for "the default offline configuration" (issue 3's target). */
export const DEFAULT_CONFIG = 'reference-bm25';
