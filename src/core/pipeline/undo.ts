/**
 * Undo of an applied mutation from its memory_history row: a created memory is soft-deleted,
 * an update is reverted to the prior record (a new version, so the undo is itself in
 * history), a delete is restored. Refused when the memory changed since (optimistic
 * concurrency), so an undo never silently discards a later edit.
 */
import type { Store } from '../store/store';
import type { MemoryService } from '../memory/memoryService';
import type { MemoryRecord } from '../memory/types';
import { UserFacingError } from '../util/errors';
import { writeProposalAudit } from './audit';
import { truncateLine } from '../text/truncate';

/** A memory as people know it in a message: its title or first words, never its id. */
const named = (m: Pick<MemoryRecord, 'title' | 'content'> | undefined) => (m ? `"${truncateLine(m.title || m.content, 50)}"` : '');

export class UndoError extends UserFacingError {
  constructor(message: string) {
    super(message, 'undo_refused');
  }
}

export interface UndoResult {
  memoryId: string;
  undone: 'created' | 'updated' | 'deleted';
  memory: MemoryRecord;
}

export function undoHistory(store: Store, memory: MemoryService, historyId: string, opts: { who?: string; now?: Date } = {}): UndoResult {
  const row = store.get<{ memory_id: string | null; event: string; old_json: string | null; new_json: string | null }>(
    'SELECT memory_id, event, old_json, new_json FROM memory_history WHERE id = ?',
    [historyId],
  );
  if (!row) throw new UndoError(`No history entry with id ${historyId}.`);
  if (!row.memory_id) throw new UndoError(`History entry ${historyId} is not about a memory.`);
  const id = String(row.memory_id);
  const who = opts.who ?? 'user';
  const after = row.new_json ? (JSON.parse(String(row.new_json)) as MemoryRecord) : undefined;
  const before = row.old_json ? (JSON.parse(String(row.old_json)) as MemoryRecord) : undefined;
  const current = memory.get(id, { includeDeleted: true });
  if (!current) throw new UndoError(`The memory ${named(after ?? before)} no longer exists (it was purged).`);
  if (after && current.version !== after.version) {
    throw new UndoError(
      `The memory ${named(current)} changed after this entry (version ${after.version}, now ${current.version}); undo the later change first.`,
    );
  }
  const why = `undo of ${historyId}`;
  const audit = (undone: string) =>
    store.transaction((tx) =>
      writeProposalAudit(tx, {
        sourceMemoryId: id,
        action: 'UNDO',
        outcome: `undone_${undone}`,
        factContent: current.content,
        reason: why,
        createdAt: (opts.now ?? new Date()).toISOString(),
        metadata: { historyId, undoneBy: who },
      }),
    );
  switch (row.event) {
    case 'created': {
      const m = memory.delete(id, { who, reason: why });
      audit('created');
      return { memoryId: id, undone: 'created', memory: m };
    }
    case 'updated': {
      if (!before) throw new UndoError(`History entry ${historyId} has no prior record to go back to.`);
      const m = memory.update(
        id,
        {
          title: before.title,
          content: before.content,
          type: before.type,
          tags: before.tags,
          importance: before.importance,
          summary: before.summary,
          decisions: before.decisions,
          rationale: before.rationale,
          metadata: before.metadata,
          expectedVersion: current.version,
          who,
          why,
        },
        { extract: false }, // the text goes back to what was already extracted
      );
      audit('updated');
      return { memoryId: id, undone: 'updated', memory: m };
    }
    case 'deleted': {
      const m = memory.restore(id, { who });
      audit('deleted');
      return { memoryId: id, undone: 'deleted', memory: m };
    }
    default:
      throw new UndoError(`A "${row.event}" entry cannot be undone.`);
  }
}
