/**
 * A trailing-edge debounce for view refreshes: a burst of engine events (an import, a pipeline
 * batch) becomes one refresh `delayMs` after the last of them.
 */
export class Debounced {
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly run: () => unknown,
    private readonly delayMs: number,
  ) {}

  /** (Re)starts the wait; the action runs once the events stop for `delayMs`. */
  trigger(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.run(), this.delayMs);
  }

  /** Drops a pending run (on dispose). */
  cancel(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
