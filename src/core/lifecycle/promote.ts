/** Manual promote (docs/lifecycle.md): TTL removed, the memory becomes permanent; a history row says who. */
import type { Store } from '../store/store';
import { writeHistory } from '../memory/history';
import { NotFoundError, ValidationError } from '../memory/errors';
import { isLive } from '../memory/visibility';

export interface PromoteResult {
  id: string;
  /** false when it was already permanent (nothing written). */
  promoted: boolean;
}

export function promoteMemory(store: Store, id: string, opts: { who?: string; reason?: string; now?: Date } = {}): PromoteResult {
  if (typeof id !== 'string' || !id) throw new ValidationError('id', 'must be a non-empty string');
  const now = opts.now ?? new Date();
  return store.transaction((tx) => {
    const row = tx.get<{ rid: number; ttl_seconds: number | null; expires_at: string | null; deleted_at: string | null }>(
      'SELECT rid, ttl_seconds, expires_at, deleted_at FROM memories WHERE id = ?',
      [id],
    );
    // An expired memory is invisible like a deleted one: it cannot be promoted back to life here.
    if (!row || !isLive({ deletedAt: row.deleted_at, expiresAt: row.expires_at }, now)) throw new NotFoundError(id);
    if (row.ttl_seconds === null && row.expires_at === null) return { id, promoted: false };
    const iso = now.toISOString();
    tx.run('UPDATE memories SET ttl_seconds = NULL, expires_at = NULL WHERE rid = ?', [row.rid]);
    writeHistory(tx, {
      memoryId: id,
      event: 'promoted',
      changedBy: opts.who ?? 'user',
      reason: opts.reason ?? 'manual promote',
      metadata: { ttlSeconds: row.ttl_seconds, expiresAt: row.expires_at },
      createdAt: iso,
    });
    return { id, promoted: true };
  });
}
