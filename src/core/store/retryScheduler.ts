/** Retries an async attempt with a doubling delay until it succeeds; one attempt at a time; timers never keep the process alive. */
export class RetryScheduler {
  private timer: NodeJS.Timeout | undefined;
  private delay: number;
  private running: Promise<boolean> | undefined;
  private stopped = false;

  constructor(
    private readonly initialMs: number,
    private readonly maxMs: number,
    private readonly attempt: () => Promise<boolean>,
  ) {
    this.delay = initialMs;
  }

  /** Attempt now (or join the attempt under way); after a failure the next one is scheduled, later each time. */
  runNow(): Promise<boolean> {
    this.running ??= this.attempt()
      .catch(() => false)
      .then((ok) => {
        this.delay = ok ? this.initialMs : Math.min(this.delay * 2, this.maxMs);
        if (!ok) this.schedule();
        return ok;
      })
      .finally(() => (this.running = undefined));
    return this.running;
  }

  schedule(): void {
    if (this.timer || this.stopped) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.runNow();
    }, this.delay);
    this.timer.unref?.();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
