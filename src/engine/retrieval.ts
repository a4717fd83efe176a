/**
 * The vector side of one store: the core's WritePath (vector store of the active embedding
 * space, embed-on-write, smart store, backfill, dedup scan, snapshot/close) plus the hybrid
 * search over the same index. The engine opens one per store over one shared embedder; when
 * it cannot open, the engine keeps serving with the keyword-only fallback and says why.
 */
import type { Store } from '../core/store/store';
import type { MemoryService } from '../core/memory/memoryService';
import { WritePath } from '../core/memory/writePath';
import type { VectorStore } from '../core/vectorstore/vectorStore';
import { HybridSearch } from '../core/search/hybrid';
import { searchSettingsFromConfig } from '../core/search/settings';
import type { AcceptResult } from '../core/consolidation/smartStore';
import { consolidationSettingsFrom } from '../core/consolidation/settings';
import type { GraphBoostProvider, SearchRequest, SearchResponse } from '../core/search/types';
import type { Embedder } from '../core/embed/types';
import { selectEmbedder, type EmbedderSelection } from '../core/embed/select';
import type { ResolvedConfig } from '../core/config';
import type { CreateMemoryInput, CreateResult, MemoryRecord, UpdateMemoryInput } from '../core/memory/types';

/** The result of a create through the smart store (docs/consolidation.md): CreateResult plus what happened. */
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
  /** Update; a changed text is embedded again before the commit. */
  update(id: string, patch: UpdateMemoryInput): Promise<MemoryRecord>;
  /** Merges a consolidation suggestion (memory.merge_strategy). */
  accept(suggestionId: string): Promise<AcceptResult>;
  reject(suggestionId: string): void;
  search(req: SearchRequest): Promise<SearchResponse>;
  /** One pass of the dedup scanner over the index: suggestions created. */
  dedupScan(projectId: string): Promise<number>;
  /** Memories waiting for their vector (imports, failed embeds) are embedded in the background. */
  kickBackfill(): void;
  /** Store snapshot, then the index. */
  snapshot(): Promise<void>;
  /** Stops the background work and saves and closes the index (the store stays open). */
  close(): Promise<void>;
}

/** The embedder of the configuration (`embedding.*`): Ollama, the built-in model, or hash. */
export function chooseEmbedder(config: ResolvedConfig): Promise<EmbedderSelection> {
  const e = config.embedding;
  return selectEmbedder({ provider: e.provider, model: e.model, ollamaUrl: e.ollama_url });
}

export async function openRetrieval(
  store: Store,
  svc: MemoryService,
  embedder: Embedder,
  config: ResolvedConfig,
  onWarning: (message: string) => void,
  now?: () => Date,
  graphBoost?: GraphBoostProvider,
): Promise<Retrieval> {
  const wp = await WritePath.open({
    store, memory: svc, embedder, vector: config.vector, consolidation: consolidationSettingsFrom(config.memory), onWarning,
  });
  const hybrid = new HybridSearch(store, {
    projectId: svc.projectId, embedder, vectors: wp.vectors, settings: searchSettingsFromConfig(config),
    ...(now ? { now } : {}), ...(graphBoost ? { graphBoost } : {}),
  });
  return {
    get vectors() {
      return wp.vectors;
    },
    async create(input) {
      const r = await wp.smart.save(input);
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
    update: async (id, patch) => (await wp.ingest.update(id, patch)).memory,
    accept: (id) => wp.smart.accept(id, { by: 'user' }),
    reject: (id) => { wp.smart.reject(id, { by: 'user' }); },
    search: (req) => hybrid.search(req),
    dedupScan: async (projectId) => (await wp.dedupScan({ projectId })).created.length,
    kickBackfill: () => wp.backfill.kick(),
    snapshot: () => wp.snapshot(),
    close: () => wp.close(),
  };
}
