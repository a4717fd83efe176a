/**
 * The UI-side RPC client of the engine worker (plain Node: used by src/extension and tests).
 *
 * - `request(method, params, {signal, timeoutMs})` is typed by protocol.ts; the promise settles
 *   exactly once (result, EngineError from the engine, `cancelled`, `timeout`, …).
 * - Requests made while the engine starts or restarts wait in a queue and go out once it is
 *   ready: callers never see the restart, except writes that were in flight when it crashed
 *   (they fail with `engine_crashed`: their outcome is unknown). Reads in flight, and creates
 *   (each carries an idempotency key), are sent again once after a crash.
 * - A crash (thread exit without a shutdown) restarts the worker with exponential backoff;
 *   too many crashes within a window → state `failed` until `restart()` is called.
 * - The store's owner going away (a `remote` transport ends: ARCHITECTURE.md "One owner, many
 *   clients") is no crash, and one mechanism whichever way it goes (the state's `handover`): an
 *   owner that goes on purpose says so first (`owner.leaving`: who, and whether it restarts its
 *   engine), drains what it accepted and refuses the rest (`engine_closing`, not run); from its
 *   word on, new requests wait here for the next owner. When the connection ends, the transport
 *   is restarted at once — it waits for the socket of an owner that restarts, else connects to
 *   the next owner or takes the store over — and reads and creates in flight, and the requests
 *   it refused, go again as often as owners go away (up to MAX_RESENDS). An owner that vanishes
 *   without a word (killed) is the same, except that after QUICK_RECONNECTS of those within the
 *   backoff window the reconnections back off.
 * - `shutdown()` asks the engine to snapshot and close, then waits for the thread to end
 *   (terminating it after a timeout).
 */
import { randomUUID } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import { EngineError } from '../errors';
import type { EngineTransport } from './transport';
import {
  IDEMPOTENCY_KEY,
  READ_ONLY_METHODS,
  asRetry,
  type EngineErrorCode,
  type EngineEvent,
  type EngineInit,
  type EngineMethod,
  type FromEngineMessage,
  type ParamsOf,
  type ReadyInfo,
  type ResultOf,
  type ToEngineMessage,
} from '../protocol';

export type EngineState = 'starting' | 'ready' | 'restarting' | 'failed' | 'stopping' | 'stopped';

export interface EngineStateChange {
  state: EngineState;
  /** Why (crash message, fatal start-up error), when there is a reason. */
  reason?: string;
  /** When failed: the error's code (store_key_missing: the window offers to import the recovery key). */
  code?: EngineErrorCode;
  /** Restarts so far within the crash window. */
  restarts: number;
  /** When restarting: the delay before the next start. */
  retryInMs?: number;
  ready?: ReadyInfo;
  /**
   * Restarting because the store's owner (another process) is going or went away: a reconnection,
   * not a crash of this side. When it said so (owner.leaving), who it was and whether it restarts.
   */
  handover?: Handover;
}

/** The store's owner going away, as its clients see it (EngineStateChange.handover). */
export interface Handover {
  /** Who served the store (its purpose, "VS Code window (pid 123)"), when it said it was leaving; absent when it vanished (killed). */
  owner?: string;
  /** It said it restarts its engine: it keeps the store, and its clients wait for its socket. */
  restarting: boolean;
}

export interface BackoffOptions {
  initialMs: number;
  maxMs: number;
  /** More crashes than this within `windowMs` → failed. */
  maxRestarts: number;
  windowMs: number;
}

/** Why the transport is started again: the store's owner said it restarts its engine (it comes back: wait for it). */
export interface SpawnHint {
  ownerRestarting?: boolean;
}

export interface EngineClientOptions {
  init: EngineInit;
  /**
   * Creates the engine's transport: a worker thread (default: `new Worker(workerPath, { workerData: init })`)
   * or the owner-or-client connection of a shared store (transport/sharedTransport.ts).
   */
  spawn?: (init: EngineInit, hint?: SpawnHint) => EngineTransport;
  workerPath?: string;
  backoff?: Partial<BackoffOptions>;
  /** A worker that has not posted `ready` after this long is killed and counts as a crash. */
  startTimeoutMs?: number;
  log?: (line: string) => void;
}

export interface RequestOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
  /** Progress events the engine sends for this request (import, …). */
  onProgress?: (done: number, total: number, message?: string) => void;
}

const DEFAULT_BACKOFF: BackoffOptions = { initialMs: 250, maxMs: 30_000, maxRestarts: 5, windowMs: 120_000 };

/** How many times one request goes again after owners went away (or refused it while closing). */
const MAX_RESENDS = 20;
/** Owners gone within the backoff window that are reconnected to at once; later ones back off. */
const QUICK_RECONNECTS = 3;

interface Pending {
  id: number;
  method: EngineMethod;
  params: unknown;
  resolve(value: unknown): void;
  reject(err: Error): void;
  /** Times it was sent again (after a crash, an owner gone, a refusal). */
  resends: number;
  cleanup(): void;
  onProgress?: RequestOptions['onProgress'];
}

/** Requests that embed a query or a memory's text: one of them waiting while the engine starts is worth a PrepareMessage. */
const EMBEDDING_METHODS: ReadonlySet<EngineMethod> = new Set<EngineMethod>([
  'search',
  'sessions.search',
  'memory.create',
  'memory.update',
  'notes.store',
  'documents.ingest',
]);

export class EngineClient {
  private worker: EngineTransport | undefined;
  private nextId = 1;
  private readonly inFlight = new Map<number, Pending>();
  private queue: Pending[] = [];
  private readonly eventListeners = new Set<(e: EngineEvent) => void>();
  private readonly stateListeners = new Set<(s: EngineStateChange) => void>();
  private crashTimes: number[] = [];
  /** When the store's owner went away, within the backoff window (not crashes). */
  private ownerLosses: number[] = [];
  private restartTimer: NodeJS.Timeout | undefined;
  private startTimer: NodeJS.Timeout | undefined;
  private readyInfo: ReadyInfo | undefined;
  private readyWaiters: { resolve(i: ReadyInfo): void; reject(e: Error): void }[] = [];
  private failure: EngineError | undefined;
  private _state: EngineState = 'stopped';
  private readonly backoff: BackoffOptions;
  private generation = 0;
  /** The generation whose worker was told to prepare its embedder (prepareEmbedder). */
  private embedderPrepared = -1;
  private exitWaiters: (() => void)[] = [];
  /** Mutable only through updateInit: what the next (re)start of the worker opens. */
  private init: EngineInit;
  /** The owner of this generation's connection said it goes away on purpose (owner.leaving). */
  private leaving: { gen: number; owner: string; restarting: boolean } | undefined;

  constructor(private readonly opts: EngineClientOptions) {
    this.backoff = { ...DEFAULT_BACKOFF, ...opts.backoff };
    this.init = { ...opts.init, ownerId: opts.init.ownerId ?? randomUUID() };
  }

  get state(): EngineState {
    return this._state;
  }

  get ready(): ReadyInfo | undefined {
    return this.readyInfo;
  }

  /** Restarts within the current crash window. */
  get restarts(): number {
    return this.crashTimes.length;
  }

  onEvent(listener: (e: EngineEvent) => void): { dispose(): void } {
    this.eventListeners.add(listener);
    return { dispose: () => this.eventListeners.delete(listener) };
  }

  onStateChange(listener: (s: EngineStateChange) => void): { dispose(): void } {
    this.stateListeners.add(listener);
    return { dispose: () => this.stateListeners.delete(listener) };
  }

  /** Starts the worker; resolves when it is ready (rejects if it cannot start at all). */
  start(): Promise<ReadyInfo> {
    if (this._state === 'ready' && this.readyInfo) return Promise.resolve(this.readyInfo);
    if (this._state === 'stopped' || this._state === 'failed') {
      this.failure = undefined;
      this.crashTimes = [];
      const p = this.whenReady();
      this.spawn('starting');
      return p;
    }
    return this.whenReady();
  }

  /**
   * Changes what the next worker start opens (workspace trust granted, another project folder,
   * pipeline paused). Takes effect on the next restart, including a crash restart.
   */
  updateInit(patch: Partial<Omit<EngineInit, 'ownerId'>>): void {
    this.init = { ...this.init, ...patch };
  }

  /** The init of the next worker start (read-only copy). */
  get currentInit(): Readonly<EngineInit> {
    return { ...this.init };
  }

  /** Manual restart (after `failed`, or to pick up a new build). */
  async restart(): Promise<ReadyInfo> {
    if (this._state !== 'stopped' && this._state !== 'failed') await this.shutdown(5000, true);
    return this.start();
  }

  /** Resolves once the engine is ready (now, or after the running start/restart). */
  whenReady(): Promise<ReadyInfo> {
    if (this._state === 'ready' && this.readyInfo) return Promise.resolve(this.readyInfo);
    if (this._state === 'failed' && this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => this.readyWaiters.push({ resolve, reject }));
  }

  request<M extends EngineMethod>(method: M, params: ParamsOf<M>, opts: RequestOptions = {}): Promise<ResultOf<M>> {
    if (this._state === 'stopped' || this._state === 'stopping') {
      return Promise.reject(new EngineError('engine_stopped', 'The memory engine is not running.'));
    }
    if (this._state === 'failed') {
      return Promise.reject(
        new EngineError('engine_unavailable', `The memory engine is not available: ${this.failure?.message ?? 'it stopped'}`),
      );
    }
    if (opts.signal?.aborted) return Promise.reject(new EngineError('cancelled', 'The operation was cancelled.'));
    return new Promise<ResultOf<M>>((resolve, reject) => {
      const id = this.nextId++;
      let timer: NodeJS.Timeout | undefined;
      const onAbort = () => this.abandon(id, new EngineError('cancelled', 'The operation was cancelled.'));
      const pending: Pending = {
        id,
        method,
        params: withIdempotencyKey(method, params),
        resends: 0,
        onProgress: opts.onProgress,
        resolve: resolve as (v: unknown) => void,
        reject,
        cleanup: () => {
          if (timer) clearTimeout(timer);
          opts.signal?.removeEventListener('abort', onAbort);
        },
      };
      opts.signal?.addEventListener('abort', onAbort, { once: true });
      if (opts.timeoutMs !== undefined) {
        timer = setTimeout(
          () => this.abandon(id, new EngineError('timeout', `The memory engine did not answer "${method}" within ${opts.timeoutMs} ms.`)),
          opts.timeoutMs,
        );
      }
      if (this._state === 'ready') this.send(pending);
      else {
        this.queue.push(pending);
        this.expect(method);
      }
    });
  }

  /**
   * A request of this kind is about to follow (a CLI command, a hook that searches): when it
   * embeds text and the engine is still starting, the engine loads its embedder meanwhile.
   */
  expect(method: EngineMethod): void {
    if ((this._state === 'starting' || this._state === 'restarting') && EMBEDDING_METHODS.has(method)) this.prepareEmbedder();
  }

  /**
   * A request that embeds text waits for the starting engine: tell it now, so that it loads its
   * embedder (the built-in model: hundreds of ms) beside opening the stores instead of after.
   * Once per worker start.
   */
  private prepareEmbedder(): void {
    if (!this.worker || this.embedderPrepared === this.generation) return;
    this.embedderPrepared = this.generation;
    try {
      this.worker.postMessage({ kind: 'prepare' });
    } catch {
      // Only a hint: the request itself loads the embedder when the engine is ready.
    }
  }

  /** Clean shutdown: the engine snapshots and closes its stores, then the thread ends (`restarting`: told to its clients). */
  async shutdown(timeoutMs = 5000, restarting = false): Promise<void> {
    if (this._state === 'stopped') return;
    clearTimeout(this.restartTimer);
    const worker = this.worker;
    const wasReady = this._state === 'ready';
    this.setState('stopping');
    this.rejectQueued(new EngineError('engine_stopped', 'The memory engine is shutting down.'));
    if (worker && wasReady) {
      const id = this.nextId++;
      const answered = new Promise<void>((resolve) => {
        this.inFlight.set(id, {
          id,
          method: 'engine.shutdown',
          params: {},
          resends: MAX_RESENDS,
          resolve: () => resolve(),
          reject: () => resolve(),
          cleanup: () => undefined,
        });
      });
      worker.postMessage({ kind: 'request', id, method: 'engine.shutdown', params: { restarting } } satisfies ToEngineMessage);
      const exited = new Promise<void>((resolve) => this.exitWaiters.push(resolve));
      const timedOut = await Promise.race([answered.then(() => exited).then(() => false), delay(timeoutMs).then(() => true)]);
      if (timedOut) this.log(`engine did not stop within ${timeoutMs} ms: terminating the thread`);
    }
    if (this.worker) await this.worker.terminate().catch(() => undefined);
    this.worker = undefined;
    this.rejectInFlight(new EngineError('engine_stopped', 'The memory engine stopped.'), 0);
    this.setState('stopped');
  }

  // ── internals ─────────────────────────────────────────────────────────────────────────

  private spawn(state: 'starting' | 'restarting', hint?: SpawnHint): void {
    const gen = ++this.generation;
    this.readyInfo = undefined;
    this.setState(state);
    let worker: EngineTransport;
    try {
      worker = this.opts.spawn ? this.opts.spawn(this.init, hint) : new Worker(this.workerPath(), { workerData: this.init });
    } catch (e) {
      this.crashed(gen, `could not start the engine thread: ${(e as Error).message}`);
      return;
    }
    this.worker = worker;
    let lastError: string | undefined;
    worker.on('message', (m: FromEngineMessage) => {
      if (gen === this.generation) this.receive(m);
    });
    worker.on('error', (e) => {
      lastError = e?.stack ?? String(e);
      this.log(`engine thread error: ${lastError}`);
    });
    worker.on('exit', (code) => {
      if (gen !== this.generation) return;
      this.worker = undefined;
      const waiters = this.exitWaiters;
      this.exitWaiters = [];
      for (const w of waiters) w();
      if (this._state === 'stopping' || this._state === 'stopped' || this._state === 'failed') return;
      if (worker.remote || this.leaving?.gen === gen) this.ownerLeft(gen);
      else this.crashed(gen, lastError ? firstLine(lastError) : `the engine thread exited with code ${code}`);
    });
    const startTimeout = this.opts.startTimeoutMs ?? 60_000;
    clearTimeout(this.startTimer);
    this.startTimer = setTimeout(() => {
      if (gen === this.generation && this._state !== 'ready' && this.worker === worker) {
        this.log(`engine did not become ready within ${startTimeout} ms`);
        void worker.terminate();
      }
    }, startTimeout);
    this.startTimer.unref();
  }

  private workerPath(): string {
    if (!this.opts.workerPath) throw new Error('EngineClient needs workerPath or spawn');
    return this.opts.workerPath;
  }

  private receive(m: FromEngineMessage): void {
    switch (m.kind) {
      case 'ready':
        return this.handleReady(m);
      case 'response':
        return this.handleResponse(m);
      case 'event':
        return this.handleEvent(m);
      case 'fatal':
        return this.handleFatal(m);
    }
  }

  private handleReady(m: Extract<FromEngineMessage, { kind: 'ready' }>): void {
    clearTimeout(this.startTimer);
    this.readyInfo = m.info;
    this.setState('ready', { ready: m.info });
    const waiters = this.readyWaiters;
    this.readyWaiters = [];
    for (const w of waiters) w.resolve(m.info);
    const queued = this.queue;
    this.queue = [];
    for (const p of queued) this.send(p);
  }

  private handleResponse(m: Extract<FromEngineMessage, { kind: 'response' }>): void {
    const p = this.inFlight.get(m.id);
    if (!p) return; // abandoned (cancelled, timed out)
    this.inFlight.delete(m.id);
    if (!m.ok && m.error.code === 'engine_closing' && this.worker?.remote && p.resends < MAX_RESENDS) {
      // The owner is closing and did not run it: it goes to the next owner. Nothing more goes to this one.
      p.resends++;
      this.queue.push(p);
      this.queue.sort((a, b) => a.id - b.id);
      this.ownerClosing();
      return;
    }
    p.cleanup();
    if (m.ok) p.resolve(m.result);
    else p.reject(EngineError.fromPayload(m.error));
  }

  private handleEvent(m: Extract<FromEngineMessage, { kind: 'event' }>): void {
    if (m.event.type === 'progress') this.inFlight.get(m.event.requestId)?.onProgress?.(m.event.done, m.event.total, m.event.message);
    if (m.event.type === 'owner.leaving') {
      this.leaving = { gen: this.generation, owner: m.event.owner, restarting: m.event.restarting };
      this.ownerClosing();
    }
    for (const l of this.eventListeners) {
      try {
        l(m.event);
      } catch (e) {
        this.log(`engine event listener failed: ${(e as Error).message}`);
      }
    }
  }

  private handleFatal(m: Extract<FromEngineMessage, { kind: 'fatal' }>): void {
    // The engine cannot open its stores: restarting would fail the same way.
    clearTimeout(this.startTimer);
    this.failure = EngineError.fromPayload(m.error);
    this.log(`engine could not start: ${m.error.message}${m.error.detail ? `\n${m.error.detail}` : ''}`);
    this.generation++; // ignore the thread's exit
    void this.worker?.terminate();
    this.worker = undefined;
    this.fail(this.failure);
  }

  private send(p: Pending): void {
    this.inFlight.set(p.id, p);
    this.worker!.postMessage({ kind: 'request', id: p.id, method: p.method, params: p.params } as ToEngineMessage);
  }

  /** Cancel/timeout: settle locally now; tell the engine to stop working on it. */
  private abandon(id: number, err: EngineError): void {
    const inFlight = this.inFlight.get(id);
    const queuedIndex = this.queue.findIndex((p) => p.id === id);
    const p = inFlight ?? this.queue[queuedIndex];
    if (!p) return;
    if (inFlight) {
      this.inFlight.delete(id);
      this.worker?.postMessage({ kind: 'cancel', id } satisfies ToEngineMessage);
    } else {
      this.queue.splice(queuedIndex, 1);
    }
    p.cleanup();
    p.reject(err);
  }

  private crashed(gen: number, reason: string): void {
    if (gen !== this.generation) return;
    clearTimeout(this.startTimer);
    const now = Date.now();
    this.crashTimes = [...this.crashTimes.filter((t) => now - t < this.backoff.windowMs), now];
    this.log(`engine crashed: ${reason}`);
    // Reads and creates in flight go again (once) after the restart; other writes may or may not have been committed.
    this.rejectInFlight(
      new EngineError(
        'engine_crashed',
        `The memory engine stopped unexpectedly (${reason}); it is restarting. A change in progress may not have been saved: check and try again.`,
      ),
      1,
    );
    if (this.crashTimes.length > this.backoff.maxRestarts) {
      this.fail(
        new EngineError(
          'engine_unavailable',
          `The memory engine crashed ${this.crashTimes.length} times within ${Math.round(this.backoff.windowMs / 1000)} s (last: ${reason}).`,
        ),
      );
      return;
    }
    const retryInMs = Math.min(this.backoff.maxMs, this.backoff.initialMs * 2 ** (this.crashTimes.length - 1));
    this.setState('restarting', { reason, retryInMs });
    this.respawnIn(retryInMs);
  }

  /** The handover of this generation's owner: who said it leaves, if it did. */
  private handover(): Handover {
    const said = this.leaving?.gen === this.generation ? this.leaving : undefined;
    return said ? { owner: said.owner, restarting: said.restarting } : { restarting: false };
  }

  /**
   * The owner (another process) said it leaves, or refused a request because it is closing: it
   * still answers what it accepted, but nothing new goes to it — requests wait for the next owner.
   */
  private ownerClosing(): void {
    if (this._state !== 'ready' || !this.worker?.remote) return;
    const handover = this.handover();
    this.setState('restarting', { reason: handover.owner ? reasonOf(handover) : "the store's owner is closing", handover });
  }

  /**
   * The owner of the store (another process) went away: not a crash here, nothing counted. Reads
   * and creates in flight, and what it refused while closing, go again to whoever serves the
   * store next (this side, if it claims the takeover first); other writes in flight have an
   * unknown outcome. Reconnects at once — to the owner that restarts (`ownerRestarting` for the
   * transport: it keeps its store), or the next one — backing off only when owners keep vanishing
   * without a word (killed).
   */
  private ownerLeft(gen: number): void {
    if (gen !== this.generation) return;
    clearTimeout(this.startTimer);
    const handover = this.handover();
    this.leaving = undefined;
    const reason = reasonOf(handover);
    const now = Date.now();
    if (!handover.owner) this.ownerLosses = [...this.ownerLosses.filter((t) => now - t < this.backoff.windowMs), now];
    this.log(`${reason}: reconnecting, or taking the store over`);
    this.rejectInFlight(
      new EngineError(
        'engine_crashed',
        `The process serving the memory store went away (${reason}) while this change was in progress, so it may or may not have been saved: check and try again.`,
      ),
      MAX_RESENDS,
    );
    const extra = handover.owner ? 0 : this.ownerLosses.length - QUICK_RECONNECTS;
    const retryInMs = extra > 0 ? Math.min(this.backoff.maxMs, this.backoff.initialMs * 2 ** (extra - 1)) : 0;
    this.setState('restarting', { reason, retryInMs, handover });
    if (retryInMs > 0) this.respawnIn(retryInMs);
    // At once, without a timer; not when a state listener stopped the client meanwhile.
    else if (gen === this.generation && this._state === 'restarting') this.spawn('restarting', { ownerRestarting: handover.restarting });
  }

  private respawnIn(ms: number): void {
    this.restartTimer = setTimeout(() => this.spawn('restarting'), ms);
  }

  private fail(err: EngineError): void {
    this.failure = err;
    this.rejectQueued(err);
    this.rejectInFlight(err, 0);
    const waiters = this.readyWaiters;
    this.readyWaiters = [];
    for (const w of waiters) w.reject(err);
    this.setState('failed', { reason: err.message, code: err.code });
  }

  /** Settles what is in flight with `err`, except reads and keyed creates sent fewer than `maxResends` times: they are queued again. */
  private rejectInFlight(err: EngineError, maxResends: number): void {
    for (const p of [...this.inFlight.values()]) {
      this.inFlight.delete(p.id);
      if (p.resends < maxResends && (READ_ONLY_METHODS.has(p.method) || isKeyedCreate(p.method, p.params))) {
        p.resends++;
        // It may have been applied: the owner looks its key up first (server/idempotency.ts).
        if (p.method === 'memory.create') p.params = asRetry(p.params as ParamsOf<'memory.create'>);
        this.queue.push(p);
        continue;
      }
      p.cleanup();
      p.reject(err);
    }
    this.queue.sort((a, b) => a.id - b.id); // in the order they were made
  }

  private rejectQueued(err: EngineError): void {
    const queued = this.queue;
    this.queue = [];
    for (const p of queued) {
      p.cleanup();
      p.reject(err);
    }
  }

  private setState(state: EngineState, extra: Partial<EngineStateChange> = {}): void {
    this._state = state;
    const change: EngineStateChange = { state, restarts: this.crashTimes.length, ...extra };
    for (const l of this.stateListeners) {
      try {
        l(change);
      } catch (e) {
        this.log(`engine state listener failed: ${(e as Error).message}`);
      }
    }
  }

  private log(line: string): void {
    this.opts.log?.(line);
  }
}

/**
 * Every memory.create carries an idempotency key in its metadata, written with the memory in
 * the same transaction: a create retried after the engine (or the store's owner) died is
 * recognized by the owner (server/idempotency.ts) instead of applied twice.
 */
function withIdempotencyKey(method: EngineMethod, params: unknown): unknown {
  if (method !== 'memory.create' || !params || typeof params !== 'object') return params;
  const p = params as ParamsOf<'memory.create'>;
  if (typeof p.metadata?.[IDEMPOTENCY_KEY] === 'string') return params;
  return { ...p, metadata: { ...p.metadata, [IDEMPOTENCY_KEY]: randomUUID() } };
}

function isKeyedCreate(method: EngineMethod, params: unknown): boolean {
  return method === 'memory.create' && typeof (params as ParamsOf<'memory.create'>).metadata?.[IDEMPOTENCY_KEY] === 'string';
}

function delay(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms).unref());
}

/** "VS Code window (pid 123) is restarting its engine"; "the store's owner went away" when it said nothing. */
function reasonOf(h: Handover): string {
  if (!h.owner) return "the store's owner went away";
  return `${h.owner} ${h.restarting ? 'is restarting its engine' : 'closed its engine'}`;
}

function firstLine(s: string): string {
  return s.split('\n')[0] ?? s;
}
