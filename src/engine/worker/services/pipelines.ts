/**
 * The pipelines of both stores (each runtime runs its own: extraction, documents, retention,
 * maintenance) and their controls: status, pause/resume (every store's job workers), mode,
 * reviews, the change history for undo, document ingest and the maintenance diagnostics. Reviews,
 * undo and documents act on the project store, where extraction of the workspace's text happens.
 */
import { pipelineMode } from '../../../core/config';
import type { MemoryPipeline } from '../../../core/pipeline/pipeline';
import { listPendingReviews } from '../../../core/pipeline/reviews';
import type { EngineContext } from '../context';
import { EngineError } from '../../errors';
import * as pc from './pipelineControl';
import type { DocumentIngestResult, PipelineChange, PipelineDiagnostics, PipelineReview, PipelineStatus } from '../../protocol';
import type { EmbedderInfo } from '../runtime/embedders';
import { ingestFile } from './documentIngest';
import { NO_CONTEXT, type CallContext } from './transfer';
import { plural } from '../../../core/text/plural';

export class PipelinesService {
  /** pipeline.pause: the job workers stay stopped (also across config reloads) until pipeline.resume. */
  private paused: boolean;

  constructor(
    private readonly ctx: EngineContext,
    private readonly embedderInfo: () => EmbedderInfo | undefined,
  ) {
    this.paused = !!ctx.init.pipelinePaused;
  }

  /** Starts the pipelines of freshly built runtimes (stopped again at once when paused: nothing is leased yet). */
  async start(): Promise<void> {
    if (this.ctx.init.backgroundWork === false) return; // an owner for one short answer runs no pipeline
    for (const p of this.pipelines()) {
      p.start();
      if (this.paused) await pc.pauseWorkers(p);
    }
  }

  status(): PipelineStatus {
    const restricted = this.ctx.restricted;
    const base = restricted
      ? {
          state: 'off' as const,
          mode: pipelineMode(this.ctx.config),
          jobs: {},
          detail: 'Restricted mode: this workspace is not trusted, so memories are read-only and the pipeline does not run.',
        }
      : this.state();
    const pendingReviews = Number(
      this.ctx.stores.project.get<{ n: number }>(`SELECT count(*) AS n FROM pipeline_reviews WHERE status = 'pending'`)?.n ?? 0,
    );
    if (this.paused && !restricted && base.mode !== 'off') {
      const waiting = (base.jobs.pending ?? 0) + (base.jobs.leased ?? 0);
      return {
        ...base,
        state: 'idle',
        detail: `Paused: ${plural(waiting, 'job')} ${waiting === 1 ? 'waits' : 'wait'} until the pipeline is resumed.`,
        paused: true,
        pendingReviews,
      };
    }
    return { ...base, paused: this.paused, pendingReviews, ...(restricted ? { restricted: true } : {}) };
  }

  async pause(): Promise<PipelineStatus> {
    this.mustControl();
    this.paused = true;
    await Promise.all(this.pipelines().map((p) => pc.pauseWorkers(p)));
    return this.stateChanged();
  }

  async resume(): Promise<PipelineStatus> {
    this.mustControl();
    this.paused = false;
    for (const p of this.pipelines()) await p.reconfigure(); // starts the job workers unless the mode is off
    return this.stateChanged();
  }

  /** Refuses a mode change that cannot act; the engine then reloads with the mode's settings. */
  checkControl(): void {
    this.mustControl();
  }

  async diagnostics(): Promise<PipelineDiagnostics> {
    const embedder = this.embedderInfo();
    return pc.pipelineDiagnostics(this.ctx.stores.project, this.ctx.config.memory.pipelineV2, this.ctx.now(), {
      status: this.status(),
      ...(embedder ? { embedder } : {}),
    });
  }

  reviews(limit?: number): PipelineReview[] {
    return listPendingReviews(this.ctx.stores.project, limit).map(pc.toReview);
  }

  approveReview(id: string): ReturnType<MemoryPipeline['approveReview']> {
    const p = this.mustControl();
    const r = this.ctx.write(this.ctx.stores.runtime('project'), () => p.approveReview(id, 'user'));
    this.afterWrite();
    return r;
  }

  rejectReview(id: string): void {
    const p = this.mustControl();
    this.ctx.write(this.ctx.stores.runtime('project'), () => p.rejectReview(id, 'user'));
    this.stateChanged();
  }

  changes(limit?: number): PipelineChange[] {
    return pc.pipelineChanges(this.ctx.stores.project, limit);
  }

  undo(historyId: string): ReturnType<MemoryPipeline['undo']> {
    const p = this.mustControl();
    const r = this.ctx.write(this.ctx.stores.runtime('project'), () => p.undo(historyId, 'user'));
    this.afterWrite(r.memoryId);
    return r;
  }

  async ingestDocument(
    file: string,
    title: string | undefined,
    wait: boolean,
    call: CallContext = NO_CONTEXT,
  ): Promise<DocumentIngestResult> {
    return ingestFile(this.ctx, this.mustControl(), { file, title, wait }, call);
  }

  /** Tells the host the status changed (after a job, a reload, a control). */
  stateChanged(): PipelineStatus {
    const status = this.status();
    this.ctx.emit({ type: 'pipeline.state', status });
    return status;
  }

  private pipelines(): MemoryPipeline[] {
    return this.ctx.stores.all().flatMap((rt) => (rt.pipeline ? [rt.pipeline] : []));
  }

  /** The project pipeline, or a clear error when it cannot act (restricted, read-only, not started). */
  private mustControl(): MemoryPipeline {
    if (this.ctx.restricted) {
      throw new EngineError(
        'store_read_only',
        'This workspace is not trusted: Agent Memory runs in restricted mode (read-only, no pipeline). ' +
          'Trust the workspace to change memories.',
      );
    }
    if (this.ctx.stores.project.isReadOnly) {
      throw new EngineError(
        'store_read_only',
        `The project memory store is read-only here, so the pipeline does not run here: ${this.ctx.stores.project.health().detail}`,
      );
    }
    const p = this.ctx.stores.runtime('project').pipeline;
    if (!p) throw new EngineError('engine_unavailable', 'The pipeline did not start (see the engine warnings).');
    return p;
  }

  private afterWrite(memoryId?: string): void {
    this.ctx.changed('updated', memoryId ? [memoryId] : [], 'project');
    this.stateChanged();
  }

  private state(): PipelineStatus {
    const mode = pipelineMode(this.ctx.config);
    const jobs: Record<string, number> = {};
    for (const r of this.ctx.stores.project.all('SELECT status, count(*) AS n FROM memory_jobs GROUP BY status'))
      jobs[String(r.status)] = Number(r.n);
    const waiting = (jobs.pending ?? 0) + (jobs.leased ?? 0);
    if (mode === 'off') return { state: 'off', mode, jobs, detail: 'The extraction pipeline is off (memory.pipelineV2.enabled is false).' };
    const pipeline = this.ctx.stores.runtime('project').pipeline;
    const p = pipeline?.status();
    if (!p || !p.running) {
      return {
        state: 'degraded',
        mode,
        jobs,
        detail: `${plural(waiting, 'extraction job')} waiting: the pipeline worker is not running${pipeline ? '' : ' (see the warnings)'}.`,
        trouble: { kind: 'not-running' },
      };
    }
    if (p.waitingForModel) {
      return {
        state: 'degraded',
        mode,
        jobs,
        detail: `Waiting for the model since ${p.waitingSince}; ${plural(waiting, 'job')} waiting.`,
        trouble: { kind: 'model-slow', since: p.waitingSince ?? this.ctx.now().toISOString() },
      };
    }
    if (p.consecutiveFailures > 0) {
      const url = this.ctx.config.memory.pipelineV2.ollamaUrl;
      return {
        state: 'degraded',
        mode,
        jobs,
        detail: `${plural(p.consecutiveFailures, 'failure')} in a row (is Ollama running at ${url}?); ${plural(waiting, 'job')} waiting.`,
        trouble: { kind: 'failing', failures: p.consecutiveFailures },
      };
    }
    const reviews = p.pendingReviews ? `, ${plural(p.pendingReviews, 'review')} pending` : '';
    return {
      state: waiting > 0 ? 'running' : 'idle',
      mode,
      jobs,
      detail: `${plural(waiting, 'job')} waiting, ${p.jobsProcessed} processed${reviews}.`,
    };
  }
}
