/** Runs the retention sweep every `intervalMs` (default 6 h) on a setTimeout chain. */
import type { Store } from '../store/store';
import { errorMessage } from '../util/errors';
import { runRetentionSweep, type RetentionReport, type RetentionWindows } from './sweep';

export class RetentionWorker {
  private timer: NodeJS.Timeout | undefined;
  private running = false;
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

  start(): void {
    if (this.running) return;
    this.running = true;
    this.schedule();
  }

  stop(): void {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
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

  private schedule(): void {
    if (!this.running) return;
    this.timer = setTimeout(() => {
      this.sweep();
      this.schedule();
    }, this.opts.intervalMs());
    this.timer.unref?.();
  }
}
