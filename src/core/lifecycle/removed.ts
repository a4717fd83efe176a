/**
 * Recently deleted and expired memories (docs/lifecycle.md "Expired and deleted"): the
 * tombstones a person can still restore, newest first, each with when and why it went and when
 * the retention sweep will purge it. Merged-away memories are not listed: their text lives on in
 * the memory they were merged into (undo a merge from its history instead).
 */
import type { Store } from '../store/store';
import { rowToSummary } from '../memory/rows';
import type { RemovedMemory, RemovedReason } from './removedTypes';

export type { RemovedMemory, RemovedReason } from './removedTypes';

export interface ListRemovedOptions {
  reason?: RemovedReason;
  offset: number;
  limit: number;
  /** Only this project's memories (a store holds one project, the global store many). */
  projectId?: string;
  /** memory.pipelineV2.tombstoneRetentionMs: how long a tombstone is kept. */
  tombstoneRetentionMs: number;
}

const REASON_SQL: Record<RemovedReason, string> = {
  expired: `retention_status = 'expired'`,
  deleted: `retention_status = 'deleted'`,
};

function whereOf(opts: ListRemovedOptions): { clause: string; params: (string | number)[] } {
  const parts = ['deleted_at IS NOT NULL', opts.reason ? REASON_SQL[opts.reason] : `retention_status IN ('expired', 'deleted')`];
  const params: (string | number)[] = [];
  if (opts.projectId !== undefined) {
    parts.push('project_id = ?');
    params.push(opts.projectId);
  }
  return { clause: parts.join(' AND '), params };
}

/** How many removed memories match (for paging). */
export function countRemoved(store: Store, opts: ListRemovedOptions): number {
  const { clause, params } = whereOf(opts);
  return Number(store.get<{ n: number }>(`SELECT count(*) AS n FROM memories WHERE ${clause}`, params)!.n);
}

/** One page of removed memories, most recently removed first. */
export function listRemoved(store: Store, opts: ListRemovedOptions): RemovedMemory[] {
  const { clause, params } = whereOf(opts);
  const rows = store.all(`SELECT * FROM memories WHERE ${clause} ORDER BY deleted_at DESC, rid DESC LIMIT ? OFFSET ?`, [
    ...params,
    opts.limit,
    opts.offset,
  ]);
  return rows.map((r) => {
    const removedAt = String(r.deleted_at);
    return {
      memory: rowToSummary(r),
      reason: r.retention_status === 'expired' ? 'expired' : 'deleted',
      removedAt,
      removedBy: r.deleted_by === null ? null : String(r.deleted_by),
      detail: r.delete_reason === null ? null : String(r.delete_reason),
      purgeAt: new Date(Date.parse(removedAt) + opts.tombstoneRetentionMs).toISOString(),
    };
  });
}
