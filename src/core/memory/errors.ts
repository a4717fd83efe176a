import { UserFacingError } from '../util/errors';

/** Bad input to the memory API: names the field and what is allowed. */
export class ValidationError extends UserFacingError {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(`${field}: ${message}`, 'invalid_input');
  }
}

export class NotFoundError extends UserFacingError {
  constructor(readonly id: string) {
    super(`No memory with id ${id}.`, 'not_found');
  }
}

export class VersionConflictError extends UserFacingError {
  constructor(
    readonly id: string,
    readonly expected: number,
    readonly actual: number,
  ) {
    super(`Memory ${id} changed meanwhile (expected version ${expected}, found ${actual}). Reload and try again.`, 'version_conflict');
  }
}

export class DuplicateContentError extends UserFacingError {
  constructor(readonly existingId: string) {
    super(`Another memory (${existingId}) already has exactly this content.`, 'duplicate_content');
  }
}
