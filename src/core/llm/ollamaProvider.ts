/**
 * OllamaProvider: `POST /api/generate` with `stream: false` through the `ollama` client.
 * Every call has a real time limit (a custom fetch with AbortSignal.timeout — the client's
 * non-streaming calls ignore abort()), JSON-schema structured output via `format`, errors
 * naming the HTTP status and the first 200 characters of the body, a 3 s `available()`
 * probe on `/api/tags`, and the model check + pull on request (docs/pipeline.md "Providers").
 */
import { Ollama } from 'ollama';
import { createOllamaFetch, normalizeOllamaHost, refusedConnection, toOllamaError } from '../embed/ollamaHttp';
import { canonicalModelName } from '../embed/ollama';
import { LlmError, type GenerateOptions, type LlmProvider } from './types';

export const DEFAULT_LLM_MODEL = 'qwen3:4b';
export const DEFAULT_LLM_TIMEOUT_MS = 45_000;

export interface OllamaProviderOptions {
  /** Default `http://127.0.0.1:11434` (the port is always made explicit). */
  host?: string;
  /** Default `qwen3:4b`. */
  model?: string;
  /** Per-generate limit (ms). Default 45 000. */
  timeoutMs?: number;
  /** Limit of `available()` (ms). Default 3 000. */
  probeTimeoutMs?: number;
  /** Limit of a model pull (ms). Default 30 minutes. */
  pullTimeoutMs?: number;
  /** Underlying fetch (the host may restrict it); default the global one. */
  fetch?: typeof fetch;
}

export class OllamaProvider implements LlmProvider {
  readonly host: string;
  readonly model: string;
  readonly id: string;
  private readonly timeoutMs: number;
  private readonly probeTimeoutMs: number;
  private readonly pullTimeoutMs: number;
  private readonly fetchImpl: typeof fetch | undefined;

  constructor(options: OllamaProviderOptions = {}) {
    this.host = normalizeOllamaHost(options.host);
    this.model = (options.model ?? DEFAULT_LLM_MODEL).trim() || DEFAULT_LLM_MODEL;
    this.id = `ollama:${this.model}`;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_LLM_TIMEOUT_MS;
    this.probeTimeoutMs = options.probeTimeoutMs ?? 3_000;
    this.pullTimeoutMs = options.pullTimeoutMs ?? 30 * 60_000;
    this.fetchImpl = options.fetch;
  }

  private client(timeoutMs: number, signal?: AbortSignal): Ollama {
    const base = this.fetchImpl ?? globalThis.fetch;
    const withSignal: typeof fetch = signal
      ? (input, init) => base(input, { ...init, signal: init?.signal ? AbortSignal.any([init.signal, signal]) : signal })
      : base;
    return new Ollama({ host: this.host, fetch: createOllamaFetch({ host: this.host, timeoutMs, fetchImpl: withSignal }) });
  }

  private fail(err: unknown, path: string, timeoutMs: number, signal?: AbortSignal): LlmError {
    if (err instanceof LlmError) return err;
    if (signal?.aborted)
      return new LlmError(`The call to Ollama at ${this.host}${path} was cancelled.`, 'aborted', undefined, { cause: err });
    const e = toOllamaError(err, { host: this.host, path, timeoutMs });
    if (e.code === 'http' && e.status === 404 && /not found/i.test(e.bodyPrefix ?? '')) {
      return new LlmError(`${e.message} (install it with \`ollama pull ${this.model}\`)`, 'model-missing', 404, { cause: e });
    }
    if (e.code === 'unreachable') {
      return new LlmError(
        `${e.message} The memory pipeline needs a local Ollama with the model ${this.model}; until it is reachable, extraction jobs wait in the queue.`,
        'unreachable',
        undefined,
        { cause: e },
      );
    }
    return new LlmError(e.message, e.code, e.status, { cause: e });
  }

  async generate(prompt: string, opts: GenerateOptions = {}): Promise<string> {
    const timeoutMs = opts.timeoutMs ?? this.timeoutMs;
    if (opts.signal?.aborted) throw this.fail(new Error('aborted'), '/api/generate', timeoutMs, opts.signal);
    let res: { response?: unknown };
    try {
      res = await this.client(timeoutMs, opts.signal).generate({
        model: this.model,
        prompt,
        stream: false,
        format: opts.format,
        options: { temperature: opts.temperature ?? 0 },
      });
    } catch (err) {
      throw this.fail(err, '/api/generate', timeoutMs, opts.signal);
    }
    if (typeof res?.response !== 'string') {
      throw new LlmError(`Ollama at ${this.host} sent a /api/generate answer without a "response" text.`, 'bad-response');
    }
    return res.response;
  }

  /** Installed models, or why they could not be listed. Never throws. */
  async probe(): Promise<{ reachable: boolean; hasModel: boolean; models: string[]; error?: string }> {
    try {
      const refused = this.fetchImpl ? undefined : await refusedConnection(this.host, this.probeTimeoutMs);
      if (refused) throw refused;
      const list = await this.client(this.probeTimeoutMs).list();
      const models = (Array.isArray(list?.models) ? list.models : []).map((m) => String(m.name ?? m.model));
      const want = canonicalModelName(this.model);
      return { reachable: true, hasModel: models.some((m) => canonicalModelName(m) === want), models };
    } catch (err) {
      // What went wrong, as the HTTP layer says it: callers put it in their own sentence (the pipeline's is not added here).
      const error = toOllamaError(err, { host: this.host, path: '/api/tags', timeoutMs: this.probeTimeoutMs }).message;
      return { reachable: false, hasModel: false, models: [], error };
    }
  }

  /** Ollama answers `/api/tags` within 3 s and lists the model. */
  async available(): Promise<boolean> {
    const p = await this.probe();
    return p.reachable && p.hasModel;
  }

  /**
   * Make sure the model is installed: `present`, `pulled` (only when `pull` is true), or
   * `missing`. Throws an {@link LlmError} when Ollama cannot be reached or the pull fails.
   */
  async ensureModel(opts: {
    pull: boolean;
    onProgress?: (status: string, completed?: number, total?: number) => void;
  }): Promise<'present' | 'pulled' | 'missing'> {
    const p = await this.probe();
    if (!p.reachable) throw new LlmError(p.error ?? `Ollama is not reachable at ${this.host}.`, 'unreachable');
    if (p.hasModel) return 'present';
    if (!opts.pull) return 'missing';
    try {
      const stream = await this.client(this.pullTimeoutMs).pull({ model: this.model, stream: true });
      for await (const part of stream) opts.onProgress?.(part.status, part.completed, part.total);
    } catch (err) {
      const e = this.fail(err, '/api/pull', this.pullTimeoutMs);
      throw new LlmError(
        `Could not pull ${this.model} from Ollama at ${this.host}: ${e.message}`,
        e.code === 'bad-response' ? 'model-missing' : e.code,
        e.status,
        { cause: err },
      );
    }
    if (!(await this.probe()).hasModel)
      throw new LlmError(`Ollama at ${this.host} reported ${this.model} pulled, but does not list it.`, 'model-missing');
    return 'pulled';
  }
}

/** The pipeline's provider from `memory.pipelineV2` (ollamaUrl, extractionModel, extractionTimeout). */
export function ollamaProviderFromConfig(
  p: { ollamaUrl: string; extractionModel: string; extractionTimeout: number },
  opts: { fetch?: typeof fetch } = {},
): OllamaProvider {
  return new OllamaProvider({ host: p.ollamaUrl, model: p.extractionModel, timeoutMs: p.extractionTimeout, fetch: opts.fetch });
}
