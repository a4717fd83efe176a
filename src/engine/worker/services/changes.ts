/**
 * The change feed of both stores (docs/changes.md): pages after a cursor, a long poll for the
 * next change, and a `changes.appended` event to every window and client after each commit that
 * added events (the CLI's --follow, the MCP server's resource subscriptions, the Webhooks view).
 */
import { eventsSince, latestCursor } from '../../../core/changes/events';
import type { ChangePage } from '../../../core/changes/types';
import type { EngineContext } from '../context';
import type { StoreName } from '../../protocol';

/** How long events.wait waits for a change by default (a long poll well inside any request timeout). */
export const DEFAULT_WAIT_MS = 25_000;

export class ChangesService {
  private readonly latest: Record<StoreName, number> = { project: 0, global: 0 };
  private readonly unwatch: Partial<Record<StoreName, () => void>> = {};
  private readonly waiters = new Set<{ store: StoreName; since: number; wake: () => void }>();

  constructor(private readonly ctx: EngineContext) {}

  /** Follows the commits of both stores (again for `global` after it was taken over). */
  watch(names: StoreName[] = ['project', 'global']): void {
    for (const name of names) {
      this.unwatch[name]?.();
      const store = this.ctx.stores.store(name);
      this.latest[name] = this.read(name);
      this.unwatch[name] = store.onCommit(() => this.committed(name));
    }
  }

  stop(): void {
    for (const off of Object.values(this.unwatch)) off?.();
    for (const w of [...this.waiters]) w.wake();
  }

  since(store: StoreName, cursor: number, limit: number): ChangePage {
    return eventsSince(this.ctx.stores.store(store), cursor, limit);
  }

  /** The page after `cursor` once it has an event, or the empty page after `timeoutMs` (or when the call is cancelled). */
  async wait(store: StoreName, cursor: number, limit: number, timeoutMs: number, signal: AbortSignal): Promise<ChangePage> {
    const first = this.since(store, cursor, limit);
    if (first.events.length || first.gap || this.ctx.closed || signal.aborted) return first;
    await new Promise<void>((resolve) => {
      const waiter = { store, since: cursor, wake: () => done() };
      // The long poll's deadline, scoped to this call and cleared when it ends (a ref'd timer: the call is work in progress).
      const deadline = setTimeout(() => done(), timeoutMs);
      const done = () => {
        clearTimeout(deadline);
        this.waiters.delete(waiter);
        signal.removeEventListener('abort', done);
        resolve();
      };
      this.waiters.add(waiter);
      signal.addEventListener('abort', done, { once: true });
    });
    return this.since(store, cursor, limit);
  }

  private read(name: StoreName): number {
    try {
      return latestCursor(this.ctx.stores.store(name));
    } catch {
      return 0; // a store without the feed's tables yet (read-only, behind on migrations)
    }
  }

  private committed(name: StoreName): void {
    const cursor = this.read(name);
    if (cursor <= this.latest[name]) return;
    this.latest[name] = cursor;
    this.ctx.emit({ type: 'changes.appended', store: name, cursor });
    for (const w of [...this.waiters]) if (w.store === name && w.since < cursor) w.wake();
  }
}
