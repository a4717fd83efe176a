/**
 * Cutting an event's text into chunks (docs/sessions.md "Logging events"): the text is
 * normalized (NFC, control characters and runs of white space made one space), then cut into
 * pieces of at most CHUNK_MAX_CHARS characters, each sharing CHUNK_OVERLAP_CHARS with the one
 * before. A cut falls on white space when there is some in the last quarter of the window, and
 * never inside a surrogate pair; the overlap starts at a word where it can.
 */
import { createHash } from 'node:crypto';
import { CHUNK_MAX_CHARS, CHUNK_OVERLAP_CHARS } from './limits';
import { withoutControls } from './extract';

export function normalizeChunkText(text: string): string {
  return withoutControls(text.normalize('NFC')).replace(/\s+/g, ' ').trim();
}

/** The chunks of `text` (normalized first); none for a text of white space only. */
export function chunkText(text: string, max = CHUNK_MAX_CHARS, overlap = CHUNK_OVERLAP_CHARS): string[] {
  const t = normalizeChunkText(text);
  if (!t) return [];
  if (t.length <= max) return [t];
  const out: string[] = [];
  let start = 0;
  for (;;) {
    let end = Math.min(t.length, start + max);
    if (end < t.length) end = cutAt(t, start, end, max);
    out.push(t.slice(start, end).trim());
    if (end >= t.length) break;
    start = nextStart(t, end, overlap, start);
  }
  return out.filter((c) => c.length > 0);
}

/** Where a chunk [start, end) ends: the last space in its last quarter, else `end` moved off a surrogate pair. */
function cutAt(t: string, start: number, end: number, max: number): number {
  const space = t.lastIndexOf(' ', end);
  if (space > start + Math.floor((max * 3) / 4)) return space;
  return isLowSurrogate(t, end) ? end - 1 : end;
}

/** The next chunk starts `overlap` characters before `end`, at a word's start when one is near; always after `prev`. */
function nextStart(t: string, end: number, overlap: number, prev: number): number {
  let s = Math.max(prev + 1, end - overlap);
  const space = t.indexOf(' ', s);
  if (space >= 0 && space < end && space - s < overlap / 2) s = space + 1;
  if (isLowSurrogate(t, s)) s++;
  return s;
}

function isLowSurrogate(t: string, i: number): boolean {
  const c = t.charCodeAt(i);
  return c >= 0xdc00 && c <= 0xdfff;
}

/** SHA-256 (base64url) of a chunk's text: the key of the dedup within a session. */
export function chunkHash(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('base64url');
}
