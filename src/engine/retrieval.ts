/**
 * The vector side of one store, composed from the core: its VectorStore (HNSW index of the
 * active embedding space), embed-on-write (MemoryIngest) and the hybrid search (FTS4 bm25 +
 * vector leg, fused). The engine creates one per store over one shared embedder; when the
 * vector side cannot open, the engine keeps serving with the keyword-only seam and says why.
 */
import type { Store } from '../core/store/store';
import type { MemoryService } from '../core/memory/memoryService';
import { MemoryIngest } from '../core/memory/ingest';
import { EmbeddingBackfill } from '../core/memory/backfill';
import { VectorStore } from '../core/vectorstore/vectorStore';
import { ActiveSpace } from '../core/vectorstore/activeSpace';
import { HybridSearch } from '../core/search/hybrid';
import { SmartStore, type AcceptResult } from '../core/consolidation/smartStore';
import { consolidationSettingsFrom } from '../core/consolidation/settings';
import type { GraphBoostProvider, SearchRequest, SearchResponse } from '../core/search/types';
import type { Embedder } from '../core/embed/types';
import { selectEmbedder, type EmbedderSelection } from '../core/embed/select';
import type { ResolvedConfig } from '../core/config';
import type { CreateMemoryInput, CreateResult, MemoryRecord, UpdateMemoryInput } from '../core/memory/types';

/** The result of a create through the smart store (seed 003): CreateResult plus what happened. */
export type SmartCreateResult = CreateResult & {
  /** stored / merged (auto-merge ≥ memory.auto_merge_threshold) / skipped / duplicate. */
  action: 'stored' | 'merged' | 'skipped' | 'duplicate';
  embedding?: 'ready' | 'pending' | 'none';
  /** Ids of the consolidation suggestions this write recorded (similarity_threshold … auto_merge_threshold). */
  suggestions?: string[];
};

export interface Retrieval {
  readonly vectors: VectorStore;
  /** Embed, consolidate (auto-merge / suggest / store) and commit: the smart store. */
  create(input: CreateMemoryInput): Promise<SmartCreateResult>;
  /** Merges a consolidation suggestion (memory.merge_strategy). */
  accept(suggestionId: string): Promise<AcceptResult>;
  reject(suggestionId: string): void;
  /** Update; a changed text is embedded again before the commit. */
  update(id: string, patch: UpdateMemoryInput): Promise<MemoryRecord>;
  search(req: SearchRequest): Promise<SearchResponse>;
  /** Memories waiting for their vector (imports, failed embeds) are embedded in the background. */
  kickBackfill(): void;
  /** Stops the background backfill (the VectorStore stays open). */
  close(): Promise<void>;
}

/** The embedder of the configuration (`embedding.*`): Ollama, the built-in model, or hash. */
export function chooseEmbedder(config: ResolvedConfig): Promise<EmbedderSelection> {
  const e = config.embedding;
  return selectEmbedder({ provider: e.provider, model: e.model, ollamaUrl: e.ollama_url });
}

/** Opens (or catches up) the HNSW index of the embedder's space for one store. */
export function openVectors(store: Store, embedder: Embedder, config: ResolvedConfig, onWarning: (message: string) => void): Promise<VectorStore> {
  const v = config.vector;
  return VectorStore.open({
    store, space: embedder.space, dimension: embedder.dimension,
    params: { M: v.M, efConstruction: v.efConstruction, efSearch: v.efSearch },
    onWarning,
  });
}

/**
 * Composes the write and read path over an open VectorStore. Cheap: a configuration reload
 * composes again over the same index. `close()` stops the backfill; `closeVectors` the index.
 */
export function composeRetrieval(
  store: Store,
  svc: MemoryService,
  embedder: Embedder,
  vectors: VectorStore,
  config: ResolvedConfig,
  onWarning: (message: string) => void,
  now?: () => Date,
  graphBoost?: GraphBoostProvider,
): Retrieval {
  const space = new ActiveSpace(embedder, vectors);
  const backfill = new EmbeddingBackfill(store, svc, space, { onWarning });
  const ingest = new MemoryIngest(store, svc, space, { onPending: () => backfill.kick() });
  const smart = new SmartStore({ store, memory: svc, space, settings: consolidationSettingsFrom(config.memory), onPending: () => backfill.kick() });
  backfill.start();
  const s = config.search;
  const hybrid = new HybridSearch(store, {
    projectId: svc.projectId, embedder, vectors, ...(now ? { now } : {}), ...(graphBoost ? { graphBoost } : {}),
    settings: {
      vectorWeight: s.vector_weight, keywordWeight: s.keyword_weight, defaultLimit: s.default_limit, maxLimit: s.max_limit,
      graphBoostWeight: config.memory.pipelineV2.graphBoostWeight, graphBoostTimeoutMs: config.memory.pipelineV2.graphBoostTimeoutMs,
    },
  });
  return {
    vectors,
    async create(input) {
      const r = await smart.save(input);
      const extra = { action: r.action, embedding: r.embedding, suggestions: r.suggestions.map((x) => x.id) };
      switch (r.action) {
        case 'stored':
          return { status: 'created', memory: r.memory!, warnings: r.warnings, ...extra };
        case 'merged':
          // Already remembered: the surviving memory now holds this text too.
          return { status: 'duplicate', memory: r.memory!, warnings: [...r.warnings, `merged into ${r.memory!.id} (similarity ${r.merge?.similarity.toFixed(2)})`], ...extra };
        case 'duplicate':
          return { status: 'duplicate', memory: r.memory!, warnings: r.warnings, ...extra };
        case 'skipped':
          return { status: 'skipped', reason: r.skipped!.reason, detail: r.skipped!.detail, ...(r.skipped!.existingId ? { existingId: r.skipped!.existingId } : {}), warnings: r.warnings, ...extra };
      }
    },
    accept: (id) => smart.accept(id, { by: 'user' }),
    reject: (id) => { smart.reject(id, { by: 'user' }); },
    update: async (id, patch) => (await ingest.update(id, patch)).memory,
    search: (req) => hybrid.search(req),
    kickBackfill: () => backfill.kick(),
    close: () => backfill.stop(),
  };
}
