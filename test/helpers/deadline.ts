// Proves when a call gives up by holding its deadline timer instead of measuring wall-clock
// time: while a call runs here, the first setTimeout of exactly `limitMs` (its deadline) is
// held by the test: it fires only when the test fires it. Every other timer — the fake
// server's drip, the sockets' — runs for real. Nothing here depends on how busy the machine is.
// (node:test `mock.timers` cannot do this: it would stop the fake server's timers too, and on
// Node 20 a timer the HTTP client made under an earlier mock can cancel a later one.)
import * as assert from 'node:assert/strict';
import { realDelay, until } from './until';

type Outcome = { error: unknown } | { value: unknown };

interface HeldTimer {
  fire: () => void;
  cleared: boolean;
}

/**
 * Whether the timer being set comes from Node's own internals (undici's keep-alive and parser
 * timers of pooled connections): never the call's deadline, even when its delay happens to be
 * the same (undici keeps a connection 3 s against a server that says keep-alive 5 s).
 */
function setByNodeItself(): boolean {
  const caller = new Error().stack?.split('\n')[3] ?? '';
  return caller.includes('node:internal/');
}

/** Runs `start` with its deadline timer (the first setTimeout of `limitMs`) held; returns it with how the call ends. */
function runHoldingDeadline(
  limitMs: number,
  start: () => Promise<unknown>,
): { held: () => HeldTimer | undefined; outcome: () => Outcome | undefined; restore: () => void } {
  const realSet = globalThis.setTimeout;
  const realClear = globalThis.clearTimeout;
  let held: (HeldTimer & { handle: NodeJS.Timeout }) | undefined;
  globalThis.setTimeout = ((fn: (...a: unknown[]) => void, ms?: number, ...args: unknown[]) => {
    if (held || ms !== limitMs || setByNodeItself()) return realSet(fn, ms, ...args);
    const handle = realSet(() => undefined, 2 ** 31 - 1); // a real handle (ref/unref/clear work), never due
    handle.unref();
    const timer = { handle, cleared: false, fire: () => (timer.cleared ? undefined : fn(...args)) };
    held = timer;
    return handle;
  }) as typeof setTimeout;
  globalThis.clearTimeout = ((h?: NodeJS.Timeout | string | number) => {
    if (held && h === held.handle) held.cleared = true;
    realClear(h);
  }) as typeof clearTimeout;
  let outcome: Outcome | undefined;
  const restore = () => {
    globalThis.setTimeout = realSet;
    globalThis.clearTimeout = realClear;
  };
  try {
    void start().then(
      (value) => (outcome = { value }),
      (error: unknown) => (outcome = { error }),
    );
  } catch (error) {
    restore();
    throw error;
  }
  return { held: () => held, outcome: () => outcome, restore };
}

export interface DeadlineCall {
  /** Starts the call (its deadline timer must be set after this). */
  start: () => Promise<unknown>;
  /** True once the fault is in progress (the request reached the fake server). */
  ready: () => boolean;
  /** The deadline the call was given (ms): the delay of the timer that is held. */
  limitMs: number;
}

/**
 * Starts the call with its deadline held, waits until the fault is in progress and then as
 * long again as the deadline (the server keeps dripping, the sockets stay open), checks the
 * call is still pending — nothing but its deadline ends it — fires the deadline and returns
 * how the call ended (its value or its error).
 */
export async function settlesAtDeadline(call: DeadlineCall): Promise<Outcome> {
  const run = runHoldingDeadline(call.limitMs, call.start);
  try {
    await until(`a deadline of ${call.limitMs} ms to be set and the request to reach the server`, () => run.held() && call.ready());
    await realDelay(call.limitMs);
    assert.equal(run.outcome(), undefined, `the call ended before its deadline of ${call.limitMs} ms fired`);
    run.held()!.fire();
    return await until('the call to end once its deadline fired', run.outcome);
  } finally {
    run.restore();
  }
}

/** {@link settlesAtDeadline} for a call that must fail at its deadline: returns the error. */
export async function failsAtDeadline(call: DeadlineCall): Promise<unknown> {
  const ended = await settlesAtDeadline(call);
  assert.ok('error' in ended, `the call succeeded: ${JSON.stringify(ended)}`);
  return ended.error;
}

/**
 * Returns the error of a call that must fail without waiting for its deadline of `limitMs`:
 * the deadline timer is held and never fires, so the call cannot have waited for it. A call
 * that would wait fails the test after `waitMs` of real time, naming `what`.
 */
export async function failsBeforeDeadline(what: string, limitMs: number, start: () => Promise<unknown>, waitMs = 20_000): Promise<unknown> {
  const run = runHoldingDeadline(limitMs, start);
  try {
    const ended = await until(`${what} to fail without its deadline of ${limitMs} ms firing`, run.outcome, { timeoutMs: waitMs });
    assert.ok(run.held(), `${what} set no deadline of ${limitMs} ms`);
    assert.ok('error' in ended, `${what} succeeded: ${JSON.stringify(ended)}`);
    return ended.error;
  } finally {
    run.restore();
  }
}

/**
 * While active, holds EVERY setTimeout of exactly `limitMs` (none of them fires) and counts
 * them: code that must act without arming such a deadline (refuse a connection at once, say)
 * can then be shown to have armed none, and nothing it did can have come from one.
 */
export function holdTimersOf(limitMs: number): { count: () => number; restore: () => void } {
  const realSet = globalThis.setTimeout;
  let count = 0;
  globalThis.setTimeout = ((fn: (...a: unknown[]) => void, ms?: number, ...args: unknown[]) => {
    if (ms !== limitMs) return realSet(fn, ms, ...args);
    count++;
    const handle = realSet(() => undefined, 2 ** 31 - 1);
    handle.unref();
    return handle;
  }) as typeof setTimeout;
  return { count: () => count, restore: () => (globalThis.setTimeout = realSet) };
}
