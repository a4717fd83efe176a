/**
 * The one embedding abstraction. Every provider (Ollama, the built-in USE-lite model, the
 * deterministic hash embedder) implements it; callers never care which one they hold.
 */

/** `document` = text being stored; `query` = text being searched for. Providers may treat them differently. */
export type EmbedKind = 'document' | 'query';

export interface Embedder {
  /** `provider:model`, e.g. `ollama:nomic-embed-text`, `builtin:use-lite`, `hash:fh1`. */
  readonly id: string;
  /**
   * Stable, file-name-safe name of the embedding space (provider + model + dimension), e.g.
   * `ollama-nomic-embed-text-768`. Vectors from different spaces are not comparable; the
   * vector index is named by it. Changes whenever the vectors would change.
   */
  readonly space: string;
  /** Length of every vector `embed` returns. */
  readonly dimension: number;
  /**
   * Embeds `texts` (order preserved; one vector per text). Vectors are L2-normalized, so a dot
   * product is the cosine similarity. Rejects with an {@link EmbedderError} on failure.
   */
  embed(texts: string[], kind: EmbedKind): Promise<Float32Array[]>;
  /** Whether `embed` can be expected to work right now (never throws). */
  available(): Promise<boolean>;
  /** Releases threads, sockets and memory. Pending calls reject; later calls reject. */
  dispose(): void;
}

export type EmbedderErrorCode =
  /** Provider not reachable (connection refused, unknown host). */
  | 'unreachable'
  /** The connection broke mid-request (reset, socket destroyed). */
  | 'connection'
  /** No answer within the time limit. */
  | 'timeout'
  /** HTTP error status. */
  | 'http'
  /** An answer that is not what the API promises (bad JSON, wrong count or dimension). */
  | 'bad-response'
  /** The model is not installed on the provider. */
  | 'model-missing'
  /** The model could not be loaded (built-in model). */
  | 'load-failed'
  /** The embedder was disposed. */
  | 'disposed'
  /** Anything else (a failure inside the model). */
  | 'internal';

/** Every failure an embedder reports. `message` is fit to show to a person. */
export class EmbedderError extends Error {
  constructor(
    message: string,
    readonly code: EmbedderErrorCode,
    readonly provider: string,
    /** HTTP status when `code === 'http'`. */
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'EmbedderError';
  }
}

/** Lower-case, `[a-z0-9._-]` only, so a space name can be part of a file name. */
export function spaceName(...parts: Array<string | number>): string {
  return parts
    .map((p) =>
      String(p)
        .toLowerCase()
        .replace(/[^a-z0-9._-]+/g, '_')
        .replace(/^_+|_+$/g, ''),
    )
    .filter((p) => p.length > 0)
    .join('-');
}
