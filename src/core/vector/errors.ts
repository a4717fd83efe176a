/** Errors of the vector layer. All are real `Error`s (hnswlib-wasm itself throws `WebAssembly.Exception`). */

/** A failure inside hnswlib-wasm (a C++ exception, an embind type error, a wasm trap), with context. */
export class HnswlibError extends Error {
  constructor(
    message: string,
    /** C++ exception type when the failure came from C++ (`std::runtime_error`, …). */
    readonly nativeType?: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'HnswlibError';
  }
}

export type CorruptIndexReason =
  'truncated' | 'bad-magic' | 'unsupported-version' | 'header-checksum' | 'payload-checksum' | 'bad-payload' | 'mismatch';

/**
 * A persisted index that cannot be used: truncated, checksum mismatch, unknown format, or not
 * the index the caller expected. The caller's answer is always the same: rebuild it.
 */
export class CorruptIndexError extends Error {
  constructor(
    readonly reason: CorruptIndexReason,
    message: string,
    readonly file?: string,
    options?: { cause?: unknown },
  ) {
    super(file ? `${file}: ${message}` : message, options);
    this.name = 'CorruptIndexError';
  }
}
