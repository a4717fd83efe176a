/**
 * The rows every session operation starts from: the session itself (created on its first write,
 * its updated_at moved by every later one), its state (last sequence, rolling summary,
 * scratchpad: one JSON object in session_state), the ids that were forgotten, and the checks of
 * a session id. Runs inside the caller's transaction.
 */
import type { Tx } from '../store/store';
import { UserFacingError } from '../util/errors';
import { formatErrorMessage } from '../util/errorCatalogue';
import { shownValue } from '../util/shownValue';
import { ValidationError } from '../memory/errors';
import { MAX_AGENT_CHARS, MAX_SESSION_ID_CHARS } from './limits';
import type { ScratchpadState, SummaryState } from './types';

type Reader = Pick<Tx, 'get'>;

/** session_state.state_json, as stored (snake_case: the specification's field names). */
export interface StateJson {
  last_sequence?: number;
  summary_state?: { text: string; epoch: number; upper_sequence: number; updated_at: string; written_by?: SummaryState['writtenBy'] };
  scratchpad?: { items: string[]; updated_at: string };
}

/** A session id: a non-empty line of printable text, at most MAX_SESSION_ID_CHARS characters. */
export function checkSessionId(id: unknown, field = 'sessionId'): string {
  if (typeof id !== 'string' || !id.trim()) throw new ValidationError(field, `must be a non-empty string, got ${shownValue(id)}`);
  // eslint-disable-next-line no-control-regex -- a session id is one line of printable text
  if (/[\u0000-\u001f\u007f]/.test(id)) throw new ValidationError(field, 'must be one line of printable text');
  if (id.length > MAX_SESSION_ID_CHARS)
    throw new ValidationError(field, `is ${id.length} characters, over the limit of ${MAX_SESSION_ID_CHARS}`);
  return id;
}

export function checkAgent(agent: unknown): string | undefined {
  if (agent === undefined || agent === null) return undefined;
  if (typeof agent !== 'string') throw new ValidationError('agent', `must be a string, got ${shownValue(agent)}`);
  const a = agent.trim();
  return a ? a.slice(0, MAX_AGENT_CHARS) : undefined;
}

export class SessionForgottenError extends UserFacingError {
  constructor(sessionId: string, at: string) {
    super(formatErrorMessage('session_forgotten', { id: sessionId, date: at.slice(0, 10) }), 'session_forgotten');
  }
}

export class SessionNotFoundError extends UserFacingError {
  constructor(sessionId: string) {
    super(formatErrorMessage('not_found', { what: 'session', id: sessionId }), 'not_found');
  }
}

/** Refuses a write to a session someone forgot (its id is kept, nothing else). */
export function checkNotForgotten(db: Reader, sessionId: string): void {
  const gone = db.get<{ forgotten_at: string }>('SELECT forgotten_at FROM forgotten_sessions WHERE session_id = ?', [sessionId]);
  if (gone) throw new SessionForgottenError(sessionId, String(gone.forgotten_at));
}

/** Creates the session on its first write, else moves its updated_at (and names its agent when it had none). */
export function upsertSession(tx: Tx, sessionId: string, agent: string | undefined, now: string): void {
  checkNotForgotten(tx, sessionId);
  tx.run(
    `INSERT INTO sessions (session_id, agent_identity, created_at, updated_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (session_id) DO UPDATE SET updated_at = excluded.updated_at,
       agent_identity = coalesce(sessions.agent_identity, excluded.agent_identity)`,
    [sessionId, agent ?? null, now, now],
  );
}

export function sessionExists(db: Reader, sessionId: string): boolean {
  return db.get('SELECT 1 AS x FROM sessions WHERE session_id = ?', [sessionId]) !== undefined;
}

export function readState(db: Reader, sessionId: string): StateJson {
  const row = db.get<{ state_json: string }>('SELECT state_json FROM session_state WHERE session_id = ?', [sessionId]);
  if (!row) return {};
  try {
    const v = JSON.parse(String(row.state_json)) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as StateJson) : {};
  } catch {
    return {};
  }
}

export function writeState(tx: Tx, sessionId: string, state: StateJson, now: string): void {
  tx.run(
    `INSERT INTO session_state (session_id, state_json, updated_at) VALUES (?, ?, ?)
     ON CONFLICT (session_id) DO UPDATE SET state_json = excluded.state_json, updated_at = excluded.updated_at`,
    [sessionId, JSON.stringify(state), now],
  );
}

/** The session's last sequence: the state's high-water mark, or the events' (they agree; the larger wins). */
export function lastSequence(db: Reader, sessionId: string, state: StateJson = readState(db, sessionId)): number {
  const row = db.get<{ s: number | null }>('SELECT max(sequence) AS s FROM conversation_events WHERE session_id = ?', [sessionId]);
  return Math.max(Number(state.last_sequence ?? 0), Number(row?.s ?? 0));
}

export function summaryOf(state: StateJson): SummaryState | null {
  const s = state.summary_state;
  if (!s || typeof s.text !== 'string') return null;
  return {
    text: s.text,
    epoch: Number(s.epoch) || 0,
    upperSequence: Number(s.upper_sequence) || 0,
    updatedAt: String(s.updated_at ?? ''),
    ...(s.written_by ? { writtenBy: s.written_by } : {}),
  };
}

export function scratchpadOf(state: StateJson): ScratchpadState | null {
  const p = state.scratchpad;
  if (!p || !Array.isArray(p.items)) return null;
  return { items: p.items.map(String), updatedAt: String(p.updated_at ?? '') };
}
