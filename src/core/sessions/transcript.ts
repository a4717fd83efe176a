/**
 * An agent's transcript file, read from where the last read stopped (docs/sessions.md "Claude
 * Code"): Claude Code appends one JSON object per line to `<session>.jsonl`; the lines of the
 * conversation (`type` user or assistant, with a `message`) become events of the session, the
 * rest (summaries, snapshots, a subagent's side chain, meta lines) are not conversation and are
 * passed over. Only complete lines are read (a line still being written waits for the next
 * read). The cursor — byte offset, line count, a hash of the 4 KB before the offset — is kept in
 * the session's `files` row, written in the same transaction as the events, so a turn is logged
 * once: never twice, never half. A file that no longer ends that way (rewritten) is read again
 * from its start, its events only after the last one logged (by the line's uuid), and said so.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { MAX_PAYLOAD_BYTES } from './limits';
import type { EventInput } from './types';

export interface TranscriptCursor {
  offset: number;
  lines: number;
  /** SHA-256 (base64url) of the bytes [offset − 4096, offset). */
  tailHash: string;
  /** uuid of the last line logged. */
  lastUuid?: string;
}

export interface TranscriptRead {
  events: EventInput[];
  cursor: TranscriptCursor;
  /** More complete lines wait after the cursor (the read stopped at `maxEvents`). */
  more: boolean;
  /** What was read but not logged, in words (not JSON, over the size limit, …). */
  skipped: string[];
}

const TAIL = 4096;
/** Largest piece of a transcript read at once. */
const MAX_READ = 64 * 1024 * 1024;

function tailHashOf(fd: number, offset: number): string {
  const start = Math.max(0, offset - TAIL);
  const buf = Buffer.alloc(offset - start);
  fs.readSync(fd, buf, 0, buf.length, start);
  return createHash('sha256').update(buf).digest('base64url');
}

/**
 * The events of the new complete lines of `file` after `cursor` (from its start without one), at
 * most `maxEvents`: the cursor then stops after the line of the last one. Throws when the file
 * cannot be read.
 */
export function readTranscript(file: string, cursor: TranscriptCursor | undefined, maxEvents: number): TranscriptRead {
  const fd = fs.openSync(file, 'r');
  try {
    const skipped: string[] = [];
    const from = startOf(fd, cursor, skipped);
    const lines = completeLines(fd, from.offset);
    const afterUuid = from.offset === 0 ? from.lastUuid : undefined;
    const out = linesToEvents(lines, { firstLine: from.lines + 1, afterUuid, maxEvents }, skipped);
    const used = lines.slice(0, out.consumed).reduce((n, l) => n + Buffer.byteLength(l, 'utf8') + 1, 0);
    const offset = from.offset + used;
    const lastUuid = out.lastUuid ?? cursor?.lastUuid;
    return {
      events: out.events,
      skipped,
      more: out.consumed < lines.length,
      cursor: { offset, lines: from.lines + out.consumed, tailHash: tailHashOf(fd, offset), ...(lastUuid ? { lastUuid } : {}) },
    };
  } finally {
    fs.closeSync(fd);
  }
}

/** Where to read from: the cursor, or the file's start when it no longer ends as the cursor saw it. */
function startOf(fd: number, cursor: TranscriptCursor | undefined, skipped: string[]): TranscriptCursor {
  if (!cursor) return { offset: 0, lines: 0, tailHash: '' };
  const size = fs.fstatSync(fd).size;
  if (cursor.offset <= size && tailHashOf(fd, cursor.offset) === cursor.tailHash) return cursor;
  skipped.push('the transcript changed since it was last read: it was read again from its start, after the last line logged');
  return { offset: 0, lines: 0, tailHash: '', ...(cursor.lastUuid ? { lastUuid: cursor.lastUuid } : {}) };
}

/** The complete lines (ended by a new line) from `offset`, at most MAX_READ bytes of them. */
function completeLines(fd: number, offset: number): string[] {
  const length = Math.min(fs.fstatSync(fd).size - offset, MAX_READ);
  if (length <= 0) return [];
  const buf = Buffer.alloc(length);
  fs.readSync(fd, buf, 0, length, offset);
  const end = buf.lastIndexOf(0x0a) + 1;
  return buf.subarray(0, end).toString('utf8').split('\n').slice(0, -1);
}

/**
 * The events of transcript lines (numbered from `firstLine`); with `afterUuid`, only those after
 * that line; at most `maxEvents` (`consumed`: the lines read, up to the last event's).
 */
export function linesToEvents(
  lines: readonly string[],
  at: { firstLine: number; afterUuid?: string; maxEvents: number },
  skipped: string[],
): { events: EventInput[]; lastUuid?: string; consumed: number } {
  const events: EventInput[] = [];
  let lastUuid: string | undefined;
  const afterUuid = at.afterUuid;
  let waiting = afterUuid !== undefined && lines.some((l) => l.includes(afterUuid));
  let i = 0;
  for (; i < lines.length && events.length < at.maxEvents; i++) {
    const obj = parseLine(lines[i]!, at.firstLine + i, skipped);
    if (obj === undefined) continue;
    const uuid = (obj as { uuid?: unknown }).uuid;
    if (waiting) {
      if (uuid === afterUuid) waiting = false;
      continue;
    }
    const payload = conversationPayload(obj, skipped, at.firstLine + i);
    if (!payload) continue;
    if (typeof uuid === 'string') lastUuid = uuid;
    events.push({ payload });
  }
  return { events, consumed: i, ...(lastUuid ? { lastUuid } : {}) };
}

function parseLine(line: string, lineNo: number, skipped: string[]): unknown {
  if (!line.trim()) return undefined;
  try {
    return JSON.parse(line) as unknown;
  } catch {
    skipped.push(`line ${lineNo} of the transcript is not JSON`);
    return undefined;
  }
}

/** The message of a conversation line (user / assistant), within the size limit; undefined for other lines. */
function conversationPayload(obj: unknown, skipped: string[], lineNo: number): Record<string, unknown> | undefined {
  if (!obj || typeof obj !== 'object') return undefined;
  const e = obj as { type?: unknown; message?: unknown; isSidechain?: unknown; isMeta?: unknown; uuid?: unknown; timestamp?: unknown };
  if ((e.type !== 'user' && e.type !== 'assistant') || e.isSidechain === true || e.isMeta === true) return undefined;
  const m = e.message as { role?: unknown; content?: unknown } | undefined;
  if (!m || typeof m !== 'object' || (typeof m.content !== 'string' && !Array.isArray(m.content))) return undefined;
  const payload: Record<string, unknown> = {
    role: typeof m.role === 'string' ? m.role : e.type,
    content: m.content,
    ...(typeof e.uuid === 'string' ? { uuid: e.uuid } : {}),
    ...(typeof e.timestamp === 'string' ? { timestamp: e.timestamp } : {}),
  };
  return withinLimit(payload, skipped, lineNo);
}

/** Long parts cut to a note saying so, until the message fits MAX_PAYLOAD_BYTES. */
function withinLimit(payload: Record<string, unknown>, skipped: string[], lineNo: number): Record<string, unknown> {
  const size = (v: unknown) => Buffer.byteLength(JSON.stringify(v), 'utf8');
  if (size(payload) <= MAX_PAYLOAD_BYTES) return payload;
  const kb = (n: number) => `${Math.round(n / 1024)} KB`;
  const note = (n: number) => `[${kb(n)} not recorded: over the limit of ${kb(MAX_PAYLOAD_BYTES)} per event]`;
  const content = payload.content;
  if (Array.isArray(content)) {
    const parts = (content as unknown[]).map((p) => (size(p) > MAX_PAYLOAD_BYTES / 8 ? { type: 'text', text: note(size(p)) } : p));
    const smaller = { ...payload, content: parts };
    if (size(smaller) <= MAX_PAYLOAD_BYTES) {
      skipped.push(`line ${lineNo} of the transcript: parts over ${kb(MAX_PAYLOAD_BYTES / 8)} were left out (the event says so)`);
      return smaller;
    }
  }
  skipped.push(`line ${lineNo} of the transcript is ${kb(size(payload))}, over the limit: logged as a note saying so`);
  return { role: payload.role, content: note(size(payload)), ...(payload.uuid ? { uuid: payload.uuid } : {}) };
}
