/**
 * The secret guard of the write path (docs/secrets.md, docs/write-path.md "Secrets"): before a
 * write is validated, every string it carries — text, title, summary, tags, decisions,
 * rationale, metadata, who and why — is scanned, and the store's policy applies: `redact`
 * replaces each credential with `[redacted: <kind>]` and reports the kinds, `refuse` turns the
 * write away (a create is skipped with `secret_detected`, an edit fails with that code),
 * `allow` lets it through. Nothing of a refused or redacted secret reaches the transaction, so
 * it is never in the op log, a snapshot, the history or an export.
 */
import { describeKinds, redactDeep } from '../secrets/detect';
import { DEFAULT_SECRET_POLICY, type SecretPolicy } from '../secrets/policy';
import type { SecretKind } from '../secrets/rules';
import { UserFacingError } from '../util/errors';

export interface Guarded<T> {
  /** The value to write: redacted under `redact`, as given otherwise. */
  value: T;
  /** The kinds of credential found (empty under `allow`). */
  kinds: SecretKind[];
  /** `refuse` found a credential: the write must not happen. */
  refused: boolean;
}

export function guardSecrets<T>(value: T, policy: SecretPolicy = DEFAULT_SECRET_POLICY): Guarded<T> {
  if (policy === 'allow') return { value, kinds: [], refused: false };
  const r = redactDeep(value);
  if (!r.kinds.length) return { value, kinds: [], refused: false };
  return policy === 'refuse' ? { value, kinds: r.kinds, refused: true } : { value: r.value, kinds: r.kinds, refused: false };
}

/** The skip a refused create answers (like the other skip reasons: an answer, not an error). */
export function secretSkip(kinds: SecretKind[], warnings: string[] = []) {
  return {
    status: 'skipped' as const,
    reason: 'secret_detected' as const,
    detail: `It holds ${describeKinds(kinds)}, and this store refuses memories with secrets. Remove the secret and save again.`,
    secrets: kinds,
    warnings,
  };
}

/** The error a refused edit throws. */
export function secretRefusal(kinds: SecretKind[]): UserFacingError {
  return UserFacingError.of('secret_detected', { kinds: describeKinds(kinds) });
}

/** `{ redacted: kinds }` when any were redacted, else nothing (spread into results). */
export function redactedField(kinds: SecretKind[] | undefined): { redacted?: SecretKind[] } {
  return kinds?.length ? { redacted: kinds } : {};
}
