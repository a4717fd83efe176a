/**
 * The write path composed for a host (the engine, a CLI, benchmarks): the vector store of
 * the active embedding space, embed-on-write, the smart store, the embedding backfill and
 * embedder switching, with one snapshot/close for store and index. Everything here is also
 * usable on its own; this only wires the pieces the way the engine needs them.
 */
import type { Store } from '../store/store';
import type { Embedder } from '../embed/types';
import type { VectorConfig } from '../config/types';
import { errorMessage } from '../util/errors';
import { ActiveSpace } from '../vectorstore/activeSpace';
import { VectorStore } from '../vectorstore/vectorStore';
import type { VectorIndexParams } from '../vectorstore/types';
import { SmartStore } from '../consolidation/smartStore';
import type { ConsolidationSettings } from '../consolidation/settings';
import { runDedupScan } from '../consolidation/scanner';
import { EmbeddingBackfill, type BackfillOptions } from './backfill';
import { MemoryIngest } from './ingest';
import type { MemoryService } from './memoryService';
import { reembedAll, type ReembedOptions, type ReembedResult } from './reembed';

export interface WritePathOptions {
  store: Store;
  memory: MemoryService;
  /** The active embedder (wrap it in a CachedEmbedder). Its `space` and `dimension` must be known. */
  embedder: Embedder;
  /** Config `vector.*` (M, efConstruction, efSearch). */
  vector?: Partial<VectorConfig>;
  /** Seed 003 settings; from config with consolidationSettingsFrom(config.memory). */
  consolidation?: Partial<ConsolidationSettings>;
  backfill?: BackfillOptions;
  /** Start the backfill loop now (default true). */
  startBackfill?: boolean;
  onWarning?: (message: string) => void;
}

export class WritePath {
  private reembedding: Promise<ReembedResult> | undefined;
  private reembedAbort: AbortController | undefined;
  private closed = false;

  private constructor(
    readonly store: Store,
    readonly space: ActiveSpace,
    readonly ingest: MemoryIngest,
    readonly smart: SmartStore,
    readonly backfill: EmbeddingBackfill,
    private readonly params: Partial<VectorIndexParams>,
    private readonly onWarning: ((m: string) => void) | undefined,
  ) {}

  static async open(opts: WritePathOptions): Promise<WritePath> {
    const { store, embedder } = opts;
    if (!embedder.dimension) throw new Error(`the embedder ${embedder.id} does not know its dimension yet (probe or embed once first)`);
    const params = { ...opts.vector };
    const vectors = await VectorStore.open({ store, space: embedder.space, dimension: embedder.dimension, params, onWarning: opts.onWarning });
    const space = new ActiveSpace(embedder, vectors);
    const backfill = new EmbeddingBackfill(store, opts.memory, space, { onWarning: opts.onWarning, ...opts.backfill });
    const kick = () => backfill.kick();
    const ingest = new MemoryIngest(store, opts.memory, space, { onPending: kick });
    const smart = new SmartStore({ store, memory: opts.memory, space, settings: opts.consolidation, onPending: kick });
    const wp = new WritePath(store, space, ingest, smart, backfill, params, opts.onWarning);
    if (opts.startBackfill !== false) backfill.start();
    return wp;
  }

  /** The searcher of the active space (hand it to the read path; re-read after a switch). */
  get vectors(): VectorStore {
    return this.space.vectors;
  }

  /**
   * Re-embeds everything with `next` in the background; the new space becomes active when
   * complete and the old index is closed (its vectors stay in the database until
   * dropEmbeddingSpace). One switch at a time; cancel() stops it.
   */
  switchEmbedder(next: Embedder, opts: Omit<ReembedOptions, 'signal' | 'params'> = {}): Promise<ReembedResult> {
    if (this.reembedding) throw new Error('an embedder switch is already running');
    this.reembedAbort = new AbortController();
    const run = reembedAll(this.store, this.space, next, { ...opts, params: this.params, signal: this.reembedAbort.signal, onWarning: this.onWarning })
      .then(async (r) => {
        if (r.status === 'switched' && r.previous.vectors !== this.space.vectors) await r.previous.vectors.close();
        return r;
      })
      .finally(() => {
        this.reembedding = undefined;
        this.reembedAbort = undefined;
      });
    this.reembedding = run;
    return run;
  }

  cancelSwitch(): void {
    this.reembedAbort?.abort();
  }

  /** One pass of the seed 003 dedup scanner over the active index (budgeted, yielding). */
  dedupScan(opts: { budget?: number; signal?: AbortSignal; projectId?: string } = {}) {
    return runDedupScan(this.store, this.space.vectors, { ...opts, threshold: this.smart.settings.similarityThreshold });
  }

  /** Store snapshot, then the vector index (the engine's periodic and idle step). */
  async snapshot(): Promise<void> {
    await this.store.snapshot();
    await this.space.vectors.save();
  }

  /** Stops background work and saves the index. The store itself stays open (the caller owns it). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.reembedAbort?.abort();
    await this.reembedding?.catch(() => undefined);
    await this.backfill.stop();
    try {
      await this.space.vectors.close();
    } catch (e) {
      this.onWarning?.(`vector index not saved on close: ${errorMessage(e)}`);
    }
  }
}
