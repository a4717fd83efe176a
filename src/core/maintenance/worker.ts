/**
 * The maintenance worker (docs/pipeline.md "Maintenance"): diagnostics → recommendations → (execute mode) rate-
 * limited repairs → diagnostics again, recording the health delta. A background task
 * (src/core/util/backgroundTask.ts) due every `intervalMs` only when autonomousEnabled and not
 * autonomousFrozen; the host's scheduler owns the timer. `tick()` is always callable on demand.
 */
import type { Store } from '../store/store';
import { WakeSignal, dueAt, msUntil, type BackgroundTask } from '../util/backgroundTask';
import { requeueDeadJobs, reapStaleLeases } from '../jobs/queue';
import { runRetentionSweep, type RetentionWindows } from '../retention/sweep';
import { errorMessage } from '../util/errors';
import { getDiagnostics, type DiagnosticsReport } from './diagnostics';
import { buildRecommendations, type Recommendation, type RepairAction } from './recommendations';
import { HaltTracker, RepairRateLimiter, type RateLimit } from './limits';
import { plural } from '../text/plural';

export interface MaintenanceSettings {
  enabled: boolean; // autonomousEnabled && !autonomousFrozen
  mode: 'observe' | 'execute';
  intervalMs: number;
  leaseTimeoutMs: number;
  reembed: RateLimit;
  requeue: RateLimit;
  retention: RetentionWindows;
}

export interface RepairRun {
  action: RepairAction;
  status: 'executed' | 'rate_limited' | 'halted' | 'failed';
  detail?: string;
}

export interface MaintenanceCycle {
  mode: 'observe' | 'execute';
  before: DiagnosticsReport;
  recommendations: Recommendation[];
  repairs: RepairRun[];
  after?: DiagnosticsReport;
  delta?: number;
  halted: RepairAction[];
}

/** Which config budget governs which action: job repairs use the requeue limits, index/storage repairs the (heavier) re-embed limits. */
function limitFor(s: MaintenanceSettings, a: RepairAction): RateLimit {
  return a === 'requeueDeadJobs' || a === 'releaseStaleLeases' ? s.requeue : s.reembed;
}

export class MaintenanceWorker implements BackgroundTask {
  readonly name = 'maintenance';
  readonly halt = new HaltTracker();
  private readonly limiter: RepairRateLimiter;
  private readonly wake = new WakeSignal();
  /** When the next cycle is due (wall clock ms); undefined while not scheduled. */
  private nextCycleAt: number | undefined;
  readonly log: MaintenanceCycle[] = [];

  constructor(
    private readonly store: Store,
    private readonly settings: () => MaintenanceSettings,
    private readonly opts: {
      now?: () => Date;
      repairs?: Partial<Record<RepairAction, () => string>>;
      onCycle?: (c: MaintenanceCycle) => void;
    } = {},
  ) {
    this.limiter = new RepairRateLimiter((a) => limitFor(this.settings(), a));
  }

  private now(): Date {
    return (this.opts.now ?? (() => new Date()))();
  }

  /** Schedules cycles only when enabled (autonomousEnabled && !autonomousFrozen): the first one interval from now. */
  start(): boolean {
    if (this.nextCycleAt !== undefined || !this.settings().enabled) return false;
    this.nextCycleAt = dueAt(this.settings().intervalMs);
    this.wake.fire();
    return true;
  }

  stop(): void {
    this.nextCycleAt = undefined;
  }

  dueInMs(): number | undefined {
    return msUntil(this.nextCycleAt);
  }

  onWake(listener: () => void): () => void {
    return this.wake.on(listener);
  }

  /** The due cycle; the next one is due an interval later (also after a failed cycle). */
  runStep(): void {
    if (this.nextCycleAt === undefined) return;
    try {
      this.tick();
    } finally {
      this.nextCycleAt = dueAt(this.settings().intervalMs);
    }
  }

  private repair(a: RepairAction): string {
    const custom = this.opts.repairs?.[a];
    if (custom) return custom();
    const s = this.settings();
    const now = this.now();
    switch (a) {
      case 'requeueDeadJobs':
        return `requeued ${plural(requeueDeadJobs(this.store, 500, now), 'dead job')}`;
      case 'releaseStaleLeases':
        return `released ${plural(reapStaleLeases(this.store, s.leaseTimeoutMs, now), 'stale lease')}`;
      case 'checkFtsConsistency':
        // FTS4 external content: 'rebuild' re-reads every memory row; deterministic, so it replays.
        this.store.transaction((tx) => {
          tx.run(`INSERT INTO memories_fts(memories_fts) VALUES ('rebuild')`);
          tx.run(`INSERT INTO memories_exact(memories_exact) VALUES ('rebuild')`);
        });
        return 'rebuilt the full-text index';
      case 'triggerRetentionSweep': {
        const r = runRetentionSweep(this.store, s.retention, now);
        return `retention removed ${plural(
          r.steps.reduce((x, y) => x + y.removed, 0),
          'row',
        )}`;
      }
    }
  }

  /** One cycle, synchronous (every step is a short transaction). */
  tick(): MaintenanceCycle {
    const s = this.settings();
    const before = getDiagnostics(this.store, { leaseTimeoutMs: s.leaseTimeoutMs, now: this.now() });
    const recommendations = buildRecommendations(before);
    const cycle: MaintenanceCycle = { mode: s.mode, before, recommendations, repairs: [], halted: [] };
    if (!recommendations.length) this.halt.reset();
    if (s.mode === 'execute' && recommendations.length) {
      const ran: RepairAction[] = [];
      for (const rec of recommendations) {
        if (this.halt.isHalted(rec.action)) {
          cycle.repairs.push({ action: rec.action, status: 'halted' });
          continue;
        }
        const t = this.now().getTime();
        const blocked = this.limiter.blocked(rec.action, t);
        if (blocked) {
          cycle.repairs.push({ action: rec.action, status: 'rate_limited', detail: blocked });
          continue;
        }
        this.limiter.record(rec.action, t);
        try {
          cycle.repairs.push({ action: rec.action, status: 'executed', detail: this.repair(rec.action) });
          ran.push(rec.action);
        } catch (e) {
          cycle.repairs.push({ action: rec.action, status: 'failed', detail: errorMessage(e) });
          ran.push(rec.action);
        }
      }
      cycle.after = getDiagnostics(this.store, { leaseTimeoutMs: s.leaseTimeoutMs, now: this.now() });
      cycle.delta = Math.round((cycle.after.score - before.score) * 1000) / 1000;
      for (const a of ran) this.halt.record(a, cycle.delta > 0);
    }
    cycle.halted = this.halt.haltedActions();
    this.log.push(cycle);
    if (this.log.length > 50) this.log.shift();
    this.opts.onCycle?.(cycle);
    return cycle;
  }
}
