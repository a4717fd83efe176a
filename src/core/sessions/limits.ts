/**
 * The numbers of agent sessions (docs/sessions.md), in one place: how text is cut into chunks,
 * what one event may weigh, the scratchpad's and the notes' limits, and the rolling summary's
 * triggers. A value over a limit is refused with invalid_input naming the limit, never cut.
 */

/** Longest chunk of indexed text, in characters. */
export const CHUNK_MAX_CHARS = 640;
/** Characters a chunk shares with the one before it. */
export const CHUNK_OVERLAP_CHARS = 96;

/** Largest event payload, as JSON (an agent's turn with a large tool result is logged without it: see the hook). */
export const MAX_PAYLOAD_BYTES = 256 * 1024;
/** Events one request may log. */
export const MAX_EVENTS_PER_CALL = 500;
/** Longest session id. */
export const MAX_SESSION_ID_CHARS = 200;
/** Longest agent name kept with a session. */
export const MAX_AGENT_CHARS = 100;

/** Working-memory scratchpad: items per session, characters per item. */
export const SCRATCHPAD_MAX_ITEMS = 32;
export const SCRATCHPAD_MAX_ITEM_CHARS = 240;

/** Notes: tags per note, characters per tag, characters of text, of the source. */
export const NOTE_MAX_TAGS = 16;
export const NOTE_MAX_TAG_CHARS = 64;
export const NOTE_MAX_CHARS = 32 * 1024;
export const NOTE_MAX_SOURCE_CHARS = 200;
/** The note metadata's schema version (kept in every chunk of a note). */
export const NOTE_SCHEMA_VERSION = 1;
/** The session notes go to when the caller names none. */
export const DEFAULT_NOTES_SESSION = 'notes';

/** Longest rolling summary text, in characters. */
export const SUMMARY_MAX_CHARS = 64 * 1024;

/** Rolling summary (docs/sessions.md "Rolling summary"): the defaults of its triggers. */
export const SUMMARY_DEFAULTS = {
  /** At least this many unsummarised events… */
  minTurns: 4,
  /** …and token use above this share of the budget trigger a summary… */
  triggerRatio: 0.8,
  /** …which condenses the oldest events until the use is at most this share. */
  targetRatio: 0.5,
  /** The session's context budget, in tokens. */
  budgetTokens: 4000,
} as const;

/** Characters of one event's text in a condensed line of the summary. */
export const CONDENSED_LINE_CHARS = 160;

/** About 4 characters a token: the estimate every budget here uses. */
export const CHARS_PER_TOKEN = 4;

export function estimateTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

/** Default and largest number of chunk results of one session search. */
export const SEARCH_DEFAULT_LIMIT = 10;
export const SEARCH_MAX_LIMIT = 100;

/** Default weights of the chunk search's legs (vector, full text). */
export const CHUNK_VECTOR_WEIGHT = 0.7;
export const CHUNK_TEXT_WEIGHT = 0.3;
