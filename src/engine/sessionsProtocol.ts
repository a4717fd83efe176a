/**
 * The agent-session part of the engine protocol (docs/sessions.md): its methods and shapes.
 * protocol.ts's EngineMethods extends SessionMethods and re-exports these types.
 */
import type {
  ChunkHit,
  EventInput,
  ForgetResult,
  RollOutcome,
  NoteResult,
  RestoredContext,
  ScratchpadState,
  SessionEvent,
  SessionInfo,
  StoreEventsResult,
  SummaryState,
  SummaryWriteResult,
} from '../core/sessions/types';
import type { SearchHit, SearchLeg } from './protocol';

export type {
  ChunkHit,
  EventInput,
  ForgetResult,
  NoteResult,
  RestoredContext,
  RollOutcome,
  ScratchpadState,
  SessionEvent,
  SessionInfo,
  StoreEventsResult,
  SummaryState,
  SummaryWriteResult,
};

// ── Agent sessions (docs/sessions.md) ──────────────────────────────────────────────────────

export interface SessionSearchParams {
  query: string;
  /** Only this session's chunks. */
  sessionId?: string;
  /** Only chunks holding every one of these tags. */
  tags?: string[];
  /** A query vector the caller computed in the active embedding space. */
  queryEmbedding?: number[];
  limit?: number;
  /** Weights of the vector and full-text legs (default 0.7 / 0.3). */
  vectorWeight?: number;
  ftsWeight?: number;
}

export interface SessionSearchResponse {
  query: string;
  hits: ChunkHit[];
  legsUsed: SearchLeg[];
  tookMs: number;
}

/** One result of recall over memories and session chunks, saying which it is and where it came from. */
export type RecallItem = { kind: 'memory'; relevance: number; memory: SearchHit } | { kind: 'session'; relevance: number; chunk: ChunkHit };

export interface RecallParams {
  query: string;
  limit?: number;
  /** Also search the chunks of agent sessions (default true). */
  includeSessions?: boolean;
  /** Only this session's chunks. */
  sessionId?: string;
  /** See SearchParams.recordAccess. */
  recordAccess?: boolean;
}

export interface RecallResponse {
  query: string;
  items: RecallItem[];
  legsUsed: SearchLeg[];
  tookMs: number;
}

/** A page of a session's notes. */
export interface NoteEntry {
  noteId: string;
  content: string;
  source?: string;
  tags: string[];
  sequence: number;
  createdAt: string;
}

export interface SessionMethods {
  /** Logs events of an agent session, in order, all or none (docs/sessions.md "Logging events"). */
  'sessions.log': { params: { sessionId: string; events: EventInput[]; agent?: string }; result: StoreEventsResult };
  /** Logs the new conversation lines of an agent's transcript file (Claude Code's JSONL); `more`: call again. */
  'sessions.logTranscript': {
    /** deferEmbedding: store the chunks without vectors; the background embeds them (a hook never waits for the model). */
    params: { sessionId: string; path: string; agent?: string; deferEmbedding?: boolean };
    result: { logged: StoreEventsResult | null; more: boolean; skipped: string[] };
  };
  /** Sessions by last activity, most recent first. */
  'sessions.list': { params: { limit?: number; offset?: number }; result: { items: SessionInfo[]; total: number } };
  'sessions.get': { params: { sessionId: string }; result: SessionInfo | null };
  /** Events after `afterSequence`, oldest first (a transcript, page by page). */
  'sessions.events': { params: { sessionId: string; afterSequence?: number; limit?: number }; result: SessionEvent[] };
  /** The rolling summary, then the latest events, within a token budget. */
  'sessions.restore': { params: { sessionId: string; budgetTokens?: number }; result: RestoredContext };
  /** The hybrid query over session chunks. */
  'sessions.search': { params: SessionSearchParams; result: SessionSearchResponse };
  /** Removes the session and all of it; recorded in the history. The surfaces ask first. */
  'sessions.forget': { params: { sessionId: string; reason?: string; who?: string }; result: ForgetResult };
  'sessions.summary': { params: { sessionId: string }; result: SummaryState | null };
  /** Compare-and-swap on the epoch: `applied: false` when another summary was written since `expectedEpoch`. */
  'sessions.writeSummary': {
    params: { sessionId: string; text: string; upperSequence: number; expectedEpoch: number };
    result: SummaryWriteResult;
  };
  /** Summarises the session now if it is due (condensed turns, or the pipeline's model when it is on). */
  'sessions.summarize': { params: { sessionId: string }; result: RollOutcome };
  'scratchpad.read': { params: { sessionId: string }; result: ScratchpadState | null };
  /** Replaces the whole scratchpad (at most 32 items of at most 240 characters). */
  'scratchpad.write': { params: { sessionId: string; items: string[]; agent?: string }; result: ScratchpadState };
  'scratchpad.clear': { params: { sessionId: string }; result: { cleared: boolean } };
  /** Stores a note (a new one, or replaces `noteId`). */
  'notes.store': {
    params: { sessionId?: string; noteId?: string; content: string; source?: string; tags?: string[]; agent?: string };
    result: NoteResult;
  };
  'notes.delete': { params: { sessionId?: string; noteId: string }; result: { deleted: boolean } };
  'notes.list': { params: { sessionId?: string; limit?: number }; result: NoteEntry[] };
  /** One recall over memories and session chunks, ranked by relevance. */
  recall: { params: RecallParams; result: RecallResponse };
}
