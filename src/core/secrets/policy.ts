/**
 * What a store does with a write that holds a credential (docs/secrets.md), the configuration
 * key `memory.secret_policy`: `redact` (the default) replaces each with `[redacted: <kind>]`
 * and says which kinds; `refuse` skips the write with the reason `secret_detected`; `allow`
 * stores the text as written.
 */
export const SECRET_POLICIES = ['redact', 'refuse', 'allow'] as const;
export type SecretPolicy = (typeof SECRET_POLICIES)[number];
export const DEFAULT_SECRET_POLICY: SecretPolicy = 'redact';
