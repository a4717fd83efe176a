/**
 * What people (and the engine) can see of a store's condition: a health state with a detail
 * and a change callback, errors with the codes `disk_full` / `io_error`, and warnings kept
 * once per distinct problem with a repeat count (a full disk must not flood the list).
 */
import { UserFacingError, errorMessage } from '../util/errors';
import { isDiskFull } from './storeFs';
import type { AppendFailure } from './opLog';
import type { StoreHealth, StoreHealthState, WriteBlock } from './storeTypes';

export type { StoreHealth, StoreHealthState };

/**
 * ok: reads and writes work. disk_full / io_error: writes are refused until the store has
 * re-established a durable state by itself (reads work). read_only: opened without write
 * access for a reason given in `detail` (another owner, a log it cannot replay, …).
 */

export class StoreIoError extends UserFacingError {
  constructor(
    message: string,
    code: 'disk_full' | 'io_error',
    readonly fsError?: unknown,
  ) {
    super(message, code);
  }
}

/** The error a failed durable write turns into, for the person who asked for it. */
export function storeIoError(dir: string, e: unknown, what: string): StoreIoError {
  if (e instanceof StoreIoError) return e;
  if (isDiskFull(e)) {
    return new StoreIoError(
      `The disk holding the memory store at ${dir} is full, so ${what} was not saved. ` +
        'Free some disk space: writing resumes by itself.',
      'disk_full',
      e,
    );
  }
  return new StoreIoError(
    `The disk reported an error while ${what} was being saved to the memory store at ${dir} (${errorMessage(e)}), ` +
      'so it was not saved. Writes are paused until the store has saved a verified copy of its data again.',
    'io_error',
    e,
  );
}

export const SNAPSHOT_DISK_FULL =
  'The disk is full: snapshots cannot be written (every change is still saved in the operation log). Free some disk space.';

export class HealthTracker {
  private current: StoreHealth = { state: 'ok', detail: 'Reads and writes work.', since: new Date().toISOString() };
  private readonly listeners = new Set<(h: StoreHealth) => void>();

  get(): StoreHealth {
    return { ...this.current };
  }

  set(state: StoreHealthState, detail: string): void {
    if (state === this.current.state && detail === this.current.detail) return;
    this.current = { state, detail, since: new Date().toISOString() };
    for (const l of this.listeners) {
      try {
        l(this.get());
      } catch {
        // A listener's failure is not the store's problem.
      }
    }
  }

  /** The state from what is wrong, most severe first: never writes, writes paused, snapshots failing. */
  derive(readOnlyReason: string | undefined, block: WriteBlock | undefined, snapshotProblem: string | undefined): void {
    if (readOnlyReason) this.set('read_only', readOnlyReason);
    else if (block) this.set(block.code, block.detail);
    else if (snapshotProblem) this.set('disk_full', snapshotProblem);
    else this.set('ok', 'Reads and writes work.');
  }

  onChange(listener: (h: StoreHealth) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

/**
 * Warnings, one entry per distinct problem (`key`, default the message): a repeat bumps the
 * entry's count and rewrites it as "… (N times)" instead of adding another line.
 */
export class WarningList {
  readonly list: string[] = [];
  private readonly seen = new Map<string, { index: number; count: number; message: string }>();

  /** Returns true the first time a problem is seen (the time to tell people). */
  add(message: string, key = message): boolean {
    const prior = this.seen.get(key);
    if (!prior) {
      this.seen.set(key, { index: this.list.length, count: 1, message });
      this.list.push(message);
      return true;
    }
    prior.count++;
    this.list[prior.index] = `${prior.message} (${prior.count} times)`;
    return false;
  }
}

/** A failed append: disk_full / io_error; a verified snapshot first when the log's state is unknown. */
export function writeBlockFor(err: StoreIoError, f: AppendFailure): WriteBlock {
  const code = err.code as WriteBlock['code'];
  const detail =
    code === 'disk_full'
      ? 'The disk holding the memory store is full: changes are refused until space is free again (checked every few seconds). Reads work.'
      : `The disk reported an error (${errorMessage(f.error)}): changes are refused until the store has saved a verified copy of its data. Reads work.`;
  return { code, detail, needsSnapshot: f.stateUnknown || !f.repaired, needsWriter: false };
}

/** The disk was full when the store opened: readable now, the writer once space is back (`needsWriter`: no lock yet). */
export function diskFullAtOpen(dir: string, needsWriter: boolean): WriteBlock {
  return {
    code: 'disk_full',
    detail: `The disk holding the memory store at ${dir} is full: memories can be read, and changes are possible again by themselves once some space is free.`,
    needsSnapshot: false,
    needsWriter,
  };
}

/** The disk is full and the store cannot even be opened read-only (new, or needs a migration). */
export function diskFullCannotOpen(dir: string, e: unknown): StoreIoError {
  return new StoreIoError(
    `The disk holding the memory store at ${dir} is full: the store cannot be created or upgraded until some space is free ` +
      `(${errorMessage(e)}).`,
    'disk_full',
    e,
  );
}
