/** Agent sessions: events, chunks and their search, rolling summary, scratchpad, notes (docs/sessions.md). */
export { SessionStore, type SessionStoreDeps } from './sessionStore';
export { ChunkSpace, ChunkBackfill, type ChunkPair } from './chunkVectors';
export { searchChunks, type ChunkHit, type ChunkQuery, type ChunkSearchResult } from './chunkSearch';
export { condensedSummary, summaryPrompt, type RollOutcome, type SummarySettings } from './summary';
export { eventText, eventRole, oneLine } from './eventText';
export * from './limits';
export type * from './types';
