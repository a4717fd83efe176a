/** The LLM abstraction (docs/pipeline.md "Providers"): one call, one answer, no streaming. */

export interface GenerateOptions {
  /** Structured output: a JSON schema (or `'json'`) the answer must follow. */
  format?: Record<string, unknown> | 'json';
  /** Per-call limit (ms); overrides the provider default. */
  timeoutMs?: number;
  /** Cancels the call (worker shutdown). */
  signal?: AbortSignal;
  /** Sampling temperature. Default 0 (extraction wants determinism). */
  temperature?: number;
}

export interface LlmProvider {
  /** `provider:model`, recorded as the extraction model. */
  readonly id: string;
  /** The model name, e.g. `qwen3:4b`. */
  readonly model: string;
  generate(prompt: string, opts?: GenerateOptions): Promise<string>;
  /** Whether `generate` can be expected to work now (never throws). */
  available(): Promise<boolean>;
}

export type LlmErrorCode =
  /** Nothing answers at the URL (Ollama absent or stopped). */
  | 'unreachable'
  /** The connection broke mid-request. */
  | 'connection'
  | 'timeout'
  | 'http'
  | 'bad-response'
  /** The model is not installed. */
  | 'model-missing'
  /** Cancelled by the caller. */
  | 'aborted';

export class LlmError extends Error {
  constructor(
    message: string,
    readonly code: LlmErrorCode,
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'LlmError';
  }
}

/**
 * Failures that say nothing about the input (no server, no model, cancelled): a job that met
 * one is put back without spending an attempt, so nothing is lost while Ollama is away.
 */
export function isTransientLlmError(e: unknown): boolean {
  return e instanceof LlmError && (e.code === 'unreachable' || e.code === 'model-missing' || e.code === 'aborted');
}
