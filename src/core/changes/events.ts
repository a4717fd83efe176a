/**
 * The change feed's one writer and its reader (docs/changes.md). Every change of a memory
 * writes a memory_events row in the change's own transaction — memory/history.ts calls
 * {@link writeChangeEvent} for each history event that is a change — so nothing changes without
 * an event and no event outlives a rolled-back change. The cursor is a sequence number bound
 * from JS (change_seq), so replaying the op log gives every event the same number, and it is
 * never reused, even after retention removed every row.
 */
import type { Tx } from '../store/store';
import type { SqlDb } from '../store/sqlDb';
import { queueDeliveries } from './outbox';
import { CHANGE_TYPES, type ChangeEvent, type ChangePage, type ChangeType } from './types';

/** History events (memory_history.event) that are changes, and the change each one is. */
const FROM_HISTORY: Readonly<Record<string, ChangeType>> = {
  created: 'memory.created',
  updated: 'memory.updated',
  deleted: 'memory.deleted',
  merged: 'memory.merged',
  merged_into: 'memory.merged',
  expired: 'memory.expired',
  restored: 'memory.restored',
  promoted: 'memory.promoted',
};

/** The change a history event records, if it is one (an audit row of a pipeline proposal is not). */
export function changeOfHistory(event: string): ChangeType | undefined {
  return Object.prototype.hasOwnProperty.call(FROM_HISTORY, event) ? FROM_HISTORY[event] : undefined;
}

export function isChangeType(s: unknown): s is ChangeType {
  return typeof s === 'string' && (CHANGE_TYPES as readonly string[]).includes(s);
}

export interface ChangeInput {
  type: ChangeType;
  memoryId: string;
  actor: string | null;
  at: string;
  mergedInto?: string;
}

/**
 * Writes the event of a change made in `tx` (after the memory's row was written: its version,
 * store and project are read from it) and queues its webhook deliveries. Returns the event, or
 * undefined when the memory is not there (nothing to record).
 */
export function writeChangeEvent(tx: Tx, c: ChangeInput): ChangeEvent | undefined {
  const m = tx.get<{ version: number; scope: string; project_id: string }>('SELECT version, scope, project_id FROM memories WHERE id = ?', [
    c.memoryId,
  ]);
  if (!m) return undefined;
  const seq = Number(tx.get<{ seq: number }>('SELECT seq FROM change_seq WHERE id = 1')!.seq) + 1;
  const event: ChangeEvent = {
    cursor: seq,
    type: c.type,
    memoryId: c.memoryId,
    store: m.scope === 'global' ? 'global' : 'project',
    projectId: String(m.project_id),
    version: Number(m.version),
    actor: c.actor,
    ...(c.mergedInto ? { mergedInto: c.mergedInto } : {}),
    at: c.at,
  };
  tx.run('UPDATE change_seq SET seq = ? WHERE id = 1', [seq]);
  tx.run(
    `INSERT INTO memory_events (seq, event_type, memory_id, store, project_id, version, actor, merged_into, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [seq, event.type, event.memoryId, event.store, event.projectId, event.version, event.actor, c.mergedInto ?? null, event.at],
  );
  queueDeliveries(tx, event);
  return event;
}

type EventRow = {
  seq: number;
  event_type: string;
  memory_id: string;
  store: string;
  project_id: string;
  version: number;
  actor: string | null;
  merged_into: string | null;
  created_at: string;
};

function toEvent(r: EventRow): ChangeEvent {
  return {
    cursor: Number(r.seq),
    type: r.event_type as ChangeType,
    memoryId: String(r.memory_id),
    store: r.store === 'global' ? 'global' : 'project',
    projectId: String(r.project_id),
    version: Number(r.version),
    actor: r.actor === null ? null : String(r.actor),
    ...(r.merged_into ? { mergedInto: String(r.merged_into) } : {}),
    at: String(r.created_at),
  };
}

/** The newest cursor given in this store (0 before the first change). */
export function latestCursor(db: Pick<SqlDb, 'get'>): number {
  return Number(db.get<{ seq: number }>('SELECT seq FROM change_seq WHERE id = 1')?.seq ?? 0);
}

/** The events after `cursor`, oldest first, at most `limit` (see {@link ChangePage}). */
export function eventsSince(db: Pick<SqlDb, 'get' | 'all'>, cursor: number, limit: number): ChangePage {
  const state = db.get<{ seq: number; purged_through: number }>('SELECT seq, purged_through FROM change_seq WHERE id = 1');
  const latest = Number(state?.seq ?? 0);
  const rows = db.all<EventRow>('SELECT * FROM memory_events WHERE seq > ? ORDER BY seq LIMIT ?', [cursor, limit + 1]);
  const events = rows.slice(0, limit).map(toEvent);
  return {
    events,
    cursor: events.length ? events[events.length - 1]!.cursor : Math.min(cursor, latest),
    more: rows.length > limit,
    // Below what retention removed, or beyond anything this store ever gave (a cursor of another store).
    gap: cursor < Number(state?.purged_through ?? 0) || cursor > latest,
    latest,
  };
}
