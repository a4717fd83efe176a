/**
 * The polling job worker (docs/pipeline.md "Jobs"), a background task (src/core/util/backgroundTask.ts):
 * each step leases one job from memory_jobs and runs the handler registered for its type; the
 * next step is due right away while work is flowing, after `pollMs` when the queue is empty,
 * after an exponential backoff when steps fail. Every `reaperIntervalMs` a step first reaps
 * stale leases. The host's scheduler owns the timer. `stop()` waits for the job in flight; if
 * it must cut it short, the job is released (not left leased).
 */
import { randomUUID } from 'node:crypto';
import type { Store } from '../store/store';
import { WakeSignal, dueAt, msUntil, type BackgroundTask } from '../util/backgroundTask';
import { errorMessage } from '../util/errors';
import { nextDelayMs } from './backoff';
import { TransientJobError } from './errors';
import { completeJob, failJob, leaseJob, reapStaleLeases, recoverOrphanedLeases, releaseJob, renewLease, type Job } from './queue';

export interface JobContext {
  /** Aborted when the worker is stopping and will not wait longer. */
  signal: AbortSignal;
  workerId: string;
}

/** Returns the job's result payload (JSON-serializable; warnings, counts). */
export type JobHandler = (job: Job, ctx: JobContext) => Promise<unknown>;

export type WorkerEvent =
  | { type: 'completed'; job: Job; result: unknown }
  | { type: 'failed'; job: Job; error: string; status: 'pending' | 'dead' | 'gone' }
  | { type: 'released'; job: Job; reason: string }
  | { type: 'reaped'; count: number }
  | { type: 'tick-error'; error: string };

export interface JobWorkerOptions {
  /** Job type → handler. Only these types are leased. */
  handlers: Record<string, JobHandler>;
  /** Delay between ticks when the queue is empty and nothing failed. Default 2000. */
  pollMs?: number;
  /** Attempts before a job is dead (workerMaxRetries). Default 3. */
  maxRetries?: number;
  /** Leases older than this are reaped. Default 300 000. */
  leaseTimeoutMs?: number;
  /** Reaper interval. Default 60 000. */
  reaperIntervalMs?: number;
  /** Delay after a successful job before the next tick (0: at once). Default 0. */
  busyDelayMs?: number;
  /**
   * On start, return leases of this worker's job types held by other worker ids to pending.
   * True by default: the store lock guarantees this process is the only writer, so such leases
   * belong to a dead process (other job types are left to their own workers).
   */
  recoverOnStart?: boolean;
  workerId?: string;
  now?: () => Date;
  random?: () => number;
  onEvent?: (e: WorkerEvent) => void;
}

export class JobWorker implements BackgroundTask {
  readonly workerId: string;
  readonly name: string;
  private readonly types: string[];
  private readonly now: () => Date;
  private readonly wake = new WakeSignal();
  /** When the next step is due (wall clock ms); undefined while stopped. */
  private nextStepAt: number | undefined;
  private nextReapAt = 0;
  private running = false;
  private inFlight: Promise<void> | undefined;
  private abort = new AbortController();
  private failures = 0;
  private processed = 0;

  constructor(
    private readonly store: Store,
    private readonly opts: JobWorkerOptions,
  ) {
    this.workerId = opts.workerId ?? `worker-${process.pid}-${randomUUID().slice(0, 8)}`;
    this.types = Object.keys(opts.handlers);
    this.name = `${this.types.join(', ')} jobs`;
    this.now = opts.now ?? (() => new Date());
  }

  dueInMs(): number | undefined {
    return this.running ? msUntil(this.nextStepAt) : undefined;
  }

  onWake(listener: () => void): () => void {
    return this.wake.on(listener);
  }

  /** A job was just enqueued: a running worker's next step is due now instead of after its poll delay. */
  wakeNow(): void {
    if (!this.running || this.inFlight) return; // a step under way is followed by one at once if it completes a job
    this.nextStepAt = dueAt(0);
    this.wake.fire();
  }

  /** One step of the running worker: reap when due, lease and run at most one job, then say when the next is due. */
  async runStep(): Promise<void> {
    if (!this.running || this.inFlight) return;
    if (Date.now() >= this.nextReapAt) {
      this.reap();
      this.nextReapAt = dueAt(this.opts.reaperIntervalMs ?? 60_000);
    }
    const step = this.tick();
    this.inFlight = step.then(
      () => undefined,
      () => undefined,
    );
    let r: 'none' | 'ok' | 'failed';
    try {
      r = await step;
    } catch {
      r = 'failed';
    } finally {
      this.inFlight = undefined;
    }
    const delay = r === 'ok' ? (this.opts.busyDelayMs ?? 0) : nextDelayMs(this.failures, this.opts.pollMs ?? 2000, this.opts.random);
    this.nextStepAt = dueAt(delay);
  }

  get consecutiveFailures(): number {
    return this.failures;
  }

  get jobsProcessed(): number {
    return this.processed;
  }

  get isRunning(): boolean {
    return this.running;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.abort = new AbortController();
    if (this.opts.recoverOnStart !== false) {
      const n = recoverOrphanedLeases(this.store, this.workerId, this.now(), this.types);
      if (n) this.opts.onEvent?.({ type: 'reaped', count: n });
    }
    this.nextReapAt = dueAt(this.opts.reaperIntervalMs ?? 60_000);
    this.nextStepAt = dueAt(0);
    this.wake.fire();
  }

  /** Run the reaper now (also used by maintenance). */
  reap(): number {
    try {
      const n = reapStaleLeases(this.store, this.opts.leaseTimeoutMs ?? 300_000, this.now(), this.types);
      if (n) this.opts.onEvent?.({ type: 'reaped', count: n });
      return n;
    } catch (e) {
      this.opts.onEvent?.({ type: 'tick-error', error: errorMessage(e) });
      return 0;
    }
  }

  /**
   * Stop ticking and wait for the job in flight. After `graceMs` (default: wait forever)
   * the handler's signal is aborted; a job cut short is released, never left leased.
   */
  async stop(opts: { graceMs?: number } = {}): Promise<void> {
    this.running = false;
    this.nextStepAt = undefined;
    const inFlight = this.inFlight;
    if (!inFlight) return;
    // A deadline on this stop, cleared as soon as the job settles.
    let grace: NodeJS.Timeout | undefined;
    if (opts.graceMs !== undefined) grace = setTimeout(() => this.abort.abort(new Error('worker stopping')), opts.graceMs);
    try {
      await inFlight;
    } finally {
      if (grace) clearTimeout(grace);
    }
  }

  /**
   * One tick: lease and process at most one job. 'none' = queue empty, 'ok' = a job
   * completed, 'failed' = a job or the tick itself failed. Callable directly (tests, on demand).
   */
  async tick(): Promise<'none' | 'ok' | 'failed'> {
    let job: Job | undefined;
    try {
      job = leaseJob(this.store, this.types, this.workerId, this.now());
    } catch (e) {
      this.failures++;
      this.opts.onEvent?.({ type: 'tick-error', error: errorMessage(e) });
      return 'failed';
    }
    if (!job) return 'none';
    const handler = this.opts.handlers[job.jobType]!;
    // Heartbeat: renew the lease every third of the lease timeout while the handler runs, so a
    // long job (many LLM calls) is not reaped and run twice.
    const leaseMs = this.opts.leaseTimeoutMs ?? 300_000;
    const heartbeat = setInterval(
      () => {
        try {
          renewLease(this.store, job!.id, this.workerId, this.now());
        } catch {
          // store busy or closed: the next beat retries
        }
      },
      Math.max(1000, Math.floor(leaseMs / 3)),
    );
    heartbeat.unref?.();
    try {
      const result = await handler(job, { signal: this.abort.signal, workerId: this.workerId });
      completeJob(this.store, job.id, result, this.now());
      this.failures = 0;
      this.processed++;
      this.opts.onEvent?.({ type: 'completed', job, result });
      return 'ok';
    } catch (e) {
      this.failures++;
      const msg = errorMessage(e);
      try {
        if (e instanceof TransientJobError || this.abort.signal.aborted) {
          releaseJob(this.store, job.id, msg, this.now());
          this.opts.onEvent?.({ type: 'released', job, reason: msg });
        } else {
          // workerMaxRetries (config) governs; the row's max_attempts only when the worker has none.
          const status = failJob(this.store, job.id, msg, this.opts.maxRetries ?? job.maxAttempts, this.now());
          this.opts.onEvent?.({ type: 'failed', job, error: msg, status });
        }
      } catch (e2) {
        // The store refused the bookkeeping (closed?): the lease stays and the reaper frees it.
        this.opts.onEvent?.({ type: 'tick-error', error: errorMessage(e2) });
      }
      return 'failed';
    } finally {
      clearInterval(heartbeat);
    }
  }

  /**
   * Tick until the queue is empty, `maxJobs` ticks ran, or (unless `untilEmpty`) a tick
   * failed — a failing job would otherwise be retried at once, without backoff.
   */
  async drain(opts: { maxJobs?: number; untilEmpty?: boolean } = {}): Promise<{ ok: number; failed: number }> {
    const out = { ok: 0, failed: 0 };
    const max = opts.maxJobs ?? Number.POSITIVE_INFINITY;
    while (out.ok + out.failed < max) {
      const r = await this.tick();
      if (r === 'none') break;
      if (r === 'ok') out.ok++;
      else {
        out.failed++;
        if (!opts.untilEmpty) break;
      }
    }
    return out;
  }
}
