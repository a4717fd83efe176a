/**
 * Background work of a core object, driven from outside. Core objects set no timers of their
 * own (ARCHITECTURE.md "Threads and timers"): each says when its next step is due and runs one
 * step when asked; the host's scheduler (src/engine/worker/scheduler.ts in the engine) owns the timers,
 * so closing the host leaves none behind. Tests and tools may call `runStep` directly.
 */
export interface BackgroundTask {
  /** What the task does, for warnings ("extract jobs", "embedding backfill"). */
  readonly name: string;
  /** Milliseconds until the next step is due (0: now); undefined while there is nothing to do until it wakes. */
  dueInMs(): number | undefined;
  /** One step. A driver never starts a step before the previous one settled. */
  runStep(): Promise<void> | void;
  /** Called when the task became due sooner (started, kicked by a write); returns the unsubscribe. */
  onWake(listener: () => void): () => void;
}

/** The listeners of a task's `onWake`. */
export class WakeSignal {
  private readonly listeners = new Set<() => void>();

  on(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  fire(): void {
    for (const l of [...this.listeners]) l();
  }
}

/** When a step due in `ms` from now falls due (the wall clock: the tasks' injectable `now` is for what they record). */
export function dueAt(ms: number): number {
  return Date.now() + Math.max(0, ms);
}

/** Milliseconds from now until `at`, 0 when past; undefined stays undefined. */
export function msUntil(at: number | undefined): number | undefined {
  return at === undefined ? undefined : Math.max(0, at - Date.now());
}
