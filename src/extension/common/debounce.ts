/**
 * A trailing-edge debounce for view refreshes: a burst of engine events (an import, a pipeline
 * batch) becomes one refresh `delayMs` after the last of them.
 */
export class Debounced {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private held = false;

  constructor(
    private readonly run: () => unknown,
    private readonly delayMs: number,
  ) {}

  /** (Re)starts the wait; the action runs once the events stop for `delayMs`. */
  trigger(): void {
    if (this.held) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.run(), this.delayMs);
  }

  /** Drops a pending run (on dispose). */
  cancel(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /**
   * While held, a pending run is dropped and triggers are ignored. Views hold their refresh while
   * the engine stops: the window may be closing, and a refresh then reaches a workbench that is
   * going away ("Unable to refresh tree view …: Canceled" in the log).
   */
  hold(on: boolean): void {
    this.held = on;
    if (on) this.cancel();
  }
}
