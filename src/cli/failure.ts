import type { ErrorCode } from '../core/util/errorCatalogue';

/** A failure whose message is the whole sentence the CLI prints (exit 1), with its catalogue code for scripts. */
export class CliFailure extends Error {
  constructor(
    message: string,
    readonly code: ErrorCode,
  ) {
    super(message);
  }
}
