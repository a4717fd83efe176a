/** The public shape of memories and the inputs of the memory API (docs/write-path.md). */

export const MEMORY_TYPES = [
  // kinds of knowledge a person or agent saves
  'general',
  'solution',
  'problem',
  'code_pattern',
  'fix',
  'error',
  'workflow',
  'decision',
  // fact types of the pipeline's extraction (docs/pipeline.md)
  'fact',
  'preference',
  'procedural',
  'semantic',
  // document chunks (docs/pipeline.md "Documents")
  'document_chunk',
] as const;
export type MemoryType = (typeof MEMORY_TYPES)[number];

export const MEMORY_SCOPES = ['project', 'global'] as const;
export type MemoryScope = (typeof MEMORY_SCOPES)[number];

export type EmbeddingStatus = 'pending' | 'ready' | 'failed' | 'none';

/**
 * Who made the version of a memory the team server holds (docs/team.md "Surfaces"): the author's
 * name and the machine it came from (host name and a random part). Set only on a project memory
 * that has been exchanged with a team server.
 */
export interface SharedBy {
  author: string;
  machine: string | null;
}

export interface MemoryRecord {
  id: string;
  rid: number;
  projectId: string;
  scope: MemoryScope;
  type: MemoryType;
  title: string;
  content: string;
  summary: string | null;
  contentHash: string;
  docHash: string;
  tags: string[];
  importance: number;
  source: string | null;
  agentSource: string | null;
  eventType: string | null;
  who: string | null;
  why: string | null;
  extractionModel: string | null;
  tier: string;
  retentionStatus: string;
  accessCount: number;
  lastAccessedAt: string | null;
  ttlSeconds: number | null;
  expiresAt: string | null;
  version: number;
  mergedFrom: string[];
  replacedBy: string | null;
  deletedAt: string | null;
  deletedBy: string | null;
  deleteReason: string | null;
  embeddingStatus: EmbeddingStatus;
  /** Embedding space of the stored vector (set when it was written). */
  embeddingVersion: string | null;
  /** embedTextHash of the text the stored vector was made from (null: no vector yet). */
  embeddingHash: string | null;
  decisions: string[];
  rationale: string[];
  metadata: Record<string, unknown>;
  pipelineStatus: string;
  /**
   * Text the memory is found by but never shows (docs/recall.md "What a memory is indexed with"):
   * the previous turn of a conversation, a document chunk's heading path. '' when none.
   */
  searchContext: string;
  /** Who said it (a conversation turn's speaker, a person or an agent); null when not a turn. */
  speaker: string | null;
  createdAt: string;
  updatedAt: string;
  /** Team memory: who made the version the server holds (absent: never shared). */
  sharedBy?: SharedBy;
}

export interface MemorySummary {
  id: string;
  type: MemoryType;
  scope: MemoryScope;
  title: string;
  preview: string;
  tags: string[];
  importance: number;
  decisionCount: number;
  accessCount: number;
  expiresAt: string | null;
  deletedAt: string | null;
  version: number;
  createdAt: string;
  updatedAt: string;
  /** Team memory: who made the version the server holds (absent: never shared). */
  sharedBy?: SharedBy;
}

export interface CreateMemoryInput {
  content: string;
  title?: string;
  type?: string;
  scope?: string;
  tags?: unknown;
  importance?: number;
  source?: string;
  agentSource?: string;
  eventType?: string;
  who?: string;
  why?: string;
  extractionModel?: string;
  summary?: string;
  decisions?: string[];
  rationale?: string[];
  metadata?: Record<string, unknown>;
  /** Indexed with the memory, never shown: the previous turn, a chunk's heading path (docs/recall.md). */
  searchContext?: string;
  /** Who said it, for a conversation turn (a field recall matches when a query names them). */
  speaker?: string;
  /** Seconds; null = permanent. Absent = the default of the origin (docs/lifecycle.md). */
  ttlSeconds?: number | null;
  /** Who asked for it, which decides the default lifetime (lifetime.ts). Absent = 'person' (permanent). */
  origin?: import('./lifetime').CreateOrigin;
  /** Skip the near-duplicate stage (the pipeline does its own dedup). */
  allowNearDuplicate?: boolean;
  /** A person chose "Save anyway": keep a text the low-value rule would skip. */
  allowLowValue?: boolean;
  /** Text that came out of recall must never be learned again (no extraction job). */
  fromRecall?: boolean;
}

/** Options of the write methods: a vector computed outside the transaction (see embedding.ts). */
export interface WriteOptions {
  /**
   * Written with the memory in the same transaction (embeddings row + embedding_status
   * 'ready'), so it is searchable by the next request. Ignored with a warning when it was
   * computed for other text than what is stored (then the memory waits for a background embed).
   */
  embedding?: import('../vectorstore/types').PreparedEmbedding;
  /**
   * false: this write enqueues no extraction job even when the service extracts (the
   * pipeline's own writes, document chunks, undo: derived text is never extracted again).
   */
  extract?: boolean;
  /** Kinds of credential the caller's own secret guard already redacted (recorded in the history). */
  redacted?: RedactedKinds;
}

export type SkipReason = 'low_value' | 'placeholder' | 'redundant' | 'secret_detected';

/** Kinds of credential the secret guard replaced with `[redacted: <kind>]` (src/core/secrets/rules.ts). */
export type RedactedKinds = import('../secrets/rules').SecretKind[];

/** An existing memory a newly stored one is very close to, with the suggestion to merge them (docs/consolidation.md). */
export interface SimilarMemory {
  id: string;
  /** Its title, or the start of its text. */
  label: string;
  similarity: number;
  suggestionId: string;
}

/**
 * `redacted`: the kinds of credential the secret guard replaced before anything was written
 * (docs/secrets.md); `secrets`: the kinds that made a `secret_detected` skip.
 */
export type CreateResult =
  | { status: 'created'; memory: MemoryRecord; warnings: string[]; redacted?: RedactedKinds }
  | { status: 'duplicate'; memory: MemoryRecord; warnings: string[]; redacted?: RedactedKinds }
  | {
      status: 'skipped';
      reason: SkipReason;
      existingId?: string;
      /** redundant: the existing memory's title, else its text (the surfaces name it by this, not by its id). */
      existingLabel?: string;
      detail: string;
      warnings: string[];
      redacted?: RedactedKinds;
      secrets?: RedactedKinds;
    };

/** What an edit returns: the new record, and the kinds of credential redacted from the edit. */
export type UpdatedMemory = MemoryRecord & { redacted?: RedactedKinds };

export interface UpdateMemoryInput {
  title?: string;
  content?: string;
  type?: string;
  scope?: string;
  tags?: unknown;
  importance?: number;
  summary?: string | null;
  decisions?: string[];
  rationale?: string[];
  metadata?: Record<string, unknown>;
  /** '' removes it. */
  searchContext?: string;
  /** null or '' removes it. */
  speaker?: string | null;
  ttlSeconds?: number | null;
  /** Optimistic concurrency: fail if the stored version differs. */
  expectedVersion?: number;
  who?: string;
  why?: string;
}

export interface ListOptions {
  offset?: number;
  limit?: number;
  types?: string[];
  scope?: string;
  /** Every listed tag must be present. */
  tags?: string[];
  includeDeleted?: boolean;
}

export interface ListResult {
  items: MemorySummary[];
  total: number;
  offset: number;
  limit: number;
}

export interface HistoryEntry {
  id: string;
  memoryId: string | null;
  event: string;
  oldContent: string | null;
  newContent: string | null;
  changedBy: string | null;
  reason: string | null;
  metadata: Record<string, unknown>;
  createdAt: string;
}
