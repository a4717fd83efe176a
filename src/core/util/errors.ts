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

/** A failure the caller can show to a person as it is: bad input, bad config, refused state. */
export class UserFacingError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
    this.name = 'UserFacingError';
  }
}
