/**
 * An engine whose global store is owned by another project's engine (it opened `global/`
 * read-only) reaches the global memories through that owner's `global/engine.sock`
 * (globalScope.ts). This is one connection: typed requests, the owner's events, and
 * GlobalLinkLost for every request in flight (or made after) when the owner goes away —
 * globalRoute.ts then reconnects to the next owner or takes the store over.
 */
import { EngineError } from '../../errors';
import type { EngineEvent, EngineMethod, FromEngineMessage, ParamsOf, ResultOf } from '../../protocol';
import { connectToOwner, type SocketTransport } from '../../client/socketTransport';

interface Waiter {
  resolve(v: unknown): void;
  reject(e: Error): void;
}

/** The owner of the global store went away with this request unanswered (its outcome is unknown). */
export class GlobalLinkLost extends EngineError {
  constructor() {
    super('engine_unavailable', 'The window serving the global memories closed; they are reached again once another engine serves them.');
  }
}

export class GlobalLink {
  private nextId = 1;
  private readonly waiting = new Map<number, Waiter>();
  private closed = false;
  /** The owner refused a request because it is closing (server/drain.ts): nothing more goes to it. */
  private closing = false;

  private constructor(
    private readonly transport: SocketTransport,
    onEvent: (e: EngineEvent) => void,
    onLost: () => void,
  ) {
    transport.on('message', (m: FromEngineMessage) => {
      if (m.kind === 'event') onEvent(m.event);
      if (m.kind !== 'response') return;
      const w = this.waiting.get(m.id);
      this.waiting.delete(m.id);
      if (m.ok) return w?.resolve(m.result);
      if (m.error.code === 'engine_closing') this.closing = true;
      w?.reject(EngineError.fromPayload(m.error));
    });
    transport.on('exit', () => {
      const wasOpen = !this.closed;
      this.closed = true;
      for (const w of this.waiting.values()) w.reject(new GlobalLinkLost());
      this.waiting.clear();
      if (wasOpen) onLost();
    });
  }

  /**
   * Connects to the owner of the global store in `globalDir`; undefined when nobody serves it.
   * `onLost` is called once if the owner goes away (not after close()).
   */
  static async open(
    globalDir: string,
    client: string,
    onEvent: (e: EngineEvent) => void,
    onLost: () => void = () => undefined,
  ): Promise<GlobalLink | undefined> {
    // A refusal (a socket that is not this user's, an owner of another version) counts as no owner here:
    // the route then takes the global store over when its lock is free, and keeps the project working meanwhile.
    const c = await connectToOwner(globalDir, client).catch(() => undefined);
    return c ? new GlobalLink(c.transport, onEvent, onLost) : undefined;
  }

  get connected(): boolean {
    return !this.closed && !this.closing;
  }

  request<M extends EngineMethod>(method: M, params: ParamsOf<M>): Promise<ResultOf<M>> {
    if (this.closed) return Promise.reject(new GlobalLinkLost());
    const id = this.nextId++;
    return new Promise<ResultOf<M>>((resolve, reject) => {
      this.waiting.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.transport.postMessage({ kind: 'request', id, method, params } as never);
    });
  }

  close(): Promise<number> {
    this.closed = true;
    return this.transport.terminate();
  }
}
