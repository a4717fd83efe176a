/**
 * The engine side of the RPC: reads ToEngineMessage from a port, runs the handler of each
 * request with an AbortSignal (cancelled by a CancelMessage) and answers exactly once with a
 * ResponseMessage. Requests run concurrently as far as the engine allows: every engine method
 * is synchronous over sql.js or awaits its own I/O, so one thread keeps the store consistent.
 */
import type { CallContext, MemoryEngine } from './engine';
import { EngineError, cancelledError, toErrorPayload } from '../errors';
import type { HandlerTable } from './handlers';
import type { EngineMethod, FromEngineMessage, ToEngineMessage } from '../protocol';

export interface Port {
  postMessage(message: FromEngineMessage): void;
  on(event: 'message', listener: (message: ToEngineMessage) => void): unknown;
}

export class RpcServer {
  private readonly running = new Map<number, AbortController>();
  /** Set by drain(): the answer to every request that arrives from then on (it is not run). */
  private refusal: (() => EngineError) | undefined;
  private drained: (() => void) | undefined;
  /** Set by cancelAll(): nobody asked for those cancellations, so none is answered as `cancelled`. */
  private cutShort = false;

  constructor(
    private readonly port: Port,
    private readonly engine: MemoryEngine,
    private readonly handlers: HandlerTable,
    private readonly onShutdown: () => void,
  ) {
    port.on('message', (msg) => this.receive(msg));
  }

  /**
   * Stops taking requests: each one that arrives from now on is answered with `refusal()` and not
   * run. Resolves once every request already running has been answered (a closing owner finishes
   * what it accepted before it closes the connection: ARCHITECTURE.md "One owner, many clients").
   */
  drain(refusal: () => EngineError): Promise<void> {
    this.refusal = refusal;
    if (!this.running.size) return Promise.resolve();
    return new Promise((resolve) => (this.drained = resolve));
  }

  /**
   * Cancels what still runs (a drain that took too long). Its clients did not cancel anything: a
   * request that ends anyway is answered with its result (it was applied); one that stops because
   * of the cancellation gets no answer, so its client sees the owner go away with it in flight
   * (read or keyed create: sent again; other write: outcome unknown) instead of a `cancelled`
   * it never asked for.
   */
  cancelAll(): void {
    this.cutShort = true;
    for (const c of this.running.values()) c.abort();
  }

  private receive(msg: ToEngineMessage): void {
    if (!msg || typeof msg !== 'object') return;
    if (msg.kind === 'cancel') {
      this.running.get(msg.id)?.abort();
      return;
    }
    if (msg.kind !== 'request' || !Number.isInteger(msg.id)) return;
    if (this.refusal) this.port.postMessage({ kind: 'response', id: msg.id, ok: false, error: this.refusal().toPayload() });
    else void this.handle(msg.id, msg.method, msg.params);
  }

  private async handle(id: number, method: EngineMethod, params: unknown): Promise<void> {
    const handler = Object.prototype.hasOwnProperty.call(this.handlers, method)
      ? (this.handlers[method] as (e: MemoryEngine, p: unknown, c: CallContext) => unknown)
      : undefined;
    if (!handler) {
      this.port.postMessage({
        kind: 'response',
        id,
        ok: false,
        error: new EngineError('unknown_method', `Unknown engine method "${String(method)}".`).toPayload(),
      });
      return;
    }
    const controller = new AbortController();
    this.running.set(id, controller);
    const ctx: CallContext = {
      signal: controller.signal,
      progress: (done, total, message) =>
        this.port.postMessage({
          kind: 'event',
          event: { type: 'progress', requestId: id, title: method, done, total, ...(message ? { message } : {}) },
        }),
    };
    try {
      const result = await handler(this.engine, params, ctx);
      if (controller.signal.aborted && !this.cutShort) throw cancelledError();
      this.port.postMessage({ kind: 'response', id, ok: true, result });
    } catch (err) {
      const error = controller.signal.aborted ? cancelledError().toPayload() : toErrorPayload(err);
      if (!(controller.signal.aborted && this.cutShort)) this.port.postMessage({ kind: 'response', id, ok: false, error });
    } finally {
      this.running.delete(id);
      if (this.drained && !this.running.size) this.drained();
    }
    if (method === 'engine.shutdown') this.onShutdown();
  }
}
