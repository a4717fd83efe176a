/**
 * The built-in model (USE-lite, useLiteModel.ts) run on the calling thread, for a process that
 * serves one agent: the CLI's engine (`agent-memory mcp`, `search`, `add`; EngineInit.modelThread).
 * A thread of its own (useLite.ts) keeps a long document batch off the engine's thread in the
 * editor, but in a short-lived agent server it costs more than it gives: a second V8 isolate and
 * Node start before the first answer, and two message hops per call (bench/RESULTS-recall.md,
 * stop 37). Same model, same inputs, so the same vectors bit for bit.
 *
 * Loads on the first embedding asked of it (or `load()`), released after `idleDisposeMs` without
 * work and loaded again when needed. A failed load is final (`load-failed`). Queries asked in one
 * turn of the event loop go to the model in one call; a document batch is embedded one text per
 * turn, so a query asked meanwhile waits for one text at most.
 */
import { IdleRelease } from './idleRelease';
import { TurnBatch } from './turnBatch';
import type { UseLiteEmbedderOptions, UseLiteLoadInfo } from './useLite';
import { prepareUseLiteText, useLiteWeightsMissing } from './useLite';
import { UseLiteModel, useLiteInput, useLiteWeightsDir } from './useLiteModel';
import { USE_LITE_DIMENSION } from './useLiteProtocol';
import { EmbedderError, spaceName, type EmbedKind, type Embedder } from './types';
import { l2normalize } from './vector';

export type UseLiteInThreadOptions = Pick<UseLiteEmbedderOptions, 'queryStopwords' | 'maxChars' | 'idleDisposeMs' | 'log'> & {
  /** The weights' folder (tests: a folder without them). Default: the installed package's. */
  weightsDir?: string;
};

/** What the in-thread model has done (diagnostics, tests). */
export interface UseLiteInThreadStats {
  loads: number;
  modelCalls: number;
  textsEmbedded: number;
  embedMs: number;
}

export class UseLiteInThreadEmbedder implements Embedder {
  readonly id = 'builtin:use-lite';
  readonly dimension = USE_LITE_DIMENSION;
  readonly space = spaceName('builtin', 'use-lite', USE_LITE_DIMENSION);

  private readonly opts: Required<Omit<UseLiteInThreadOptions, 'log' | 'weightsDir'>> & { weightsDir: string | undefined };
  private readonly log: (line: string) => void;
  private model: UseLiteModel | undefined;
  private info: UseLiteLoadInfo | undefined;
  private fatal: EmbedderError | undefined;
  private disposed = false;
  private readonly idle: IdleRelease;
  private readonly queries = new TurnBatch(async (texts) => this.embedNow(texts));
  private readonly figures: UseLiteInThreadStats = { loads: 0, modelCalls: 0, textsEmbedded: 0, embedMs: 0 };

  constructor(options: UseLiteInThreadOptions = {}) {
    this.opts = {
      queryStopwords: options.queryStopwords ?? false,
      maxChars: options.maxChars ?? 10_000,
      idleDisposeMs: options.idleDisposeMs ?? 0,
      weightsDir: options.weightsDir,
    };
    this.log = options.log ?? (() => undefined);
    this.idle = new IdleRelease(this.opts.idleDisposeMs, () => this.releaseIdle(), this.log);
  }

  /** Why the model cannot load here, without loading it (its weights are not installed). */
  missing(): string | undefined {
    return this.opts.weightsDir === undefined ? useLiteWeightsMissing() : undefined;
  }

  /** Load figures once loaded, else undefined. */
  get loadInfo(): UseLiteLoadInfo | undefined {
    return this.info;
  }

  /** Whether the model is loaded right now. */
  get running(): boolean {
    return this.model !== undefined;
  }

  /** Why the model cannot be used, once that is known for good. */
  get loadError(): EmbedderError | undefined {
    return this.fatal;
  }

  /** What it has done so far. */
  stats(): UseLiteInThreadStats {
    return { ...this.figures };
  }

  /** Loads the model (once; again after an idle release). */
  async load(): Promise<UseLiteLoadInfo> {
    return this.loaded().info;
  }

  async available(): Promise<boolean> {
    try {
      this.loaded();
      return true;
    } catch {
      return false;
    }
  }

  async embed(texts: string[], kind: EmbedKind): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    const prepared = texts.map((t) => prepareUseLiteText(t, kind, this.opts.queryStopwords));
    if (kind === 'query') return this.queries.add(prepared);
    const out: Float32Array[] = [];
    for (let i = 0; i < prepared.length; i++) {
      if (i > 0) await new Promise<void>((resolve) => setImmediate(resolve)); // a query asked meanwhile goes first
      out.push(...this.embedNow([prepared[i]!]));
    }
    return out;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.idle.clear();
    this.model = undefined;
  }

  private embedNow(prepared: string[]): Float32Array[] {
    const { model } = this.loaded();
    this.idle.clear();
    try {
      const t0 = performance.now();
      const vecs = model.embedMany(prepared.map((t) => useLiteInput(t, this.opts.maxChars)));
      this.figures.embedMs += performance.now() - t0;
      this.figures.modelCalls++;
      this.figures.textsEmbedded += prepared.length;
      for (const v of vecs) {
        if (v.length !== USE_LITE_DIMENSION) throw new Error(`USE-lite returned ${v.length} dimensions, expected ${USE_LITE_DIMENSION}`);
      }
      return vecs.map((v) => l2normalize(v));
    } catch (err) {
      throw new EmbedderError(`USE-lite failed to embed: ${(err as Error).message}`, 'internal', this.id, undefined, { cause: err });
    } finally {
      this.idle.arm();
    }
  }

  /** The model, loaded now if it is not (throws the load's EmbedderError, or disposed). */
  private loaded(): { model: UseLiteModel; info: UseLiteLoadInfo } {
    if (this.disposed) throw new EmbedderError('The built-in embedder was disposed.', 'disposed', this.id);
    if (this.fatal) throw this.fatal;
    if (this.model && this.info) return { model: this.model, info: this.info };
    const started = performance.now();
    let model: UseLiteModel;
    try {
      model = UseLiteModel.load(this.opts.weightsDir ?? useLiteWeightsDir());
      const warm = model.embed('warm up the model');
      if (warm.length !== USE_LITE_DIMENSION)
        throw new Error(`USE-lite returned ${warm.length} dimensions, expected ${USE_LITE_DIMENSION}`);
    } catch (err) {
      this.fatal = new EmbedderError(
        `The built-in embedding model (USE-lite) could not be loaded: ${(err as Error).message}`,
        'load-failed',
        this.id,
        undefined,
        { cause: err },
      );
      throw this.fatal;
    }
    const ms = performance.now() - started;
    this.model = model;
    this.info = { loadMs: ms, wallMs: ms, backend: model.info.backend, rss: process.memoryUsage.rss() };
    this.figures.loads++;
    this.log(`built-in embedding model loaded in ${Math.round(ms)} ms on the engine's thread`);
    this.idle.arm();
    return { model, info: this.info };
  }

  /** The idle release: the model is dropped (its memory goes with it). */
  private releaseIdle(): boolean {
    if (!this.model) return false;
    this.model = undefined;
    return true;
  }
}
