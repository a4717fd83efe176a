// The one polling helper of the tests: wait until something observable happens, or fail
// saying what was awaited and what was last seen. Use it for things another process, a
// worker or a timer does on its own; for our own timers prefer node:test `mock.timers`.
// It keeps working while a test mocks timers: it holds the real setTimeout, taken when this
// module loads (mock.timers replaces the global one later).

const realSetTimeout = globalThis.setTimeout;

/** Waits `ms` of real time, even while a test mocks setTimeout. */
export function realDelay(ms: number): Promise<void> {
  return new Promise((r) => realSetTimeout(r, ms));
}

export interface UntilOptions<T> {
  /** Accepts the value read; by default any truthy value. */
  check?: (value: T) => boolean;
  /** How long to wait before failing (default 20 s: the machine may be busy). */
  timeoutMs?: number;
  /** Pause between two reads (default 50 ms). */
  intervalMs?: number;
}

function describe(value: unknown): string {
  if (typeof value === 'boolean' || value === undefined) return '';
  try {
    const text = JSON.stringify(value);
    return text === undefined ? '' : `; last seen: ${text.length > 300 ? `${text.slice(0, 300)}…` : text}`;
  } catch {
    return ''; // a cycle or a BigInt: nothing more to say than the wait itself
  }
}

/**
 * Reads `read` every `intervalMs` until `check` accepts the value (by default: until it is
 * truthy), and returns that value. After `timeoutMs` it throws "timed out after N s waiting
 * for <what>", with the last value read when it says more than true/false.
 */
export async function until<T>(what: string, read: () => T | Promise<T>, options?: Omit<UntilOptions<T>, 'check'>): Promise<NonNullable<T>>;
export async function until<T>(
  what: string,
  read: () => T | Promise<T>,
  options: UntilOptions<T> & { check: (value: T) => boolean },
): Promise<T>;
export async function until<T>(what: string, read: () => T | Promise<T>, options: UntilOptions<T> = {}): Promise<T> {
  const { check = (v: T) => Boolean(v), timeoutMs = 20_000, intervalMs = 50 } = options;
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (check(value)) return value;
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}${describe(value)}`);
    await realDelay(intervalMs);
  }
}
