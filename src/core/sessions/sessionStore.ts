/**
 * Agent sessions of one store (docs/sessions.md): the memory of the work itself. Logging an
 * event follows the specified order — session upsert, monotonic sequence, event insert,
 * last_sequence, text extraction, chunks of at most 640 characters with 96 of overlap,
 * embedding (outside the transaction: a failing embedder leaves the chunks pending for the
 * background), dedup of a chunk the session already holds, indexing (the full-text index and
 * the vector change marks follow by triggers). Several events are logged in one transaction:
 * all or none. Reading: the last events (recall), the transcript, the sessions by last activity,
 * the context to restore within a token budget; forgetting a session removes all of it by
 * cascade and leaves a history entry and its id (so a late event is refused, not recorded).
 */
import type { Store, Tx } from '../store/store';
import { readTranscript, type TranscriptCursor } from './transcript';
import { shownValue } from '../util/shownValue';
import { ValidationError } from '../memory/errors';
import { writeHistory } from '../memory/history';
import { extractIndexable } from './extract';
import { embedPrepared, prepareChunks, writeChunks, type PreparedChunk } from './chunkWrite';
import type { ChunkSpace } from './chunkVectors';
import { MAX_EVENTS_PER_CALL, MAX_PAYLOAD_BYTES, SUMMARY_DEFAULTS, estimateTokens } from './limits';
import {
  SessionNotFoundError,
  checkAgent,
  checkNotForgotten,
  checkSessionId,
  lastSequence,
  readState,
  scratchpadOf,
  sessionExists,
  summaryOf,
  upsertSession,
  writeState,
} from './state';
import { eventText } from './eventText';
import type {
  EventInput,
  ForgetResult,
  NoteInput,
  NoteResult,
  RestoredContext,
  ScratchpadState,
  SessionEvent,
  SessionInfo,
  StoreEventsResult,
  SummaryState,
  SummaryWriteResult,
} from './types';
import { readSummary, rollSummary, writeSummary, type RollOutcome, type SummarySettings } from './summary';
import { clearScratchpad, readScratchpad, writeScratchpad } from './scratchpad';
import { deleteNote, listNotes, storeNote } from './notes';
import { searchChunks, type ChunkQuery, type ChunkSearchResult } from './chunkSearch';
import type { LlmProvider } from '../llm/types';

export interface SessionStoreDeps {
  store: Store;
  /** The chunk vectors of the active space (absent: keyword search only). */
  chunks?: ChunkSpace;
  now?: () => Date;
  /** Chunks were stored without a vector: wake the background embedding. */
  onPending?: () => void;
}

/** An event checked and prepared outside the transaction. */
interface PreparedEvent {
  sequence: number | undefined;
  json: string;
  chunks: PreparedChunk[];
}

export class SessionStore {
  readonly store: Store;
  private readonly now: () => Date;

  constructor(private readonly deps: SessionStoreDeps) {
    this.store = deps.store;
    this.now = deps.now ?? (() => new Date());
  }

  /** The spec's store(sessionId, sequence, payload): one event. */
  store1(sessionId: string, sequence: number | undefined, payload: unknown, agent?: string): Promise<StoreEventsResult> {
    return this.storeEvents(sessionId, [{ ...(sequence !== undefined ? { sequence } : {}), payload }], { agent });
  }

  /**
   * Logs events in order, in one transaction (all or none). `file`: a file the events were read
   * from, whose `files` row (its read position) is written in the same transaction.
   */
  async storeEvents(
    sessionIdIn: string,
    events: EventInput[],
    opts: { agent?: string; file?: FileMark; deferEmbedding?: boolean } = {},
  ): Promise<StoreEventsResult> {
    const sessionId = checkSessionId(sessionIdIn);
    const agent = checkAgent(opts.agent);
    if (!Array.isArray(events) || events.length === 0) throw new ValidationError('events', 'must be a non-empty list of events');
    if (events.length > MAX_EVENTS_PER_CALL)
      throw new ValidationError(
        'events',
        `${events.length} events is over the limit of ${MAX_EVENTS_PER_CALL} per call; log them in parts`,
      );
    checkNotForgotten(this.store, sessionId);
    const skipped: string[] = [];
    const prepared = events.map((e, i) => prepareEvent(e, i, events.length, skipped));
    const pair = this.deps.chunks?.current;
    const all = prepared.flatMap((p) => p.chunks);
    // deferEmbedding: the chunks are stored pending and the background embeds them (no model load here).
    const embedError = opts.deferEmbedding ? undefined : await embedPrepared(this.store, sessionId, all, pair);
    if (embedError) skipped.push(`the chunks were stored without vectors (embedded in the background): ${embedError}`);
    const now = this.now().toISOString();
    const result = this.store.transaction((tx) => {
      upsertSession(tx, sessionId, agent, now);
      const state = readState(tx, sessionId);
      let last = lastSequence(tx, sessionId, state);
      const sequences: number[] = [];
      const counts = { added: 0, extended: 0, pending: 0 };
      for (const p of prepared) {
        const seq = p.sequence ?? last + 1;
        if (seq <= last) {
          throw new ValidationError(
            'sequence',
            `${seq} is not above the session's last sequence ${last}; give a higher one, or none for the next`,
          );
        }
        tx.run('INSERT INTO conversation_events (session_id, sequence, payload_json, created_at) VALUES (?, ?, ?, ?)', [
          sessionId,
          seq,
          p.json,
          now,
        ]);
        last = seq;
        sequences.push(seq);
        const c = writeChunks(tx, sessionId, seq, p.chunks, pair?.embedder.space);
        counts.added += c.added;
        counts.extended += c.extended;
        counts.pending += c.pending;
      }
      writeState(tx, sessionId, { ...state, last_sequence: last }, now);
      if (opts.file) markFile(tx, sessionId, opts.file, now);
      return { sequences, last, counts };
    });
    if (result.counts.pending > 0) this.deps.onPending?.();
    return {
      sessionId,
      sequences: result.sequences,
      lastSequence: result.last,
      chunksAdded: result.counts.added,
      chunksExtended: result.counts.extended,
      chunksPending: result.counts.pending,
      skipped,
    };
  }

  /** The session's last `limit` events, oldest first (the spec's recall). */
  recall(sessionIdIn: string, limit = 50): SessionEvent[] {
    const sessionId = checkSessionId(sessionIdIn);
    checkLimit(limit, 1000);
    this.mustExist(sessionId);
    const rows = this.store.all<EventRow>(
      'SELECT session_id, sequence, payload_json, created_at FROM conversation_events WHERE session_id = ? ORDER BY sequence DESC LIMIT ?',
      [sessionId, limit],
    );
    return rows.reverse().map(toEvent);
  }

  /** Events after `afterSequence`, oldest first, at most `limit` (a transcript, page by page). */
  events(sessionIdIn: string, afterSequence = 0, limit = 200): SessionEvent[] {
    const sessionId = checkSessionId(sessionIdIn);
    checkLimit(limit, 1000);
    this.mustExist(sessionId);
    return this.store
      .all<EventRow>(
        `SELECT session_id, sequence, payload_json, created_at FROM conversation_events
          WHERE session_id = ? AND sequence > ? ORDER BY sequence LIMIT ?`,
        [sessionId, afterSequence, limit],
      )
      .map(toEvent);
  }

  get(sessionIdIn: string): SessionInfo | undefined {
    const sessionId = checkSessionId(sessionIdIn);
    const row = this.store.get<SessionRow>(`${SESSION_SELECT} WHERE s.session_id = ?`, [sessionId]);
    return row ? toInfo(row) : undefined;
  }

  /** Sessions by last activity, most recent first. */
  list(limit = 20, offset = 0): { items: SessionInfo[]; total: number } {
    checkLimit(limit, 200);
    if (!Number.isInteger(offset) || offset < 0)
      throw new ValidationError('offset', `must be a whole number ≥ 0, got ${shownValue(offset)}`);
    const total = Number(this.store.get<{ n: number }>('SELECT count(*) AS n FROM sessions')!.n);
    const rows = this.store.all<SessionRow>(`${SESSION_SELECT} ORDER BY s.updated_at DESC, s.session_id LIMIT ? OFFSET ?`, [limit, offset]);
    return { items: rows.map(toInfo), total };
  }

  /**
   * The session's context within `budgetTokens` (the spec's restore): the rolling summary, if
   * any, then the events after it, in order; when they do not all fit, the oldest are left out.
   */
  restore(sessionIdIn: string, budgetTokens: number = SUMMARY_DEFAULTS.budgetTokens): RestoredContext {
    const sessionId = checkSessionId(sessionIdIn);
    if (!Number.isInteger(budgetTokens) || budgetTokens < 50 || budgetTokens > 200_000)
      throw new ValidationError('budgetTokens', `must be a whole number from 50 to 200000, got ${shownValue(budgetTokens)}`);
    this.mustExist(sessionId);
    const summary = summaryOf(readState(this.store, sessionId));
    const summaryText = summary?.text ? `Rolling session summary: ${summary.text}` : null;
    let tokens = summaryText ? estimateTokens(summaryText) : 0;
    const rows = this.store.all<EventRow>(
      'SELECT session_id, sequence, payload_json, created_at FROM conversation_events WHERE session_id = ? AND sequence > ? ORDER BY sequence DESC',
      [sessionId, summary?.upperSequence ?? 0],
    );
    const kept: SessionEvent[] = [];
    for (const r of rows) {
      const e = toEvent(r);
      const cost = estimateTokens(eventText(e.payload));
      if (tokens + cost > budgetTokens) break;
      tokens += cost;
      kept.push(e);
    }
    return { sessionId, summary: summaryText, events: kept.reverse(), omitted: rows.length - kept.length, tokens, budgetTokens };
  }

  /** Removes the session and everything of it (events, state, files, chunks and their vectors); its id is kept as forgotten. */
  forget(sessionIdIn: string, by: { who?: string; reason?: string } = {}): ForgetResult {
    const sessionId = checkSessionId(sessionIdIn);
    const now = this.now().toISOString();
    return this.store.transaction((tx) => {
      const s = tx.get<{ agent_identity: string | null }>('SELECT agent_identity FROM sessions WHERE session_id = ?', [sessionId]);
      if (!s) throw new SessionNotFoundError(sessionId);
      const events = Number(tx.get<{ n: number }>('SELECT count(*) AS n FROM conversation_events WHERE session_id = ?', [sessionId])!.n);
      const chunks = Number(tx.get<{ n: number }>('SELECT count(*) AS n FROM chunks WHERE session_id = ?', [sessionId])!.n);
      tx.run('DELETE FROM sessions WHERE session_id = ?', [sessionId]);
      tx.run('INSERT OR REPLACE INTO forgotten_sessions (session_id, forgotten_at) VALUES (?, ?)', [sessionId, now]);
      writeHistory(tx, {
        memoryId: null,
        event: 'session_forgotten',
        changedBy: by.who ?? 'user',
        reason: by.reason ?? null,
        metadata: { sessionId, agent: s.agent_identity, events, chunks },
        createdAt: now,
      });
      return { sessionId, events, chunks };
    });
  }

  /**
   * Logs the new conversation lines of an agent's transcript file (transcript.ts), at most
   * MAX_EVENTS_PER_CALL per call (`more`: call again); the read position is kept with the events.
   */
  async logTranscript(
    sessionIdIn: string,
    file: string,
    agent?: string,
    opts: { deferEmbedding?: boolean } = {},
  ): Promise<{ logged: StoreEventsResult | null; more: boolean; skipped: string[] }> {
    const sessionId = checkSessionId(sessionIdIn);
    checkNotForgotten(this.store, sessionId);
    const row = this.store.get<{ metadata_json: string }>('SELECT metadata_json FROM files WHERE session_id = ? AND source_uri = ?', [
      sessionId,
      file,
    ]);
    const cursor = row ? ((JSON.parse(String(row.metadata_json)) as { cursor?: TranscriptCursor }).cursor ?? undefined) : undefined;
    const read = readTranscript(file, cursor, MAX_EVENTS_PER_CALL);
    const mark: FileMark = { uri: file, hash: read.cursor.tailHash, metadata: { cursor: read.cursor } };
    if (!read.events.length) {
      // Nothing to log (meta lines only): move the read position if the session exists.
      if (row) this.store.transaction((tx) => markFile(tx, sessionId, mark, this.now().toISOString()));
      return { logged: null, more: read.more, skipped: read.skipped };
    }
    const logged = await this.storeEvents(sessionId, read.events, {
      ...(agent ? { agent } : {}),
      file: mark,
      ...(opts.deferEmbedding ? { deferEmbedding: true } : {}),
    });
    return { logged, more: read.more, skipped: [...read.skipped, ...logged.skipped] };
  }

  // ── Rolling summary, scratchpad, notes, search (summary.ts, scratchpad.ts, notes.ts, chunkSearch.ts) ──

  readSummary(sessionId: string): SummaryState | null {
    return readSummary(this.store, sessionId);
  }

  /** Compare-and-swap on the epoch: applied false (nothing written) when it moved on since `expectedEpoch`. */
  writeSummary(sessionId: string, next: { text: string; upperSequence: number }, expectedEpoch: number): SummaryWriteResult {
    return writeSummary(this.store, sessionId, { ...next, writtenBy: 'caller' }, expectedEpoch, this.now().toISOString());
  }

  /** Summarises the session when it is due (condensed turns, or `llm`'s summary). */
  rollSummary(sessionId: string, opts: { settings?: Partial<SummarySettings>; llm?: LlmProvider } = {}): Promise<RollOutcome> {
    return rollSummary(this.store, sessionId, { ...opts, now: this.now });
  }

  readScratchpad(sessionId: string): ScratchpadState | null {
    return readScratchpad(this.store, sessionId);
  }

  writeScratchpad(sessionId: string, items: unknown, agent?: string): ScratchpadState {
    return writeScratchpad(this.store, sessionId, items, this.now().toISOString(), agent);
  }

  clearScratchpad(sessionId: string): boolean {
    return clearScratchpad(this.store, sessionId, this.now().toISOString());
  }

  storeNote(input: NoteInput, agent?: string): Promise<NoteResult> {
    return storeNote({ store: this.store, chunks: this.deps.chunks, now: this.now, onPending: this.deps.onPending }, input, agent);
  }

  deleteNote(sessionId: string | undefined, noteId: string): boolean {
    return deleteNote(this.store, sessionId, noteId);
  }

  listNotes(sessionId: string | undefined, limit?: number): ReturnType<typeof listNotes> {
    return listNotes(this.store, sessionId, limit);
  }

  /** The hybrid query over the chunks of every session (or one). */
  search(q: ChunkQuery, opts: { relevanceFloor?: boolean } = {}): Promise<ChunkSearchResult> {
    const pair = this.deps.chunks?.current;
    return searchChunks({ store: this.store, ...(pair ? { pair } : {}), ...opts }, q);
  }

  private mustExist(sessionId: string): void {
    if (!sessionExists(this.store, sessionId)) throw new SessionNotFoundError(sessionId);
  }
}

/** A file a session read: its uri, a hash of what was read, and where the read stopped. */
export interface FileMark {
  uri: string;
  hash: string;
  metadata: Record<string, unknown>;
}

/** Upserts the session's `files` row of `f.uri` (file_id bound: one above the highest). */
function markFile(tx: Tx, sessionId: string, f: FileMark, now: string): void {
  const next = Number(tx.get<{ n: number | null }>('SELECT max(file_id) AS n FROM files')?.n ?? 0) + 1;
  tx.run(
    `INSERT INTO files (file_id, session_id, source_uri, content_hash, metadata_json, created_at) VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT (session_id, source_uri) DO UPDATE SET content_hash = excluded.content_hash, metadata_json = excluded.metadata_json`,
    [next, sessionId, f.uri, f.hash, JSON.stringify(f.metadata), now],
  );
}

type EventRow = { session_id: string; sequence: number; payload_json: string; created_at: string };

function toEvent(r: EventRow): SessionEvent {
  let payload: unknown;
  try {
    payload = JSON.parse(String(r.payload_json));
  } catch {
    payload = { unreadable: String(r.payload_json).slice(0, 200) };
  }
  return { sessionId: String(r.session_id), sequence: Number(r.sequence), payload, createdAt: String(r.created_at) };
}

const SESSION_SELECT = `SELECT s.session_id, s.agent_identity, s.created_at, s.updated_at, st.state_json,
    (SELECT count(*) FROM conversation_events e WHERE e.session_id = s.session_id) AS events
  FROM sessions s LEFT JOIN session_state st ON st.session_id = s.session_id`;

type SessionRow = {
  session_id: string;
  agent_identity: string | null;
  created_at: string;
  updated_at: string;
  state_json: string | null;
  events: number;
};

function parseState(json: string | null): object {
  try {
    return json ? (JSON.parse(json) as object) : {};
  } catch {
    return {};
  }
}

function toInfo(r: SessionRow): SessionInfo {
  const state = parseState(r.state_json === null ? null : String(r.state_json));
  return {
    sessionId: String(r.session_id),
    agent: r.agent_identity === null ? null : String(r.agent_identity),
    createdAt: String(r.created_at),
    updatedAt: String(r.updated_at),
    events: Number(r.events),
    lastSequence: Number((state as { last_sequence?: number }).last_sequence ?? 0),
    summary: summaryOf(state),
    scratchpad: scratchpadOf(state),
  };
}

function checkLimit(limit: number, max: number): void {
  if (!Number.isInteger(limit) || limit < 1 || limit > max)
    throw new ValidationError('limit', `must be a whole number from 1 to ${max}, got ${shownValue(limit)}`);
}

/** The payload as JSON: an object (a message), within MAX_PAYLOAD_BYTES. */
export function payloadJson(p: unknown, field = 'payload'): string {
  if (!p || typeof p !== 'object' || Array.isArray(p))
    throw new ValidationError(field, `must be a JSON object (a message), got ${shownValue(p)}`);
  let json: string;
  try {
    json = JSON.stringify(p);
  } catch (err) {
    throw new ValidationError(field, `cannot be written as JSON (${(err as Error).message})`);
  }
  const bytes = Buffer.byteLength(json, 'utf8');
  if (bytes > MAX_PAYLOAD_BYTES)
    throw new ValidationError(
      field,
      `is ${Math.round(bytes / 1024)} KB, over the limit of ${MAX_PAYLOAD_BYTES / 1024} KB per event; log a shorter message`,
    );
  return json;
}

/** Checks one event and prepares its chunks (nothing written). */
function prepareEvent(e: EventInput, i: number, n: number, skipped: string[]): PreparedEvent {
  const field = n === 1 ? 'payload' : `events[${i}].payload`;
  if (!e || typeof e !== 'object') throw new ValidationError(n === 1 ? 'event' : `events[${i}]`, 'must be an object with a payload');
  const seq = e.sequence;
  if (seq !== undefined && (!Number.isSafeInteger(seq) || seq < 1))
    throw new ValidationError(n === 1 ? 'sequence' : `events[${i}].sequence`, `must be a whole number ≥ 1, got ${shownValue(seq)}`);
  const p = e.payload;
  const json = payloadJson(p, field);
  const x = extractIndexable(p as Record<string, unknown>);
  for (const s of x.skipped) skipped.push(n === 1 ? s : `event ${i + 1}: ${s}`);
  const chunks = prepareChunks(x.texts, { kind: 'message', ...(x.role ? { role: x.role } : {}) });
  return { sequence: seq, json, chunks };
}
