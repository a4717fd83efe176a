import { formatErrorMessage, type ErrorCode } from './errorCatalogue';

/** Turns anything thrown (including WebAssembly.Exception from hnswlib-wasm) into a message. */
export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  if (typeof err === 'string') return err;
  try {
    return JSON.stringify(err) ?? String(err);
  } catch {
    return String(err);
  }
}

/**
 * A failure the caller can show to a person as it is: bad input, bad config, refused state.
 * `code` is one of the catalogue's (errorCatalogue.ts); the message says what happened here.
 */
export class UserFacingError extends Error {
  constructor(
    message: string,
    readonly code: ErrorCode,
  ) {
    super(message);
    this.name = 'UserFacingError';
  }

  /** The error with the catalogue's message template for `code`, filled from `values`. */
  static of(code: ErrorCode, values: Record<string, string | number> = {}): UserFacingError {
    return new UserFacingError(formatErrorMessage(code, values), code);
  }
}
