import { Ollama } from 'ollama';
import { createOllamaFetch, normalizeOllamaHost, OllamaError, refusedConnection, toOllamaError } from './ollamaHttp';
import { EmbedderError, spaceName, type EmbedKind, type Embedder } from './types';
import { l2normalize } from './vector';

export const DEFAULT_OLLAMA_EMBED_MODEL = 'nomic-embed-text';

/** Dimensions and task prefixes of the common Ollama embedding models. */
const KNOWN_MODELS: Record<string, { dimension: number; documentPrefix: string; queryPrefix: string }> = {
  'nomic-embed-text': { dimension: 768, documentPrefix: 'search_document: ', queryPrefix: 'search_query: ' },
  'mxbai-embed-large': {
    dimension: 1024,
    documentPrefix: '',
    queryPrefix: 'Represent this sentence for searching relevant passages: ',
  },
  'all-minilm': { dimension: 384, documentPrefix: '', queryPrefix: '' },
  'snowflake-arctic-embed': { dimension: 1024, documentPrefix: '', queryPrefix: '' },
  'bge-m3': { dimension: 1024, documentPrefix: '', queryPrefix: '' },
};

/** `nomic-embed-text:latest` → `nomic-embed-text`; other tags are kept. */
export function canonicalModelName(model: string): string {
  const m = model.trim();
  return m.endsWith(':latest') ? m.slice(0, -':latest'.length) : m;
}

/** What is known of a model by its family name (dimension 0 and no prefixes for an unlisted one). */
function knownModel(model: string): { dimension: number; documentPrefix: string; queryPrefix: string } {
  return KNOWN_MODELS[model.split(':')[0]!] ?? { dimension: 0, documentPrefix: '', queryPrefix: '' };
}

export interface OllamaEmbedderOptions {
  /** Ollama URL; the port is always made explicit. Default `http://127.0.0.1:11434`. */
  host?: string;
  /** Default `nomic-embed-text`. */
  model?: string;
  /** Limit per HTTP request, body included (ms). Default 30 000. */
  timeoutMs?: number;
  /** Limit for `available()` / `probe()` (ms). Default 3 000. */
  probeTimeoutMs?: number;
  /** Limit for a whole model pull (ms). Default 30 minutes. */
  pullTimeoutMs?: number;
  /** Vector length if the model is not one of the known ones (else learned from `/api/show`). */
  dimension?: number;
  /** Prepended to documents / queries. Defaults per model (`search_document: ` / `search_query: ` for nomic). */
  documentPrefix?: string;
  queryPrefix?: string;
  /** Texts per `/api/embed` request. Default 32. */
  batchSize?: number;
  /** Underlying fetch (tests); default the global one. */
  fetch?: typeof fetch;
}

export interface OllamaProbe {
  /** The host answered `/api/tags`. */
  reachable: boolean;
  /** The model is among the installed ones. */
  hasModel: boolean;
  /** Installed model names, as Ollama lists them. */
  models: string[];
  /** Why not, when not reachable. */
  error?: string;
}

export interface EnsureModelResult {
  /** `present`: was installed; `pulled`: installed now; `missing`: not installed, not pulled. */
  status: 'present' | 'pulled' | 'missing';
  model: string;
  /** Vector length, when known. */
  dimension: number;
}

export interface PullProgress {
  status: string;
  completed?: number;
  total?: number;
}

/**
 * Embeddings from a local Ollama (`/api/embed`), `nomic-embed-text` (768-d) by default, with
 * the model's task prefixes. Every request has a time limit; every failure is an
 * {@link EmbedderError} whose message names the host and what went wrong.
 */
export class OllamaEmbedder implements Embedder {
  readonly host: string;
  readonly model: string;
  readonly id: string;
  private dim: number;
  private readonly documentPrefix: string;
  private readonly queryPrefix: string;
  private readonly timeoutMs: number;
  private readonly probeTimeoutMs: number;
  private readonly pullTimeoutMs: number;
  private readonly batchSize: number;
  private readonly fetchImpl: typeof fetch | undefined;
  private readonly client: Ollama;
  private disposed = false;

  constructor(options: OllamaEmbedderOptions = {}) {
    this.host = normalizeOllamaHost(options.host);
    this.model = canonicalModelName(options.model ?? DEFAULT_OLLAMA_EMBED_MODEL);
    this.id = `ollama:${this.model}`;
    const known = knownModel(this.model);
    this.dim = options.dimension ?? known.dimension;
    this.documentPrefix = options.documentPrefix ?? known.documentPrefix;
    this.queryPrefix = options.queryPrefix ?? known.queryPrefix;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.probeTimeoutMs = options.probeTimeoutMs ?? 3_000;
    this.pullTimeoutMs = options.pullTimeoutMs ?? 30 * 60_000;
    this.batchSize = Math.max(1, options.batchSize ?? 32);
    this.fetchImpl = options.fetch;
    this.client = this.makeClient(this.timeoutMs);
  }

  /** Vector length; 0 while unknown (an unlisted model before `ensureModel` or the first embed). */
  get dimension(): number {
    return this.dim;
  }

  get space(): string {
    return spaceName('ollama', this.model, this.dim || 'unknown');
  }

  private makeClient(timeoutMs: number): Ollama {
    return new Ollama({
      host: this.host,
      fetch: createOllamaFetch({ host: this.host, timeoutMs, fetchImpl: this.fetchImpl }),
    });
  }

  private fail(err: unknown, path: string, timeoutMs = this.timeoutMs): EmbedderError {
    if (err instanceof EmbedderError) return err;
    const e = toOllamaError(err, { host: this.host, path, timeoutMs });
    const code = e.code === 'http' && e.status === 404 ? 'model-missing' : e.code;
    const message = code === 'model-missing' ? `${e.message} (install it with \`ollama pull ${this.model}\`)` : e.message;
    return new EmbedderError(message, code, this.id, e.status, { cause: e });
  }

  private checkDisposed(): void {
    if (this.disposed) throw new EmbedderError('The Ollama embedder was disposed.', 'disposed', this.id);
  }

  async embed(texts: string[], kind: EmbedKind): Promise<Float32Array[]> {
    this.checkDisposed();
    const prefix = kind === 'query' ? this.queryPrefix : this.documentPrefix;
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += this.batchSize) {
      const batch = texts.slice(i, i + this.batchSize).map((t) => prefix + t);
      let res: { embeddings?: unknown };
      try {
        res = await this.client.embed({ model: this.model, input: batch, truncate: true });
      } catch (err) {
        throw this.fail(err, '/api/embed');
      }
      this.checkDisposed();
      out.push(...this.readVectors(res, batch.length));
    }
    return out;
  }

  private readVectors(res: { embeddings?: unknown }, expected: number): Float32Array[] {
    const bad = (why: string): EmbedderError =>
      new EmbedderError(`Ollama at ${this.host} sent an unusable /api/embed answer: ${why}`, 'bad-response', this.id);
    const rows = res?.embeddings;
    if (!Array.isArray(rows)) throw bad('no "embeddings" array');
    if (rows.length !== expected) throw bad(`${rows.length} vectors for ${expected} texts`);
    return rows.map((row: unknown, i) => {
      if (!Array.isArray(row) || row.length === 0) throw bad(`vector ${i} is not a list of numbers`);
      if (this.dim === 0) this.dim = row.length; // first answer of a model we did not know
      if (row.length !== this.dim) throw bad(`vector ${i} has ${row.length} dimensions, expected ${this.dim}`);
      const v = new Float32Array(row.length);
      for (let j = 0; j < row.length; j++) {
        const x: unknown = row[j];
        if (typeof x !== 'number' || !Number.isFinite(x)) throw bad(`vector ${i} holds a non-number`);
        v[j] = x;
      }
      return l2normalize(v);
    });
  }

  /** Asks `/api/tags` (within `probeTimeoutMs`) whether the host answers and has the model. Never throws. */
  async probe(): Promise<OllamaProbe> {
    if (this.disposed) return { reachable: false, hasModel: false, models: [], error: 'disposed' };
    try {
      const refused = this.fetchImpl ? undefined : await refusedConnection(this.host, this.probeTimeoutMs);
      if (refused) throw refused;
      const list = await this.makeClient(this.probeTimeoutMs).list();
      const models = (Array.isArray(list?.models) ? list.models : []).map((m) => String(m.name ?? m.model));
      const hasModel = models.some((name) => canonicalModelName(name) === this.model);
      return { reachable: true, hasModel, models };
    } catch (err) {
      return { reachable: false, hasModel: false, models: [], error: this.fail(err, '/api/tags', this.probeTimeoutMs).message };
    }
  }

  /** The host answers within 3 s and lists the model. */
  async available(): Promise<boolean> {
    const p = await this.probe();
    return p.reachable && p.hasModel;
  }

  /**
   * Model check and pull: `/api/show`; when the model is missing, `/api/pull` it — only if
   * `pull` is true — then check again. Learns the dimension from the model's metadata.
   * Throws an {@link EmbedderError} when Ollama cannot be asked or the pull fails.
   */
  async ensureModel(options: { pull: boolean; onProgress?: (p: PullProgress) => void }): Promise<EnsureModelResult> {
    this.checkDisposed();
    if (await this.show()) return { status: 'present', model: this.model, dimension: this.dim };
    if (!options.pull) return { status: 'missing', model: this.model, dimension: this.dim };
    const puller = this.makeClient(this.pullTimeoutMs);
    try {
      const stream = await puller.pull({ model: this.model, stream: true });
      for await (const p of stream) {
        options.onProgress?.({ status: p.status, completed: p.completed, total: p.total });
      }
    } catch (err) {
      if (err instanceof OllamaError || (err as { name?: string })?.name === 'TimeoutError' || (err as { cause?: unknown })?.cause) {
        throw this.fail(err, '/api/pull', this.pullTimeoutMs);
      }
      // The client throws a plain Error carrying Ollama's `{"error": …}` stream message.
      throw new EmbedderError(
        `Ollama at ${this.host} could not pull ${this.model}: ${(err as Error)?.message ?? String(err)}`,
        'model-missing',
        this.id,
        undefined,
        { cause: err },
      );
    }
    if (!(await this.show())) {
      throw new EmbedderError(`Ollama at ${this.host} reported ${this.model} pulled, but does not show it.`, 'model-missing', this.id);
    }
    return { status: 'pulled', model: this.model, dimension: this.dim };
  }

  /** true = installed (dimension learned if unknown), false = 404. Other failures throw. */
  private async show(): Promise<boolean> {
    try {
      const info = await this.client.show({ model: this.model });
      const meta = (info as unknown as { model_info?: Record<string, unknown> }).model_info;
      if (meta && typeof meta === 'object') {
        for (const [key, value] of Object.entries(meta)) {
          if (key.endsWith('.embedding_length') && typeof value === 'number' && value > 0) {
            this.dim = value;
            break;
          }
        }
      }
      return true;
    } catch (err) {
      const e = this.fail(err, '/api/show');
      if (e.code === 'model-missing') return false;
      throw e;
    }
  }

  dispose(): void {
    this.disposed = true;
  }
}
