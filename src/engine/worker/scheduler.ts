/**
 * Every timer of the engine, in one place (ARCHITECTURE.md "Threads and timers"):
 * - the engine's periodic jobs: the snapshot policy (EngineOptions snapshotTickMs), the dedup
 *   scan (memory.dedup_scan_interval), the expiry sweep (memory.cleanup_interval) and the
 *   knowledge graph's garbage collection;
 * - the background tasks of each store runtime (src/core/util/backgroundTask.ts): the embedding
 *   backfill, the pipeline's job workers, retention and maintenance; and the project store's
 *   schedule runner when this engine owns it (docs/schedules.md). They set no timer of their
 *   own; a TaskDriver arms one timer per task for the time it says its next step is due.
 * The access tracker's batches are written by this scheduler too (flushAccesses).
 * Restarted when the runtimes are rebuilt (a configuration reload: new intervals); stopped before
 * they close, so a closed engine leaves no timer. Timers are unref'd: they never keep the process alive.
 */
import type { BackgroundTask } from '../../core/util/backgroundTask';
import { errorMessage } from '../../core/util/errors';
import type { EngineContext } from './context';
import type { MaintenanceService } from './services/maintenance';
import type { SuggestionsService } from './services/suggestions';
import type { SchedulesService } from './services/schedules';

/** How often the knowledge graph drops what memories deleted through the memory API left behind. */
const GRAPH_GC_MS = 60_000;

/** How often queued accesses are written (docs/lifecycle.md "Access"): a search never waits on that write. */
export const ACCESS_FLUSH_MS = 250;

/** Shortest expiry sweep interval accepted (the configuration's minimum is higher). */
const MIN_SWEEP_MS = 1000;

export class Scheduler {
  private timers: NodeJS.Timeout[] = [];
  private readonly tasks = new TaskDriver();

  constructor(
    private readonly ctx: EngineContext,
    private readonly jobs: {
      maintenance: MaintenanceService;
      suggestions: SuggestionsService;
      schedules?: SchedulesService;
      snapshotTickMs: number;
    },
  ) {}

  /** (Re)starts every timer with the current configuration and the current runtimes' background tasks. */
  start(): void {
    void this.stop();
    // An owner for one short answer (EngineInit.backgroundWork false) starts no background work.
    const background = this.ctx.init.backgroundWork !== false;
    for (const rt of background ? this.ctx.stores.all() : [])
      this.tasks.drive(rt.backgroundTasks(), (task, e) => this.ctx.warn(`${rt.name} store: ${task.name} failed: ${errorMessage(e)}`));
    // The project store's schedule runner, when this engine owns the store (docs/schedules.md "Runs").
    this.tasks.drive((background && this.jobs.schedules?.tasks()) || [], (task, e) =>
      this.ctx.warn(`project store: ${task.name} failed: ${errorMessage(e)}`),
    );
    const { maintenance, suggestions, snapshotTickMs } = this.jobs;
    if (snapshotTickMs > 0) this.every(snapshotTickMs, () => void maintenance.maybeSnapshot());
    this.every(ACCESS_FLUSH_MS, () => this.flushAccesses());
    if (this.ctx.restricted) return; // untrusted workspace: no dedup scan, no expiry sweep
    const m = this.ctx.config.memory;
    this.every(m.dedup_scan_interval, () => void suggestions.scan());
    this.every(GRAPH_GC_MS, () => this.collectGraphGarbage());
    this.every(Math.max(MIN_SWEEP_MS, m.cleanup_interval), () => {
      try {
        maintenance.sweepExpired();
      } catch (e) {
        this.ctx.warn(`expiry sweep failed: ${errorMessage(e)}`);
      }
    });
  }

  /** Graph provenance of memories deleted through the memory API, in every store that runs a pipeline. */
  collectGraphGarbage(): void {
    for (const rt of this.ctx.stores.all()) {
      try {
        rt.pipeline?.collectGraphGarbage();
      } catch (e) {
        this.ctx.warn(`${rt.name} store: graph GC failed: ${errorMessage(e)}`);
      }
    }
  }

  /** Writes every store's queued accesses (a failure is a warning; the accesses stay queued). */
  flushAccesses(): void {
    for (const rt of this.ctx.stores.all()) rt.access?.flushQuietly();
  }

  /**
   * Clears every timer at once; resolves when the task steps under way have settled. Their owners'
   * stop (StoreRuntime.close) cuts long ones short, so close the runtimes before awaiting this.
   */
  stop(): Promise<void> {
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
    return this.tasks.stop();
  }

  private every(ms: number, job: () => void): void {
    const t = setInterval(job, ms);
    t.unref();
    this.timers.push(t);
  }
}

/**
 * Drives background tasks: one timer per task, armed for the task's due time and re-armed after
 * each step or when the task wakes. Hosts other than the engine (tests, benchmarks) use it too.
 */
export class TaskDriver {
  private driven: DrivenTask[] = [];

  /** Starts driving `tasks`; a step that throws is reported to `onError` and the task is driven on. */
  drive(tasks: BackgroundTask[], onError: (task: BackgroundTask, e: unknown) => void): void {
    for (const task of tasks) {
      const d = new DrivenTask(task, onError);
      this.driven.push(d);
      d.arm();
    }
  }

  /** Clears every timer; resolves when the steps under way have settled. */
  stop(): Promise<void> {
    const steps = this.driven.map((d) => d.stop());
    this.driven = [];
    return Promise.all(steps).then(() => undefined);
  }
}

class DrivenTask {
  private timer: NodeJS.Timeout | undefined;
  private step: Promise<void> | undefined;
  private stopped = false;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly task: BackgroundTask,
    private readonly onError: (task: BackgroundTask, e: unknown) => void,
  ) {
    this.unsubscribe = task.onWake(() => this.arm());
  }

  /** A timer for the task's next step (none while a step runs: it re-arms when done, nor while nothing is due). */
  arm(): void {
    if (this.stopped || this.step) return;
    this.clear();
    const ms = this.task.dueInMs();
    if (ms === undefined) return;
    this.timer = setTimeout(() => this.run(), ms);
    this.timer.unref();
  }

  stop(): Promise<void> {
    this.stopped = true;
    this.clear();
    this.unsubscribe();
    return this.step ?? Promise.resolve();
  }

  private run(): void {
    this.timer = undefined;
    this.step = Promise.resolve()
      .then(() => this.task.runStep())
      .catch((e: unknown) => this.onError(this.task, e))
      .finally(() => {
        this.step = undefined;
        this.arm();
      });
  }

  private clear(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
