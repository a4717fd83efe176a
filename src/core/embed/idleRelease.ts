/**
 * The built-in model's release after a while without work (both ways of running it: its own worker
 * thread, useLite.ts, and the engine's thread, useLiteInThread.ts), said in the log.
 */
export class IdleRelease {
  private timer: NodeJS.Timeout | undefined;

  /**
   * `ms` ≤ 0: never released. `release` frees the model and says whether it did (nothing to free,
   * or work came meanwhile: false).
   */
  constructor(
    private readonly ms: number,
    private readonly release: () => boolean,
    private readonly log: (line: string) => void,
  ) {}

  /** (Re)starts the wait; it does not keep the process alive. */
  arm(): void {
    if (this.ms <= 0) return;
    this.clear();
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.release()) {
        const s = Math.round(this.ms / 1000);
        this.log(`built-in embedding model released after ${s} s without work; it loads again when needed`);
      }
    }, this.ms);
    this.timer.unref();
  }

  clear(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
