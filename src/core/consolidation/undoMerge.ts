/**
 * Undo of an accepted suggestion (docs/consolidation.md "Reviewing suggestions"): the survivor
 * goes back to its text, tags and importance before the merge (a new version, so the undo is
 * itself in history), the absorbed memory is live again, the SUPERSEDES link is removed and the
 * suggestion — with the ones the merge dismissed — is pending again. Refused when either memory
 * changed after the merge, so an undo never discards a later edit.
 */
import type { Store, Tx } from '../store/store';
import type { MemoryService } from '../memory/memoryService';
import type { MemoryRecord } from '../memory/types';
import type { PreparedEmbedding } from '../vectorstore/types';
import { writeHistory } from '../memory/history';
import { UserFacingError } from '../util/errors';
import { getSuggestion } from './records';

export interface UndoMergeResult {
  /** The survivor as it was before the merge (a new version). */
  memory: MemoryRecord;
  /** The absorbed memory, live again. */
  restored: MemoryRecord;
}

/** What the undo will write, read before embedding the survivor's old text outside any transaction. */
export interface UndoMergePlan {
  suggestionId: string;
  survivor: MemoryRecord;
  absorbed: MemoryRecord;
  /** The survivor's record before the merge. */
  before: MemoryRecord;
  /** When the merge resolved the suggestion (the other suggestions it dismissed share it). */
  resolvedAt: string | null;
}

function refuse(reason: string): never {
  throw new UserFacingError(reason, 'undo_refused');
}

export function planUndoMerge(store: Store, memory: MemoryService, suggestionId: string): UndoMergePlan {
  const s = getSuggestion(store, suggestionId);
  if (!s) throw new UserFacingError(`No consolidation suggestion with id ${suggestionId}.`, 'not_found');
  if (s.status !== 'accepted') refuse('This suggestion was not merged, so there is nothing to undo.');
  const survivor = memory.get(s.memoryAId);
  const absorbed = memory.get(s.memoryBId, { includeDeleted: true });
  if (!survivor || !absorbed) refuse('One of the merged memories was deleted since; the merge cannot be undone.');
  if (absorbed.replacedBy !== survivor.id || absorbed.retentionStatus !== 'merged' || !absorbed.deletedAt)
    refuse('The absorbed memory changed after the merge; the merge cannot be undone.');
  const row = store.get<{ old_json: string | null; new_json: string | null }>(
    `SELECT old_json, new_json FROM memory_history WHERE memory_id = ? AND event = 'merged' AND reason LIKE ?
      ORDER BY created_at DESC, rowid DESC LIMIT 1`,
    [survivor.id, `accepted suggestion ${suggestionId} %`],
  );
  if (!row?.old_json || !row.new_json) refuse('The history of this merge is missing; the merge cannot be undone.');
  const before = JSON.parse(String(row.old_json)) as MemoryRecord;
  const after = JSON.parse(String(row.new_json)) as MemoryRecord;
  if (after.version !== survivor.version) refuse('The merged memory was edited after the merge; undo that edit first.');
  return { suggestionId, survivor, absorbed, before, resolvedAt: s.resolvedAt };
}

/** Applies a plan in the caller's transaction; `embedding` is the vector of the survivor's old text, when there is one. */
export function undoMergeInTx(
  tx: Tx,
  memory: MemoryService,
  plan: UndoMergePlan,
  opts: { who?: string; embedding?: PreparedEmbedding; now?: Date } = {},
): UndoMergeResult {
  const { survivor, absorbed, before } = plan;
  const who = opts.who ?? 'user';
  const why = `undo of merge (suggestion ${plan.suggestionId})`;
  const iso = (opts.now ?? new Date()).toISOString();
  memory.updateInTx(
    tx,
    survivor.id,
    {
      title: before.title,
      content: before.content,
      tags: before.tags,
      importance: before.importance,
      expectedVersion: survivor.version,
      who,
      why,
    },
    opts.embedding ? { embedding: opts.embedding } : {},
  );
  tx.run('UPDATE memories SET merged_from = ? WHERE id = ?', [JSON.stringify(before.mergedFrom), survivor.id]);
  restoreAbsorbedInTx(tx, absorbed, { who, why, iso });
  tx.run(`DELETE FROM memory_relationships WHERE relationship = 'SUPERSEDES' AND from_memory_id = ? AND to_memory_id = ?`, [
    survivor.id,
    absorbed.id,
  ]);
  tx.run(`UPDATE consolidation_suggestions SET status = 'pending', resolved_at = NULL, resolved_by = NULL WHERE id = ?`, [
    plan.suggestionId,
  ]);
  if (plan.resolvedAt)
    tx.run(
      `UPDATE consolidation_suggestions SET status = 'pending', resolved_at = NULL, resolved_by = NULL
        WHERE status = 'rejected' AND resolved_by = 'system: memory was merged' AND resolved_at = ? AND (memory_a_id = ? OR memory_b_id = ?)`,
      [plan.resolvedAt, absorbed.id, absorbed.id],
    );
  return { memory: memory.get(survivor.id)!, restored: memory.get(absorbed.id)! };
}

/** The absorbed tombstone live again: no longer deleted, replaced or 'merged' (a new version, a 'restored' history row). */
function restoreAbsorbedInTx(tx: Tx, absorbed: MemoryRecord, h: { who: string; why: string; iso: string }): void {
  const clash = tx.get<{ id: string }>(
    'SELECT id FROM memories WHERE project_id = ? AND content_hash = ? AND deleted_at IS NULL AND id <> ?',
    [absorbed.projectId, absorbed.contentHash, absorbed.id],
  );
  if (clash) refuse('Another memory now has the same text as the absorbed one; the merge cannot be undone.');
  const next: MemoryRecord = {
    ...absorbed,
    deletedAt: null,
    deletedBy: null,
    deleteReason: null,
    retentionStatus: 'active',
    replacedBy: null,
    version: absorbed.version + 1,
    updatedAt: h.iso,
  };
  tx.run(
    `UPDATE memories SET deleted_at = NULL, deleted_by = NULL, delete_reason = NULL, retention_status = 'active', replaced_by = NULL,
       version = ?, updated_at = ? WHERE rid = ?`,
    [next.version, h.iso, absorbed.rid],
  );
  writeHistory(tx, {
    memoryId: absorbed.id,
    event: 'restored',
    newContent: absorbed.content,
    oldJson: absorbed,
    newJson: next,
    changedBy: h.who,
    reason: h.why,
    createdAt: h.iso,
  });
}
