import { UserFacingError } from '../util/errors';
import { formatErrorMessage } from '../util/errorCatalogue';

/** Bad input to the memory API: names the field and what is allowed. */
export class ValidationError extends UserFacingError {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(formatErrorMessage('invalid_input', { field, reason: message }), 'invalid_input');
  }
}

export class NotFoundError extends UserFacingError {
  constructor(readonly id: string) {
    super(formatErrorMessage('not_found', { what: 'memory', id }), 'not_found');
  }
}

export class VersionConflictError extends UserFacingError {
  constructor(
    readonly id: string,
    readonly expected: number,
    readonly actual: number,
  ) {
    super(formatErrorMessage('version_conflict', { id, expected, actual }), 'version_conflict');
  }
}

export class DuplicateContentError extends UserFacingError {
  constructor(readonly existingId: string) {
    super(formatErrorMessage('duplicate_content', { existingId }), 'duplicate_content');
  }
}
