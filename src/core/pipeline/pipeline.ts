/**
 * MemoryPipeline: the one object a host (the engine worker thread, a CLI, the benchmarks)
 * creates per store to run pipeline v2. It composes the extraction worker, the document
 * worker, the retention worker and the maintenance worker, reads the configuration live
 * through a getter, and exposes the review / undo / graph functions. It sets no timer: the
 * workers are background tasks (`tasks()`) the host's scheduler drives (src/engine/worker/scheduler.ts).
 *
 *   const p = new MemoryPipeline({ store, memory, projectId, llm, embedder, findCandidates, config: () => cfg });
 *   scheduler.drive(p.tasks());
 *   p.start();            // after the store is open; does nothing for workers that are off
 *   await p.stop();       // before store.close(): waits for the jobs in flight, leaves none leased
 *
 * The graph provenance of memories deleted through the memory API is the host's to collect
 * (`collectGraphGarbage`, docs/pipeline.md "Knowledge graph").
 */
import type { Store } from '../store/store';
import type { BackgroundTask } from '../util/backgroundTask';
import type { MemoryService } from '../memory/memoryService';
import type { Embedder } from '../embed/types';
import type { LlmProvider } from '../llm/types';
import { ModelCallWatch, watchModelCalls, type ModelWaitState } from '../llm/callWatch';
import type { PipelineMode, PipelineV2Config } from '../config/types';
import { JobWorker, type JobHandler, type WorkerEvent } from '../jobs/worker';
import { jobCounts } from '../jobs/queue';
import { createDocumentHandler, createDocument, guardDocument, type CreateDocumentInput, type DocumentRow } from '../documents/ingest';
import type { DocumentFetcher } from '../documents/fetch';
import { RetentionWorker } from '../retention/worker';
import { MaintenanceWorker, type MaintenanceSettings } from '../maintenance/worker';
import { getGraphBoostIds, type GraphBoostResult } from '../graph/boost';
import { collectDeletedMemoryGraphs } from '../graph/gc';
import { createExtractHandler, type ExtractSettings } from './extractJob';
import { HybridSearch } from '../search/hybrid';
import { createSearchCandidateFinder } from './searchCandidates';
import type { FindCandidates } from './decision';
import { approveReview, listPendingReviews, rejectReview, type PendingReview } from './reviews';
import { undoHistory, type UndoResult } from './undo';

type Cfg = Readonly<PipelineV2Config>;

export interface PipelineDeps {
  store: Store;
  /** The store runtime's memory API (one per store); the pipeline's writes pass `extract: false`. */
  memory: MemoryService;
  /** Normalized project id of the store (src/core/project). */
  projectId: string;
  llm: LlmProvider;
  /** Embeds facts and chunks before their transaction; absent → written `pending`. */
  embedder?: Embedder;
  /**
   * Decision candidates: the host's hybrid search (createSearchCandidateFinder). Default: the
   * same HybridSearch over this store with its keyword leg only.
   */
  findCandidates?: FindCandidates;
  /** Live `memory.pipelineV2` config (re-read on every job). */
  config: () => Cfg;
  /** `search.min_score`, for the default candidate finder. */
  minScore?: number;
  /** URL documents; default: file: and 127.0.0.1/localhost only. */
  fetchDocument?: DocumentFetcher;
  now?: () => Date;
  onEvent?: (e: WorkerEvent | { type: 'log'; message: string }) => void;
  /**
   * More job types for the extraction worker, made by the host from layers above this one (the
   * team's decision on memories other people shared, src/core/team/review.ts).
   */
  jobHandlers?: (llm: LlmProvider) => Record<string, JobHandler>;
}

export function modeOf(c: Cfg): PipelineMode {
  if (!c.enabled) return 'off';
  if (c.shadowMode || c.mutationsFrozen) return 'shadow';
  return c.allowUpdateDelete ? 'full' : 'controlled';
}

export class MemoryPipeline {
  /** The store's memory API (given, never built here); derived writes pass `extract: false` (no re-learning loops). */
  readonly memory: MemoryService;
  readonly extractWorker: JobWorker;
  readonly documentWorker: JobWorker;
  readonly retention: RetentionWorker;
  readonly maintenance: MaintenanceWorker;
  /** Model calls of the extraction jobs: status() tells "waiting for the model" when they stall. */
  readonly modelCalls = new ModelCallWatch();
  private readonly now: () => Date;

  constructor(private readonly deps: PipelineDeps) {
    this.now = deps.now ?? (() => new Date());
    const { store } = deps;
    this.memory = deps.memory;
    const cfg = deps.config;
    const extractSettings = (): ExtractSettings => {
      const c = cfg();
      const m = modeOf(c);
      return {
        mode: m === 'off' ? 'shadow' : m,
        graphEnabled: c.graphEnabled,
        minFactConfidenceForWrite: c.minFactConfidenceForWrite,
        extractionTimeoutMs: c.extractionTimeout,
      };
    };
    const onEvent = (e: WorkerEvent) => deps.onEvent?.(e);
    const llm = watchModelCalls(deps.llm, this.modelCalls);
    this.extractWorker = new JobWorker(store, {
      handlers: {
        ...deps.jobHandlers?.(llm),
        extract: createExtractHandler({
          store,
          memory: this.memory,
          llm,
          embedder: deps.embedder,
          now: this.now,
          settings: extractSettings,
          findCandidates: deps.findCandidates ?? keywordCandidates(store, deps.projectId, deps.minScore),
        }),
      },
      pollMs: cfg().workerPollMs,
      maxRetries: cfg().workerMaxRetries,
      leaseTimeoutMs: cfg().leaseTimeoutMs,
      now: this.now,
      onEvent,
    });
    this.documentWorker = new JobWorker(store, {
      handlers: {
        document_ingest: createDocumentHandler({
          store,
          memory: this.memory,
          embedder: deps.embedder,
          fetchDocument: deps.fetchDocument,
          now: this.now,
          settings: () => {
            const c = cfg();
            return {
              chunkSize: c.documentChunkSize,
              chunkOverlap: c.documentChunkOverlap,
              maxContentBytes: c.documentMaxContentBytes,
              maxRetries: c.workerMaxRetries,
            };
          },
        }),
      },
      pollMs: cfg().documentWorkerIntervalMs,
      maxRetries: cfg().workerMaxRetries,
      leaseTimeoutMs: cfg().leaseTimeoutMs,
      now: this.now,
      onEvent,
    });
    const windows = () => {
      const c = cfg();
      return {
        tombstoneRetentionMs: c.tombstoneRetentionMs,
        historyRetentionMs: c.historyRetentionMs,
        completedJobRetentionMs: c.completedJobRetentionMs,
        deadJobRetentionMs: c.deadJobRetentionMs,
      };
    };
    this.retention = new RetentionWorker(store, { windows, intervalMs: () => cfg().retentionIntervalMs, now: this.now });
    this.maintenance = new MaintenanceWorker(
      store,
      (): MaintenanceSettings => {
        const c = cfg();
        return {
          enabled: c.autonomousEnabled && !c.autonomousFrozen,
          mode: c.maintenanceMode,
          intervalMs: c.maintenanceIntervalMs,
          leaseTimeoutMs: c.leaseTimeoutMs,
          reembed: { cooldownMs: c.repairReembedCooldownMs, hourlyBudget: c.repairReembedHourlyBudget },
          requeue: { cooldownMs: c.repairRequeueCooldownMs, hourlyBudget: c.repairRequeueHourlyBudget },
          retention: windows(),
        };
      },
      { now: this.now },
    );
  }

  get mode(): PipelineMode {
    return modeOf(this.deps.config());
  }

  /**
   * Start what the config enables: extraction + document workers when `enabled`; retention
   * always (it also serves users without the extraction pipeline); maintenance when
   * autonomousEnabled and not autonomousFrozen.
   */
  start(): void {
    if (this.mode !== 'off') {
      this.extractWorker.start();
      this.documentWorker.start();
    }
    this.retention.start();
    this.maintenance.start();
  }

  /** The background tasks of this pipeline, for the host's scheduler (each is idle until started). */
  tasks(): BackgroundTask[] {
    return [this.extractWorker, this.documentWorker, this.retention, this.maintenance];
  }

  /** Stop everything; waits for jobs in flight (cut short after `graceMs` and released). */
  async stop(opts: { graceMs?: number } = {}): Promise<void> {
    this.retention.stop();
    this.maintenance.stop();
    await Promise.all([this.extractWorker.stop(opts), this.documentWorker.stop(opts)]);
  }

  /** Apply a changed config: start or stop the job workers and the maintenance interval. */
  reconfigure(): Promise<void> | void {
    if (this.mode === 'off') {
      if (this.extractWorker.isRunning) return Promise.all([this.extractWorker.stop(), this.documentWorker.stop()]).then(() => undefined);
    } else {
      this.extractWorker.start();
      this.documentWorker.start();
    }
    if (this.deps.config().autonomousEnabled && !this.deps.config().autonomousFrozen) this.maintenance.start();
    else this.maintenance.stop();
  }

  /** For the engine's status view: mode, worker state, queue, reviews waiting. */
  status(): {
    mode: PipelineMode;
    running: boolean;
    consecutiveFailures: number;
    jobsProcessed: number;
    jobs: ReturnType<typeof jobCounts>;
    pendingReviews: number;
  } & ModelWaitState {
    return {
      ...this.modelCalls.state(),
      mode: this.mode,
      running: this.extractWorker.isRunning,
      consecutiveFailures: this.extractWorker.consecutiveFailures,
      jobsProcessed: this.extractWorker.jobsProcessed + this.documentWorker.jobsProcessed,
      jobs: jobCounts(this.deps.store),
      pendingReviews: Number(
        this.deps.store.get<{ n: number }>(`SELECT count(*) AS n FROM pipeline_reviews WHERE status = 'pending'`)?.n ?? 0,
      ),
    };
  }

  /**
   * Model check and pull for the LLM (docs/pipeline.md "Providers"): present / pulled / missing. Only providers that
   * support it (OllamaProvider); others report 'present'. Throws when Ollama is unreachable.
   */
  async ensureModel(opts: { pull: boolean }): Promise<'present' | 'pulled' | 'missing'> {
    const llm = this.deps.llm as LlmProvider & { ensureModel?: (o: { pull: boolean }) => Promise<'present' | 'pulled' | 'missing'> };
    return llm.ensureModel ? llm.ensureModel(opts) : 'present';
  }

  /** Records a document to ingest, after the secret guard (guardDocument: redacted, or refused with `secret_detected`). */
  ingestDocument(given: CreateDocumentInput): DocumentRow {
    const { input } = guardDocument(given, this.memory.secretPolicy);
    const row = createDocument(this.deps.store, this.deps.projectId, input, this.now(), this.deps.config().workerMaxRetries);
    this.documentWorker.wakeNow(); // not after documentWorkerIntervalMs
    return row;
  }

  graphBoost(query: string): GraphBoostResult {
    const c = this.deps.config();
    if (!c.graphEnabled) return { memoryIds: [], entityIds: [], timedOut: false };
    return getGraphBoostIds(this.deps.store, query, { deadlineMs: c.graphBoostTimeoutMs });
  }

  /** Graph GC for memories deleted through the memory API since (call after user deletes). */
  collectGraphGarbage(): ReturnType<typeof collectDeletedMemoryGraphs> {
    return collectDeletedMemoryGraphs(this.deps.store, this.now());
  }

  pendingReviews(limit?: number): PendingReview[] {
    return listPendingReviews(this.deps.store, limit);
  }

  approveReview(id: string, who?: string) {
    return approveReview(this.deps.store, this.memory, id, { who, now: this.now() });
  }

  rejectReview(id: string, who?: string): void {
    rejectReview(this.deps.store, id, { who, now: this.now() });
  }

  undo(historyId: string, who?: string): UndoResult {
    return undoHistory(this.deps.store, this.memory, historyId, { who, now: this.now() });
  }
}

/** Candidates from the hybrid search without vectors (its keyword leg), for hosts that give none. */
function keywordCandidates(store: Store, projectId: string, minScore?: number): FindCandidates {
  return createSearchCandidateFinder(store, new HybridSearch(store, { projectId }), minScore !== undefined ? { minScore } : {});
}
