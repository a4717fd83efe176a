/** The shapes of agent sessions (docs/sessions.md): what the session API takes and answers. */

/** One message of a session as stored: its JSON payload, in sequence order. */
export interface SessionEvent {
  sessionId: string;
  sequence: number;
  payload: unknown;
  createdAt: string;
}

/** An event to log: its payload (a JSON object) and, optionally, its sequence (default: the next one). */
export interface EventInput {
  sequence?: number;
  payload: unknown;
}

export interface SummaryState {
  text: string;
  /** Bumped by every applied write: a write based on an older epoch is discarded. */
  epoch: number;
  /** The last event the summary covers (0: none). */
  upperSequence: number;
  updatedAt: string;
  /** How the last part was written: condensed turns, or a model's summary. */
  writtenBy?: 'condensed' | 'model' | 'caller';
}

export interface ScratchpadState {
  items: string[];
  updatedAt: string;
}

/** A session as lists show it. */
export interface SessionInfo {
  sessionId: string;
  agent: string | null;
  createdAt: string;
  updatedAt: string;
  events: number;
  lastSequence: number;
  summary: SummaryState | null;
  scratchpad: ScratchpadState | null;
}

/** What logging events did. */
export interface StoreEventsResult {
  sessionId: string;
  /** Sequences given to the stored events, in order. */
  sequences: number[];
  lastSequence: number;
  /** Chunks added, and chunks whose sequence_end an identical text extended. */
  chunksAdded: number;
  chunksExtended: number;
  /** Chunks stored without a vector (the embedder failed or there is none): embedded in the background. */
  chunksPending: number;
  /** Parts of the payloads that were stored but not indexed, and why (binary data, …). */
  skipped: string[];
}

export interface ForgetResult {
  sessionId: string;
  events: number;
  chunks: number;
}

/** restore(): the session's context within a token budget, oldest first. */
export interface RestoredContext {
  sessionId: string;
  /** "Rolling session summary: …" when the session has one. */
  summary: string | null;
  events: SessionEvent[];
  /** Events after the summary that did not fit the budget (the oldest are left out first). */
  omitted: number;
  tokens: number;
  budgetTokens: number;
}

export interface SummaryWriteResult {
  /** False: the epoch moved on since the caller read it; nothing was written. */
  applied: boolean;
  /** The epoch now. */
  epoch: number;
}

export interface NoteInput {
  sessionId?: string;
  /** `note-{uuid}`; absent: a new note. The same id again replaces the note. */
  noteId?: string;
  content: string;
  source?: string;
  tags?: string[];
}

export interface NoteResult {
  sessionId: string;
  noteId: string;
  /** True when an earlier note with this id was replaced. */
  replaced: boolean;
  createdAt: string;
  updatedAt: string;
}

/** One hit of the hybrid query over session chunks (chunkSearch.ts). */
export interface ChunkHit {
  chunkId: string;
  rid: number;
  sessionId: string;
  /** The agent of the session. */
  agent: string | null;
  text: string;
  sequenceStart: number;
  sequenceEnd: number;
  /** The event's role, or `note`. */
  role?: string;
  noteId?: string;
  tags: string[];
  /** Fused score of this search (orders one list only). */
  score: number;
  /** Absolute relevance 0…1 (as memory recall's). */
  relevance: number;
  vectorScore: number;
  textScore: number;
  similarity?: number;
  matchType: 'hybrid' | 'vector' | 'keyword';
  matchedTerms: string[];
  /** When the session was last active. */
  sessionUpdatedAt: string;
}

/** What a rolling-summary check did (summary.ts). */
export type RollOutcome =
  | { status: 'not_needed'; tokens: number; unsummarised: number; budgetTokens: number }
  | {
      status: 'applied' | 'stale';
      writtenBy: 'condensed' | 'model';
      condensed: number;
      upperSequence: number;
      epoch: number;
      tokensBefore: number;
      tokensAfter: number;
      /** Why the model was not used when one was given. */
      warning?: string;
    };
