/**
 * The runtime of ONE store: the memory service, the smart store (write path), the hybrid
 * search (read path), the vector side when there is an embedder (vector store of the active
 * space, embedding backfill, embedder switch), access bookkeeping and the store's pipeline
 * (extraction, documents, retention, maintenance). The engine builds one per store and
 * rebuilds it on a configuration reload; the store itself stays open.
 *
 * Without an embedder (or when the vector index cannot open) nothing changes but the vectors:
 * the same SmartStore rules without neighbours (writes stored with their embedding pending) and
 * the same HybridSearch with its keyword leg only.
 */
import type { Store } from '../../../core/store/store';
import { MemoryService } from '../../../core/memory/memoryService';
import type { CreateMemoryInput, UpdatedMemory, UpdateMemoryInput } from '../../../core/memory/types';
import { EmbedOnWrite } from '../../../core/memory/embedOnWrite';
import { EmbeddingBackfill } from '../../../core/memory/backfill';
import { reembedAll, type ReembedProgress, type ReembedResult } from '../../../core/memory/reembed';
import type { Embedder } from '../../../core/embed/types';
import { ActiveSpace } from '../../../core/vectorstore/activeSpace';
import { VectorStore } from '../../../core/vectorstore/vectorStore';
import { SmartStore, type AcceptResult } from '../../../core/consolidation/smartStore';
import { consolidationSettingsFrom } from '../../../core/consolidation/settings';
import { runDedupScan } from '../../../core/consolidation/scanner';
import { HybridSearch } from '../../../core/search/hybrid';
import { searchSettingsFromConfig } from '../../../core/search/settings';
import type { GraphBoostProvider, SearchRequest, SearchResponse } from '../../../core/search/types';
import { AccessTracker } from '../../../core/lifecycle/access';
import { cleanupExpired } from '../../../core/lifecycle/cleanup';
import { pipelineMode, type ResolvedConfig } from '../../../core/config';
import type { LlmProvider } from '../../../core/llm/types';
import { MemoryPipeline, modeOf, type PipelineDeps } from '../../../core/pipeline/pipeline';
import { createSearchCandidateFinder } from '../../../core/pipeline/searchCandidates';
import type { FindCandidates } from '../../../core/pipeline/decision';
import type { BackgroundTask } from '../../../core/util/backgroundTask';
import { WebhookSender } from '../../../core/webhooks/worker';
import { TeamSyncTask, type TeamSyncOptions } from '../../../core/team/syncTask';
import { createTeamReviewHandler } from '../../../core/team/review';
import { TEAM_REVIEW_JOB } from '../../../core/team/apply';
import { errorMessage } from '../../../core/util/errors';
import { lifecycleFrom } from '../config';
import type { StoreName } from '../../protocol';
import { rerankerFromConfig } from './reranker';
import { SessionsRuntime } from './sessionsRuntime';
import type { RollOutcome } from '../../../core/sessions/summary';
import { toCreateResult, type SmartCreateResult } from './createResult';

/** Live memories, not yet queued, with no vector in the space bound as the parameter. */
const UNQUEUED_WITHOUT_VECTOR = `deleted_at IS NULL AND embedding_status <> 'pending'
  AND NOT EXISTS (SELECT 1 FROM embeddings e WHERE e.space = ? AND e.text_hash = memories.embedding_hash)`;

export type { SmartCreateResult } from './createResult';

export interface RuntimeOptions {
  name: StoreName;
  store: Store;
  projectId: string;
  config: ResolvedConfig;
  /** The active embedder; absent → no vectors (see the file comment). */
  embedder?: Embedder;
  /** The pipeline's LLM (the live Ollama provider). */
  llm: LlmProvider;
  /** Untrusted workspace: no pipeline, no access bookkeeping. */
  restricted: boolean;
  now?: () => Date;
  onWarning(message: string): void;
  onPipelineEvent?: PipelineDeps['onEvent'];
  /** The project store's webhook deliveries (docs/changes.md): sent by this runtime when it may write. */
  webhooks?: Pick<ConstructorParameters<typeof WebhookSender>[0], 'secret' | 'onAttempt'>;
  /** The project store's team sync (docs/team.md): run by this runtime when it may write. */
  team?: Omit<TeamSyncOptions, 'store' | 'projectId' | 'now'>;
  /** Open the agent sessions of this store (the project store's; docs/sessions.md). */
  sessions?: boolean;
  /** A rolling summary was written in the background. */
  onSessionSummary?: (sessionId: string, outcome: RollOutcome) => void;
}

export class StoreRuntime {
  readonly name: StoreName;
  readonly store: Store;
  readonly memory: MemoryService;
  readonly smart: SmartStore;
  /** Accesses of search hits (absent when the store cannot be written). */
  readonly access: AccessTracker | undefined;
  /** Extraction, documents, retention and maintenance of this store (absent when read-only or restricted). */
  readonly pipeline: MemoryPipeline | undefined;
  /** Decision candidates of the pipeline: this store's hybrid search, like recall (never reranked). */
  readonly findCandidates: FindCandidates;
  private hybrid: HybridSearch;
  /** Sends the webhook deliveries of this store (the project store's owner, trusted workspace). */
  readonly webhookSender: WebhookSender | undefined;
  readonly teamSync: TeamSyncTask | undefined;
  private readonly embedOnWrite: EmbedOnWrite | undefined;
  private readonly backfill: EmbeddingBackfill | undefined;
  private switching: { run: Promise<ReembedResult>; abort: AbortController } | undefined;
  private closed = false;
  /** The agent sessions of this store (the project store only). */
  sessions: SessionsRuntime | undefined;

  private constructor(
    private readonly opts: RuntimeOptions,
    readonly space: ActiveSpace | undefined,
  ) {
    const { store, config } = opts;
    this.name = opts.name;
    this.store = store;
    this.memory = new MemoryService(store, {
      projectId: opts.projectId,
      lifecycle: lifecycleFrom(config),
      enqueueExtraction: pipelineMode(config) !== 'off',
      secretPolicy: config.memory.secret_policy,
      ...(opts.now ? { now: opts.now } : {}),
    });
    const warn = (m: string) => opts.onWarning(`${opts.name} vectors: ${m}`);
    this.backfill = space ? new EmbeddingBackfill(store, this.memory, space, { onWarning: warn }) : undefined;
    const kick = () => this.backfill?.kick();
    this.smart = new SmartStore({ store, memory: this.memory, space, settings: consolidationSettingsFrom(config.memory), onPending: kick });
    this.embedOnWrite = space ? new EmbedOnWrite(store, this.memory, space, { onPending: kick }) : undefined;
    const writable = !store.isReadOnly && !opts.restricted;
    this.access = writable
      ? new AccessTracker(store, {
          lifecycle: lifecycleFrom(config),
          ...(opts.now ? { now: opts.now } : {}),
          onError: (m) => opts.onWarning(`access tracking: ${m}`),
        })
      : undefined;
    const maxLimit = config.search.max_limit;
    const search = { search: (req: SearchRequest) => this.hybrid.search({ ...req, limit: Math.min(req.limit ?? maxLimit, maxLimit) }) };
    this.findCandidates = createSearchCandidateFinder(store, search, { minScore: config.search.min_score });
    this.pipeline = writable ? this.createPipeline() : undefined;
    this.webhookSender = writable && opts.webhooks ? this.createWebhookSender(opts.webhooks) : undefined;
    this.teamSync =
      writable && opts.team && !opts.restricted
        ? new TeamSyncTask({
            ...opts.team,
            store,
            projectId: opts.projectId,
            reviewPulled: () => modeOf(config.memory.pipelineV2) !== 'off',
            ...(opts.now ? { now: opts.now } : {}),
          })
        : undefined;
    this.hybrid = this.createSearch();
    // A completed embedder switch: search the new space from now on.
    space?.onSwitch(() => {
      this.hybrid = this.createSearch();
    });
  }

  /** Opens the vector side when there is an embedder; its failure leaves the runtime without vectors, with a warning. */
  static async open(opts: RuntimeOptions): Promise<StoreRuntime> {
    let space: ActiveSpace | undefined;
    const { store, embedder } = opts;
    if (embedder) {
      try {
        if (!embedder.dimension) throw new Error(`the embedder ${embedder.id} does not know its dimension`);
        const vectors = await VectorStore.open({
          store,
          space: embedder.space,
          dimension: embedder.dimension,
          params: { ...opts.config.vector },
          onWarning: (m) => opts.onWarning(`${opts.name} vectors: ${m}`),
        });
        space = new ActiveSpace(embedder, vectors);
      } catch (e) {
        opts.onWarning(`${opts.name} store: the vector index could not open (${errorMessage(e)}): search is keyword-only`);
      }
    }
    const runtime = new StoreRuntime(opts, space);
    if (!store.isReadOnly) runtime.backfill?.start();
    runtime.webhookSender?.start();
    runtime.teamSync?.start();
    if (opts.sessions) runtime.sessions = await runtime.openSessions();
    return runtime;
  }

  get projectId(): string {
    return this.memory.projectId;
  }

  /** Whether this store has a vector side (else keyword-only search). */
  get hasVectors(): boolean {
    return this.space !== undefined;
  }

  /** Embed (when there are vectors), consolidate (auto-merge / suggest / store) and commit. */
  async create(input: CreateMemoryInput): Promise<SmartCreateResult> {
    return toCreateResult(await this.smart.save(input));
  }

  /** Update; with vectors a changed text is embedded again before the commit. */
  async update(id: string, patch: UpdateMemoryInput): Promise<UpdatedMemory> {
    if (this.embedOnWrite) return (await this.embedOnWrite.update(id, patch)).memory;
    return this.memory.update(id, patch);
  }

  accept(suggestionId: string): Promise<AcceptResult> {
    return this.smart.accept(suggestionId, { by: 'user' });
  }

  reject(suggestionId: string): void {
    this.smart.reject(suggestionId, { by: 'user' });
  }

  search(req: SearchRequest): Promise<SearchResponse> {
    return this.hybrid.search(req);
  }

  /** One pass of the dedup scanner over the index: suggestions created (0 without vectors). */
  async dedupScan(): Promise<number> {
    if (!this.space || this.store.isReadOnly) return 0;
    const r = await runDedupScan(this.store, this.space.vectors, {
      projectId: this.projectId,
      threshold: this.smart.settings.similarityThreshold,
    });
    return r.created.length;
  }

  /** The expiry sweep: ids of the short-term memories it expired. */
  sweepExpired(): string[] {
    if (this.store.isReadOnly || this.opts.restricted) return [];
    return cleanupExpired(this.store, { now: (this.opts.now ?? (() => new Date()))() }).ids;
  }

  /** Live memories without a vector in the active space that are not queued yet (0 without vectors). */
  missingVectors(): number {
    if (!this.space) return 0;
    return Number(
      this.store.get<{ n: number }>(`SELECT count(*) AS n FROM memories WHERE ${UNQUEUED_WITHOUT_VECTOR}`, [this.space.embedder.space])!.n,
    );
  }

  /**
   * Marks live memories without a vector in the active space as pending and wakes the backfill;
   * how many. Writes nothing when none is missing. A write the disk refuses throws (the engine
   * queues them once the store takes writes again).
   */
  queueMissingVectors(): number {
    if (!this.space || this.store.isReadOnly || !this.missingVectors()) return 0;
    const space = this.space.embedder.space;
    const n = this.store.transaction((tx) => {
      tx.run(`UPDATE memories SET embedding_status = 'pending' WHERE ${UNQUEUED_WITHOUT_VECTOR}`, [space]);
      return tx.changes();
    });
    if (n) this.kickBackfill();
    return n;
  }

  kickBackfill(): void {
    this.backfill?.kick();
  }

  /** Webhooks or their deliveries changed outside a commit's wake (a secret made, dead ones retried). */
  kickWebhooks(): void {
    this.webhookSender?.kick();
  }

  /**
   * What the engine's scheduler drives for this store: the embedding backfill, the pipeline's
   * workers, webhook deliveries, the team sync, the sessions' tasks.
   */
  backgroundTasks(): BackgroundTask[] {
    return [
      ...(this.backfill ? [this.backfill] : []),
      ...(this.pipeline?.tasks() ?? []),
      ...(this.webhookSender ? [this.webhookSender] : []),
      ...(this.teamSync ? [this.teamSync] : []),
      ...(this.sessions?.tasks() ?? []),
    ];
  }

  /** The session API over this store; summaries use the pipeline's model only when the pipeline is on. */
  private openSessions(): Promise<SessionsRuntime> {
    const { config, llm } = this.opts;
    return SessionsRuntime.open({
      store: this.store,
      space: this.space,
      params: { ...config.vector },
      llm: () => (pipelineMode(config) !== 'off' && !this.opts.restricted ? llm : undefined),
      ...(this.opts.now ? { now: this.opts.now } : {}),
      onWarning: (m) => this.opts.onWarning(`${this.name} store: ${m}`),
      ...(this.opts.onSessionSummary ? { onSummary: this.opts.onSessionSummary } : {}),
    });
  }

  /**
   * Re-embeds every memory with `next` in the background (src/core/memory/reembed.ts); search and
   * writes keep the old space until the new one is complete, then switch. One switch at a time.
   */
  switchEmbedder(next: Embedder, onProgress: (p: ReembedProgress) => void): Promise<ReembedResult> {
    if (!this.space)
      return Promise.resolve({ status: 'failed', done: 0, total: 0, space: next.space, error: 'this store has no vector index' });
    if (this.closed) return Promise.resolve({ status: 'cancelled', done: 0, total: 0, space: next.space });
    if (this.switching) return Promise.reject(new Error('an embedder switch is already running'));
    const abort = new AbortController();
    const space = this.space;
    const run = reembedAll(this.store, space, next, {
      params: { ...this.opts.config.vector },
      signal: abort.signal,
      onProgress,
      onWarning: (m) => this.opts.onWarning(`${this.name} vectors: ${m}`),
    })
      .then(async (r) => {
        if (r.status === 'switched' && r.previous.vectors !== space.vectors) await r.previous.vectors.close();
        return r;
      })
      .finally(() => {
        this.switching = undefined;
      });
    this.switching = { run, abort };
    return run;
  }

  /** The embedder searches and writes use now (absent without vectors). */
  get activeEmbedder(): Embedder | undefined {
    return this.space?.embedder;
  }

  /** Store snapshot, then the vector index. */
  async snapshot(): Promise<void> {
    await this.store.snapshot();
    await this.space?.vectors.save();
    await this.sessions?.chunks.save();
  }

  /**
   * Stops the pipeline, the backfill and a running switch, writes the last accesses and saves
   * and closes the index. The store stays open (the engine owns it). `promoted`: ids the last
   * access flush made permanent.
   */
  async close(): Promise<{ promoted: string[] }> {
    if (this.closed) return { promoted: [] };
    this.closed = true;
    this.webhookSender?.stop(); // attempts under way are cut short: they stay pending and are sent again
    await this.teamSync?.stop(); // a round under way ends first: its answer is recorded, or sent again next time
    let promoted: string[] = [];
    await this.pipeline?.stop({ graceMs: 2000 }).catch((e) => this.opts.onWarning(`pipeline stop: ${errorMessage(e)}`));
    try {
      promoted = this.access?.close().promoted ?? [];
    } catch (e) {
      this.opts.onWarning(`access tracking: ${errorMessage(e)}`);
    }
    this.switching?.abort.abort();
    await this.switching?.run.catch(() => undefined);
    await this.backfill?.stop();
    await this.sessions?.close();
    try {
      await this.space?.vectors.close();
    } catch (e) {
      this.opts.onWarning(`${this.name} vector index not saved on close: ${errorMessage(e)}`);
    }
    return { promoted };
  }

  private createSearch(): HybridSearch {
    const { config, now } = this.opts;
    const pair = this.space?.current;
    const reranker = rerankerFromConfig(config.memory.pipelineV2);
    return new HybridSearch(this.store, {
      projectId: this.memory.projectId,
      ...(pair ? { embedder: pair.embedder, vectors: pair.vectors } : {}),
      settings: searchSettingsFromConfig(config),
      graphBoost: this.graphBoost,
      ...(reranker ? { reranker } : {}),
      ...(now ? { now } : {}),
    });
  }

  /** Memories linked to the query's entities by this store's knowledge graph (graphEnabled). */
  private readonly graphBoost: GraphBoostProvider = (query) => {
    const r = this.pipeline?.graphBoost(query);
    return { memoryIds: new Set(r?.memoryIds ?? []), timedOut: r?.timedOut ?? false };
  };

  private createWebhookSender(hooks: NonNullable<RuntimeOptions['webhooks']>): WebhookSender {
    const w = this.opts.config.webhooks;
    return new WebhookSender({
      store: this.store,
      ...hooks,
      settings: () => ({ timeoutMs: w.timeout, maxAttempts: w.maxAttempts, retryDelayMs: w.retryDelay, maxRetryDelayMs: w.maxRetryDelay }),
      ...(this.opts.now ? { now: this.opts.now } : {}),
      onWarning: (m) => this.opts.onWarning(m),
    });
  }

  private createPipeline(): MemoryPipeline | undefined {
    const { config } = this.opts;
    try {
      return new MemoryPipeline({
        store: this.store,
        memory: this.memory,
        projectId: this.opts.projectId,
        llm: this.opts.llm,
        ...(this.space ? { embedder: activeEmbedder(this.space) } : {}),
        findCandidates: this.findCandidates,
        config: () => config.memory.pipelineV2,
        ...(this.opts.now ? { now: this.opts.now } : {}),
        ...(this.opts.onPipelineEvent ? { onEvent: this.opts.onPipelineEvent } : {}),
        jobHandlers: (llm) => ({
          [TEAM_REVIEW_JOB]: createTeamReviewHandler({
            store: this.store,
            memory: this.memory,
            llm,
            findCandidates: this.findCandidates,
            settings: () => {
              const m = modeOf(config.memory.pipelineV2);
              return { mode: m === 'off' ? 'shadow' : m, extractionTimeoutMs: config.memory.pipelineV2.extractionTimeout };
            },
            now: this.opts.now ?? (() => new Date()),
          }),
        }),
      });
    } catch (e) {
      this.opts.onWarning(`${this.name} store: the pipeline could not start: ${errorMessage(e)}`);
      return undefined;
    }
  }
}

/** An Embedder that is always the active space's (the pipeline keeps it across an embedder switch). */
function activeEmbedder(space: ActiveSpace): Embedder {
  return {
    get id() {
      return space.embedder.id;
    },
    get space() {
      return space.embedder.space;
    },
    get dimension() {
      return space.embedder.dimension;
    },
    embed: (texts, kind) => space.embedder.embed(texts, kind),
    available: () => space.embedder.available(),
    dispose: () => undefined, // the engine owns and disposes the real embedders
  };
}
