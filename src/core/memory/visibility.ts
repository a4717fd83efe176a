/**
 * Which memories a reader may see (docs/lifecycle.md "Visibility"): not tombstoned and not past
 * `expires_at`. Expired rows stay in the table until the cleanup sweep tombstones them, so
 * every read (search, list) must apply this clause itself; it is the one definition.
 * Timestamps are ISO-8601 UTC strings from `Date.toISOString()`, which compare as text.
 */

/** SQL over alias `m` of `memories`; bind {@link liveParam} once for its `?`. */
export const LIVE_MEMORY_SQL = '(m.deleted_at IS NULL AND (m.expires_at IS NULL OR m.expires_at > ?))';

export function liveParam(now: Date): string {
  return now.toISOString();
}

/** The same rule in JS, for rows already read. */
export function isLive(row: { deletedAt: string | null; expiresAt: string | null }, now: Date): boolean {
  return row.deletedAt === null && (row.expiresAt === null || row.expiresAt > now.toISOString());
}
