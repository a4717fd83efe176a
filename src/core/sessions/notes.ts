/**
 * Notes (docs/sessions.md "Notes"): what an agent decides to keep, apart from the conversation.
 * store_note logs the note as an event of its session (its text as the payload), then indexes
 * it like a message, with the note's id (`note-{uuid}`), source, tags (trimmed, lower-cased,
 * de-duplicated; at most NOTE_MAX_TAGS of at most NOTE_MAX_TAG_CHARS characters — more is
 * refused, not cut), timestamps set here (never by the caller) and the schema version in every
 * chunk's metadata. Storing under an existing id replaces the note: its chunks and event are
 * deleted and the new text stored under the same id, in one transaction. delete_note removes
 * them; false when no such note exists.
 */
import { randomUUID } from 'node:crypto';
import type { Store } from '../store/store';
import { shownValue } from '../util/shownValue';
import { ValidationError } from '../memory/errors';
import type { ChunkSpace } from './chunkVectors';
import { embedPrepared, prepareChunks, writeChunks } from './chunkWrite';
import {
  DEFAULT_NOTES_SESSION,
  NOTE_MAX_CHARS,
  NOTE_MAX_SOURCE_CHARS,
  NOTE_MAX_TAGS,
  NOTE_MAX_TAG_CHARS,
  NOTE_SCHEMA_VERSION,
} from './limits';
import { checkNotForgotten, checkSessionId, lastSequence, readState, upsertSession, writeState } from './state';
import type { NoteInput, NoteResult } from './types';
import { plural } from '../text/plural';

export interface NoteDeps {
  store: Store;
  chunks?: ChunkSpace;
  now: () => Date;
  onPending?: () => void;
}

const NOTE_ID = /^note-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function newNoteId(): string {
  return `note-${randomUUID()}`;
}

export function checkNoteId(id: unknown): string {
  if (typeof id !== 'string' || !NOTE_ID.test(id))
    throw new ValidationError('noteId', `must be "note-" followed by a UUID (as store_note answers), got ${shownValue(id)}`);
  return id;
}

/** Tags trimmed, lower-cased and de-duplicated; more than NOTE_MAX_TAGS, or one longer than NOTE_MAX_TAG_CHARS, is refused. */
export function noteTags(tags: unknown): string[] {
  if (tags === undefined || tags === null) return [];
  if (!Array.isArray(tags)) throw new ValidationError('tags', `must be a list of strings, got ${shownValue(tags)}`);
  const out: string[] = [];
  tags.forEach((t, i) => {
    if (typeof t !== 'string') throw new ValidationError(`tags[${i}]`, `must be a string, got ${shownValue(t)}`);
    const tag = t.normalize('NFC').trim().replace(/\s+/g, ' ').toLowerCase();
    if (!tag) return;
    if (Array.from(tag).length > NOTE_MAX_TAG_CHARS)
      throw new ValidationError(`tags[${i}]`, `is longer than ${NOTE_MAX_TAG_CHARS} characters, the limit per tag`);
    if (!out.includes(tag)) out.push(tag);
  });
  if (out.length > NOTE_MAX_TAGS)
    throw new ValidationError('tags', `${plural(out.length, 'tag')} are more than the ${NOTE_MAX_TAGS} a note may have`);
  return out;
}

function noteContent(content: unknown): string {
  if (typeof content !== 'string' || !content.trim())
    throw new ValidationError('content', `must be a non-empty string, got ${shownValue(content)}`);
  if (content.length > NOTE_MAX_CHARS)
    throw new ValidationError('content', `is ${content.length} characters, over the limit of ${NOTE_MAX_CHARS} per note`);
  return content.trim();
}

function noteSource(source: unknown): string | undefined {
  if (source === undefined || source === null) return undefined;
  if (typeof source !== 'string') throw new ValidationError('source', `must be a string, got ${shownValue(source)}`);
  const s = source.trim();
  if (s.length > NOTE_MAX_SOURCE_CHARS) throw new ValidationError('source', `is over the limit of ${NOTE_MAX_SOURCE_CHARS} characters`);
  return s || undefined;
}

/** When the note was first stored, from any chunk of it. */
function createdAtOf(store: Pick<Store, 'get'>, sessionId: string, noteId: string): string | undefined {
  const row = store.get<{ c: string | null }>(
    "SELECT json_extract(metadata_json, '$.created_at') AS c FROM chunks WHERE session_id = ? AND json_extract(metadata_json, '$.note_id') = ? LIMIT 1",
    [sessionId, noteId],
  );
  return row?.c ? String(row.c) : undefined;
}

export async function storeNote(deps: NoteDeps, input: NoteInput, agent?: string): Promise<NoteResult> {
  if (!input || typeof input !== 'object') throw new ValidationError('note', 'must be an object with content');
  const sessionId = checkSessionId(input.sessionId ?? DEFAULT_NOTES_SESSION);
  const noteId = input.noteId === undefined ? newNoteId() : checkNoteId(input.noteId);
  const content = noteContent(input.content);
  const source = noteSource(input.source);
  const tags = noteTags(input.tags);
  checkNotForgotten(deps.store, sessionId);
  const now = deps.now().toISOString();
  const createdAt = createdAtOf(deps.store, sessionId, noteId) ?? now;
  const metadata = {
    kind: 'note',
    role: 'note',
    note_id: noteId,
    ...(source ? { source } : {}),
    tags,
    created_at: createdAt,
    updated_at: now,
    schema_version: NOTE_SCHEMA_VERSION,
  };
  const chunks = prepareChunks([content], metadata);
  const pair = deps.chunks?.current;
  await embedPrepared(deps.store, sessionId, chunks, pair);
  const payload = { type: 'note', role: 'note', note_id: noteId, content, ...(source ? { source } : {}), tags };
  const r = deps.store.transaction((tx) => {
    upsertSession(tx, sessionId, agent, now);
    const replaced = removeNote(tx, sessionId, noteId);
    const state = readState(tx, sessionId);
    const seq = lastSequence(tx, sessionId, state) + 1;
    tx.run('INSERT INTO conversation_events (session_id, sequence, payload_json, created_at) VALUES (?, ?, ?, ?)', [
      sessionId,
      seq,
      JSON.stringify(payload),
      now,
    ]);
    writeState(tx, sessionId, { ...state, last_sequence: seq }, now);
    const counts = writeChunks(tx, sessionId, seq, chunks, pair?.embedder.space);
    return { replaced, pending: counts.pending };
  });
  if (r.pending > 0) deps.onPending?.();
  return { sessionId, noteId, replaced: r.replaced, createdAt, updatedAt: now };
}

/** Deletes the note's chunks and its event; false when the session holds no such note. */
export function deleteNote(store: Store, sessionIdIn: string | undefined, noteIdIn: string): boolean {
  const sessionId = checkSessionId(sessionIdIn ?? DEFAULT_NOTES_SESSION);
  const noteId = checkNoteId(noteIdIn);
  return store.transaction((tx) => removeNote(tx, sessionId, noteId));
}

function removeNote(tx: Parameters<Parameters<Store['transaction']>[0]>[0], sessionId: string, noteId: string): boolean {
  tx.run("DELETE FROM chunks WHERE session_id = ? AND json_extract(metadata_json, '$.note_id') = ?", [sessionId, noteId]);
  const chunks = tx.changes();
  tx.run("DELETE FROM conversation_events WHERE session_id = ? AND json_extract(payload_json, '$.note_id') = ?", [sessionId, noteId]);
  return chunks + tx.changes() > 0;
}

/** The notes of a session, newest first: id, text, source, tags, timestamps. */
export function listNotes(
  store: Store,
  sessionIdIn: string | undefined,
  limit = 50,
): { noteId: string; content: string; source?: string; tags: string[]; sequence: number; createdAt: string }[] {
  const sessionId = checkSessionId(sessionIdIn ?? DEFAULT_NOTES_SESSION);
  return store
    .all<{ sequence: number; payload_json: string; created_at: string }>(
      `SELECT sequence, payload_json, created_at FROM conversation_events
        WHERE session_id = ? AND json_extract(payload_json, '$.type') = 'note' ORDER BY sequence DESC LIMIT ?`,
      [sessionId, limit],
    )
    .map((r) => {
      const p = JSON.parse(String(r.payload_json)) as { note_id: string; content: string; source?: string; tags?: string[] };
      return {
        noteId: p.note_id,
        content: p.content,
        ...(p.source ? { source: p.source } : {}),
        tags: p.tags ?? [],
        sequence: Number(r.sequence),
        createdAt: String(r.created_at),
      };
    });
}
