/**
 * A gate with shared and exclusive sections. The engine's requests run in shared sections; a
 * configuration reload, which closes the store runtimes (vector stores, pipelines) and builds new
 * ones, runs in an exclusive section: it starts once no request is under way, and the requests
 * that arrive meanwhile wait for it to end — none finds a runtime closed under it.
 *
 * Shared sections come first: a reload waits for the requests under way (a long document ingest
 * too) while new requests keep starting, so a long request never stalls every other one behind a
 * waiting reload. Exclusive sections run one at a time, in the order they were asked for. Never ask
 * for an exclusive section from inside a shared one: it would wait for itself (the engine runs the
 * requests that reload outside the gate, handlers.ts).
 */
export class SharedExclusiveGate {
  private running = 0;
  private held = false;
  private readonly whenIdle: (() => void)[] = [];
  private readonly whenReleased: (() => void)[] = [];
  private queue: Promise<unknown> = Promise.resolve();

  async shared<T>(fn: () => T | Promise<T>): Promise<T> {
    while (this.held) await new Promise<void>((r) => this.whenReleased.push(r));
    this.running++;
    try {
      return await fn();
    } finally {
      this.running--;
      if (this.running === 0) for (const wake of this.whenIdle.splice(0)) wake();
    }
  }

  exclusive<T>(fn: () => T | Promise<T>): Promise<T> {
    const turn = this.queue.then(async () => {
      while (this.running > 0) await new Promise<void>((r) => this.whenIdle.push(r));
      this.held = true;
      try {
        return await fn();
      } finally {
        this.held = false;
        for (const wake of this.whenReleased.splice(0)) wake();
      }
    });
    this.queue = turn.catch(() => undefined);
    return turn;
  }

  /** How many shared sections run now (diagnostics, tests). */
  get sharedCount(): number {
    return this.running;
  }
}
