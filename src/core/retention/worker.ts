/**
 * The retention sweep every `intervalMs` (memory.pipelineV2.retentionIntervalMs, read live), as a
 * background task (src/core/util/backgroundTask.ts): the host's scheduler owns the timer.
 */
import type { Store } from '../store/store';
import { WakeSignal, dueAt, msUntil, type BackgroundTask } from '../util/backgroundTask';
import { errorMessage } from '../util/errors';
import { runRetentionSweep, type RetentionReport, type RetentionWindows } from './sweep';

export class RetentionWorker implements BackgroundTask {
  readonly name = 'retention sweep';
  private readonly wake = new WakeSignal();
  /** When the next sweep is due (wall clock ms); undefined while stopped. */
  private nextSweepAt: number | undefined;
  lastReport: RetentionReport | undefined;
  lastError: string | undefined;

  constructor(
    private readonly store: Store,
    private readonly opts: {
      windows: () => RetentionWindows;
      intervalMs: () => number;
      now?: () => Date;
      onReport?: (r: RetentionReport) => void;
    },
  ) {}

  /** The first sweep is due one interval from now. */
  start(): void {
    if (this.nextSweepAt !== undefined) return;
    this.nextSweepAt = dueAt(this.opts.intervalMs());
    this.wake.fire();
  }

  stop(): void {
    this.nextSweepAt = undefined;
  }

  dueInMs(): number | undefined {
    return msUntil(this.nextSweepAt);
  }

  onWake(listener: () => void): () => void {
    return this.wake.on(listener);
  }

  /** The due sweep; the next one is due an interval later. */
  runStep(): void {
    if (this.nextSweepAt === undefined) return;
    this.sweep();
    this.nextSweepAt = dueAt(this.opts.intervalMs());
  }

  /** One sweep now (also on demand, e.g. maintenance's triggerRetentionSweep). */
  sweep(): RetentionReport | undefined {
    try {
      this.lastReport = runRetentionSweep(this.store, this.opts.windows(), (this.opts.now ?? (() => new Date()))());
      this.lastError = undefined;
      this.opts.onReport?.(this.lastReport);
      return this.lastReport;
    } catch (e) {
      this.lastError = errorMessage(e);
      return undefined;
    }
  }
}
