// The registry of named retriever configs that `bench/locomo/run.ts` runs, in this order.
// Each entry is a factory that gets a fresh work directory for its per-sample stores (see
// retriever.ts). Engine configs run the product's read path (src/core/search) over real stores.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { HashEmbedder } from '../../src/core/embed/hashEmbedder';
import { UseLiteEmbedder } from '../../src/core/embed/useLite';
import { BuiltinEmbedder, STATIC_WEIGHTS_FILE, StaticEmbedder } from '../../src/core/embed/staticEmbedder';
import type { Embedder } from '../../src/core/embed/types';
import type { SearchSettings } from '../../src/core/search/types';
import { EngineRetriever } from './engineRetriever';
import { ReferenceBm25Retriever } from './referenceBm25';
import { SessionsRetriever } from './sessionsRetriever';
import type { RetrieverFactory } from './retriever';

export interface RetrieverConfig {
  /** One line for the table header / `--list`. */
  description: string;
  create: RetrieverFactory;
}

const hash = (): Embedder => new HashEmbedder({ dimension: 512 });
const useLite = (): Embedder => new UseLiteEmbedder();
/** The distilled query table, once bench/student/ made it (bench/student/README.md); its configs exist only then. */
export const STATIC_TABLE = path.resolve(__dirname, '../../.bench/student', STATIC_WEIGHTS_FILE);
/** USE-lite for the stored turns, the distilled table for queries. */
export const useStatic = (): Embedder => new BuiltinEmbedder(new UseLiteEmbedder(), new StaticEmbedder({ weightsPath: STATIC_TABLE }));

function engine(
  name: string,
  description: string,
  embedder: (() => Embedder) | undefined,
  settings: Partial<SearchSettings> = {},
): [string, RetrieverConfig] {
  return [name, { description, create: (ctx) => EngineRetriever.create(name, ctx, { embedder, settings }) }];
}

const VECTOR_ONLY: Partial<SearchSettings> = { vectorWeight: 1, keywordWeight: 0 };

export const configs: Record<string, RetrieverConfig> = Object.fromEntries([
  [
    'reference-bm25',
    {
      description: 'README reference: plain in-memory BM25 (k1 1.2, b 0.75, stop words, no stemming)',
      create: () => new ReferenceBm25Retriever(),
    },
  ],
  engine('fts', 'engine, full text only: FTS4 porter + bm25', undefined),
  engine('hash', 'engine, hash embedder alone (vector weight 1)', hash, VECTOR_ONLY),
  engine('use', 'engine, built-in USE-lite alone (vector weight 1)', useLite, VECTOR_ONLY),
  engine('hybrid-hash', 'engine, FTS + hash, product defaults (min-max, 0.5/0.5)', hash),
  engine('hybrid-use', 'engine, FTS + USE-lite, product defaults (min-max, 0.5/0.5, bm25 b 0.4)', useLite),
  engine('hybrid-use-0.7', 'engine, FTS + USE-lite, min-max, 0.7/0.3 (the default weights)', useLite, {
    vectorWeight: 0.7,
    keywordWeight: 0.3,
  }),
  engine('hybrid-use-inverse', 'engine, FTS + USE-lite, inverse map 1/(1+|bm25|), 0.5/0.5', useLite, {
    vectorWeight: 0.5,
    keywordWeight: 0.5,
    normalization: 'inverse',
  }),
  engine('hybrid-use-saturate', 'engine, FTS + USE-lite, |bm25|/(1+|bm25|), 0.5/0.5', useLite, {
    vectorWeight: 0.5,
    keywordWeight: 0.5,
    normalization: 'saturate',
  }),
  // Experiments without a code change: LOCOMO_EXP='{"feedbackDocs":3,"feedbackWeight":0.5}'.
  engine(
    'hybrid-use-exp',
    'engine, FTS + USE-lite, product defaults overridden by the JSON in LOCOMO_EXP',
    useLite,
    JSON.parse(process.env.LOCOMO_EXP ?? '{}') as Partial<SearchSettings>,
  ),
  [
    'sessions',
    {
      description:
        'agent sessions: each conversation session logged as events, the chunk query (FTS + USE-lite, 0.7/0.3), chunk scores to turns, cut at k turns',
      create: (ctx) => SessionsRetriever.create('sessions', ctx, { embedder: useLite }),
    },
  ],
  ...(fs.existsSync(STATIC_TABLE)
    ? [
        engine('use-static', 'engine, USE-lite turns, static-table queries alone (vector weight 1)', useStatic, VECTOR_ONLY),
        engine('hybrid-use-static', 'engine, FTS + USE-lite turns, static-table queries, product defaults', useStatic),
      ]
    : []),
]);

/** The config that stands for "the default offline configuration" (issue 3's target). */
export const DEFAULT_CONFIG = 'hybrid-use';
