/**
 * Where this engine's global calls go when another project's engine owns `global/`
 * (ARCHITECTURE.md "One owner, many clients"): to that owner through a GlobalLink, and — once
 * the owner goes away — to the next one, or here, when this engine is the first to take the
 * global store's lock (the way SharedTransport takes over a project store):
 *
 * - while no owner is reachable, writes wait (up to `waitMs`) for the route to settle; reads
 *   wait briefly, then are answered from this engine's read-only copy of global/;
 * - a read in flight when the owner died goes again to the next owner;
 * - a create in flight goes again with its idempotency key (server/idempotency.ts: answered as
 *   the original if it was applied, never applied twice);
 * - any other write in flight fails with `engine_crashed` (outcome unknown, never applied twice);
 * - an owner that is closing answers what it accepted and refuses the rest (`engine_closing`,
 *   not run: server/drain.ts), which goes to the next owner like a read.
 */
import { randomUUID } from 'node:crypto';
import { EngineError } from '../../errors';
import {
  IDEMPOTENCY_KEY,
  READ_ONLY_METHODS,
  asRetry,
  type EngineEvent,
  type EngineMethod,
  type ParamsOf,
  type ResultOf,
} from '../../protocol';
import { GlobalLink, GlobalLinkLost } from './globalLink';

export interface GlobalRouteOptions {
  globalDir: string;
  /** Shown in the owner's log. */
  client: string;
  /** The global owner's events, passed on to this engine's windows. */
  onEvent: (e: EngineEvent) => void;
  /** Tries to open global/ writable here (MemoryEngine.takeOverGlobal); false while someone holds its lock. */
  takeOver: () => Promise<boolean>;
  /** Called once this engine owns global/ (it starts serving it to the others). */
  becameOwner: () => Promise<void>;
  log: (line: string) => void;
  /** How long a call waits for an owner (default 30 s). */
  waitMs?: number;
}

export type GlobalTarget = GlobalLink | 'local';

/** How long a read waits for an owner before it is answered from the read-only copy. */
export const READ_WAIT_MS = 3000;
/** How often one call goes again after closing owners refused it. */
const MAX_REFUSALS = 10;

export class GlobalRoute {
  private link: GlobalLink | undefined;
  private owned = false;
  private closed = false;
  private settling: Promise<void> | undefined;
  /** A settle round found nobody serving global/ and could not take it: reads use the copy meanwhile. */
  private noOwnerFound = false;

  private constructor(private readonly opts: GlobalRouteOptions) {}

  /** Connects to the owner of global/, or starts looking for one (or taking it over) in the background. */
  static async start(opts: GlobalRouteOptions): Promise<GlobalRoute> {
    const route = new GlobalRoute(opts);
    route.link = await route.connect();
    if (!route.link) route.settle();
    return route;
  }

  /** This engine owns global/ now: every global call is local. */
  get local(): boolean {
    return this.owned;
  }

  /**
   * `method` on the global store: through the owner, or `local()` once this engine owns it.
   * See the file comment for what happens to a call in flight when the owner goes away.
   */
  async request<M extends EngineMethod>(
    method: M,
    params: ParamsOf<M>,
    local: (p: ParamsOf<M>) => Promise<ResultOf<M>>,
  ): Promise<ResultOf<M>> {
    let p = withKey(method, params);
    for (let attempt = 0; ; attempt++) {
      const target = await this.target(READ_ONLY_METHODS.has(method));
      if (target === 'local' || target === 'copy') return local(p);
      try {
        return await target.request(method, p);
      } catch (e) {
        if (e instanceof EngineError && e.code === 'engine_closing' && attempt < MAX_REFUSALS) continue;
        if (!(e instanceof GlobalLinkLost) || attempt >= 3) throw e;
        if (!READ_ONLY_METHODS.has(method) && method !== 'memory.create') {
          throw new EngineError(
            'engine_crashed',
            `The window serving the global memories closed while "${method}" was in flight: it may or may not have been applied. Check and try again.`,
          );
        }
        if (method === 'memory.create') p = asRetry(p as ParamsOf<'memory.create'>) as ParamsOf<M>;
      }
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.link?.close();
  }

  /**
   * The owner's link, or local once this engine owns global/; waits while the route is settling.
   * A read that finds no owner (at once when a round already found none, else after a short
   * wait) is answered from this engine's read-only copy of global/ ('copy'), as of its open.
   */
  private async target(read: boolean): Promise<GlobalTarget | 'copy'> {
    if (this.owned) return 'local';
    if (this.link?.connected) return this.link;
    this.settle();
    const settling = this.settling;
    if (settling && !(read && this.noOwnerFound)) {
      let timer: NodeJS.Timeout | undefined;
      const waitMs = read ? READ_WAIT_MS : (this.opts.waitMs ?? 30_000);
      const timedOut = new Promise<void>((r) => (timer = setTimeout(r, waitMs)));
      await Promise.race([settling, timedOut]);
      clearTimeout(timer);
    }
    if (this.owned) return 'local';
    if (this.link?.connected) return this.link;
    if (read) return 'copy';
    throw new EngineError(
      'engine_unavailable',
      'The global memories cannot be changed right now (no engine serves them); try again shortly.',
    );
  }

  private connect(): Promise<GlobalLink | undefined> {
    return GlobalLink.open(this.opts.globalDir, this.opts.client, this.opts.onEvent, () => {
      if (this.closed) return;
      this.opts.log('global memories: their owner went away; reconnecting or taking the global store over');
      this.settle();
    });
  }

  /** Until settled: connect to whoever serves global/, else try to take its lock; back off between rounds. */
  private settle(): void {
    if (this.settling || this.owned || this.closed) return;
    this.settling = (async () => {
      for (let round = 0; !this.closed; round++) {
        const link = await this.connect();
        if (link) {
          this.link = link;
          this.noOwnerFound = false;
          return;
        }
        if (await this.opts.takeOver()) {
          this.owned = true;
          this.link = undefined;
          this.noOwnerFound = false;
          this.opts.log('global memories: this engine took the global store over');
          await this.opts.becameOwner();
          return;
        }
        this.noOwnerFound = true;
        await new Promise((r) => setTimeout(r, Math.min(1000, 25 * 2 ** round)));
      }
    })()
      .catch((e: unknown) => this.opts.log(`global memories: taking the global store over failed: ${(e as Error).message}`))
      .finally(() => {
        this.settling = undefined;
      });
  }
}

/** A create sent on with an idempotency key, so going again after a lost owner cannot apply it twice. */
function withKey<M extends EngineMethod>(method: M, params: ParamsOf<M>): ParamsOf<M> {
  if (method !== 'memory.create') return params;
  const p = params as ParamsOf<'memory.create'>;
  if (typeof p?.metadata?.[IDEMPOTENCY_KEY] === 'string') return params;
  return { ...p, metadata: { ...p?.metadata, [IDEMPOTENCY_KEY]: randomUUID() } } as ParamsOf<M>;
}
