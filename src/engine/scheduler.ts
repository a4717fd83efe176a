/**
 * Every periodic job of the engine, in one place: the snapshot policy (EngineOptions
 * snapshotTickMs), the dedup scan (memory.dedup_scan_interval), the expiry sweep
 * (memory.cleanup_interval) and the knowledge graph's garbage collection. Restarted on a
 * configuration reload (new intervals). Timers are unref'd: they never keep the process alive.
 * Work owned by core objects keeps its own short timers (the backfill's retry delay, the
 * pipeline's job, retention and maintenance workers). The access tracker's batches are
 * written by this scheduler (flushAccesses).
 */
import { errorMessage } from '../core/util/errors';
import type { EngineContext } from './context';
import type { MaintenanceService } from './services/maintenance';
import type { SuggestionsService } from './services/suggestions';

/** How often the knowledge graph drops what memories deleted through the memory API left behind. */
const GRAPH_GC_MS = 60_000;

/** How often queued accesses are written (docs/lifecycle.md "Access"): a search never waits on that write. */
export const ACCESS_FLUSH_MS = 250;

/** Shortest expiry sweep interval accepted (the configuration's minimum is higher). */
const MIN_SWEEP_MS = 1000;

export class Scheduler {
  private timers: NodeJS.Timeout[] = [];

  constructor(
    private readonly ctx: EngineContext,
    private readonly jobs: { maintenance: MaintenanceService; suggestions: SuggestionsService; snapshotTickMs: number },
  ) {}

  /** (Re)starts every timer with the current configuration. */
  start(): void {
    this.stop();
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

  stop(): void {
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
  }

  private every(ms: number, job: () => void): void {
    const t = setInterval(job, ms);
    t.unref();
    this.timers.push(t);
  }
}
