/** Errors that cross the engine's MessagePort: a code and a sentence a person can read. */
import { UserFacingError, errorMessage } from '../core/util/errors';
import { formatErrorMessage, isErrorCode } from '../core/util/errorCatalogue';
import type { EngineErrorCode, EngineErrorPayload } from './protocol';

/** An error with a protocol code; thrown on both sides of the port. */
export class EngineError extends Error {
  constructor(
    readonly code: EngineErrorCode,
    message: string,
    readonly detail?: string,
  ) {
    super(message);
    this.name = 'EngineError';
  }

  toPayload(): EngineErrorPayload {
    return { code: this.code, message: this.message, ...(this.detail ? { detail: this.detail } : {}) };
  }

  /** A payload off the wire; a code outside the catalogue (another version's engine) becomes `internal`, its text kept. */
  static fromPayload(p: EngineErrorPayload): EngineError {
    if (isErrorCode(p.code)) return new EngineError(p.code, p.message, p.detail);
    return new EngineError('internal', p.message, [`code ${JSON.stringify(p.code)}`, p.detail].filter(Boolean).join('\n'));
  }
}

/**
 * Any thrown value → payload. User-facing errors of the core keep their code and message;
 * anything else is an internal error whose message says so (the stack goes to `detail`).
 */
export function toErrorPayload(err: unknown): EngineErrorPayload {
  if (err instanceof EngineError) return err.toPayload();
  if (err instanceof UserFacingError) return { code: err.code, message: err.message };
  const msg = errorMessage(err);
  return {
    code: 'internal',
    message: formatErrorMessage('internal', { reason: msg }),
    ...(err instanceof Error && err.stack ? { detail: err.stack } : {}),
  };
}

export function cancelledError(): EngineError {
  return new EngineError('cancelled', formatErrorMessage('cancelled'));
}
