/**
 * Lifecycle upkeep of one store (docs/lifecycle.md): search hits bump access counts and
 * extend TTLs off the request path (AccessTracker, batched), and expired short-term memories
 * are swept every `memory.cleanup_interval`. Read-only stores do neither.
 */
import type { Store } from '../core/store/store';
import { AccessTracker } from '../core/lifecycle/access';
import { cleanupExpired, startCleanupScheduler } from '../core/lifecycle/cleanup';
import type { ResolvedConfig } from '../core/config';
import { errorMessage } from '../core/util/errors';
import { lifecycleFrom } from './config';

export interface Upkeep {
  recordAccess(rids: number[]): void;
  /** Runs one sweep now; the ids it expired. */
  sweep(): string[];
  close(): void;
}

export function startUpkeep(
  store: Store,
  config: ResolvedConfig,
  events: { onExpired(ids: string[]): void; onPromoted(ids: string[]): void; onWarning(message: string): void },
  now: () => Date = () => new Date(),
): Upkeep | undefined {
  if (store.isReadOnly) return undefined;
  const access = new AccessTracker(store, { lifecycle: lifecycleFrom(config), now, delayMs: 250, onError: (msg) => events.onWarning(`access tracking: ${msg}`) });
  const sweep = () => {
    const r = cleanupExpired(store, { now: now() });
    if (r.ids.length) events.onExpired(r.ids);
    return r.ids;
  };
  const scheduler = startCleanupScheduler(sweep, config.memory.cleanup_interval, (e) => events.onWarning(`expiry sweep failed: ${errorMessage(e)}`));
  return {
    recordAccess(rids) {
      access.record(rids);
    },
    sweep,
    close() {
      scheduler.stop();
      try {
        const r = access.close(); // the last accesses are written before the store closes
        if (r.promoted.length) events.onPromoted(r.promoted);
      } catch (e) {
        events.onWarning(`access tracking: ${errorMessage(e)}`);
      }
    },
  };
}
