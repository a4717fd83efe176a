/**
 * The memory_history table's one writer: every change to a memory (create, update, delete,
 * restore, merge, promote, expiry, access-driven lifetime changes) appends one row here, so
 * undo, the history view and the audit read a single shape (docs/write-path.md). Each one that
 * is a change also writes the change feed's event in the same transaction (docs/changes.md), so
 * nothing can change a memory without an event.
 * Below memoryService.ts so lifecycle/ and pipeline/ can record events without importing the service.
 */
import { randomUUID } from 'node:crypto';
import type { Tx } from '../store/store';
import { changeOfHistory, writeChangeEvent } from '../changes/events';

export interface HistoryInput {
  memoryId: string | null;
  event: string;
  oldContent?: string | null;
  newContent?: string | null;
  oldJson?: unknown;
  newJson?: unknown;
  changedBy?: string | null;
  reason?: string | null;
  metadata?: Record<string, unknown>;
  createdAt: string;
}

export function writeHistory(tx: Tx, h: HistoryInput): void {
  tx.run(
    `INSERT INTO memory_history (id, memory_id, event, old_content, new_content, old_json, new_json, changed_by, reason, metadata_json,
       created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [
      randomUUID(),
      h.memoryId,
      h.event,
      h.oldContent ?? null,
      h.newContent ?? null,
      h.oldJson === undefined ? null : JSON.stringify(h.oldJson),
      h.newJson === undefined ? null : JSON.stringify(h.newJson),
      h.changedBy ?? null,
      h.reason ?? null,
      JSON.stringify(h.metadata ?? {}),
      h.createdAt,
    ],
  );
  const change = h.memoryId ? changeOfHistory(h.event) : undefined;
  if (!change || !h.memoryId) return;
  const survivor = h.event === 'merged_into' ? h.metadata?.survivor : undefined;
  writeChangeEvent(tx, {
    type: change,
    memoryId: h.memoryId,
    actor: h.changedBy ?? null,
    at: h.createdAt,
    ...(typeof survivor === 'string' ? { mergedInto: survivor } : {}),
  });
}
