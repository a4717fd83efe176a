/**
 * The ONE typed protocol between the UI thread (src/extension, or any plain Node host) and
 * the engine worker thread (src/engine/worker/worker.ts). Every request, response and event that
 * crosses the MessagePort is a type here; nothing else is sent.
 *
 *   UI → engine : RequestMessage | CancelMessage | PrepareMessage
 *   engine → UI : ReadyMessage | ResponseMessage | EventMessage | FatalMessage
 *
 * Requests carry an id; exactly one ResponseMessage answers each id (ok or error). A
 * CancelMessage asks the engine to abort a running request: it then answers with the
 * `cancelled` error code. A PrepareMessage says a request that embeds text waits for the
 * engine to start (it loads its embedder meanwhile). Events are unsolicited (memory changed,
 * progress, warnings, pipeline and engine state).
 *
 * Only structured-cloneable data crosses: plain objects, arrays, strings, numbers, booleans,
 * null. Errors are turned into EngineErrorPayload (code + user-facing message).
 */
import type {
  CreateMemoryInput,
  CreateResult,
  HistoryEntry,
  ListOptions,
  ListResult,
  MemoryRecord,
  MemoryScope,
  MemorySummary,
  SimilarMemory,
  UpdatedMemory,
  UpdateMemoryInput,
} from '../core/memory/types';
import type { PendingReview } from '../core/pipeline/reviewTypes';
import type { SearchEvidence } from '../core/search/evidence';
import type { RemovedMemory, RemovedReason } from '../core/lifecycle/removedTypes';
import type { ErrorCode } from '../core/util/errorCatalogue';
import type { ChangeEvent, ChangePage, ChangeType, DeliveryStatus } from '../core/changes/types';
import { CHANGE_READ_METHODS, type ChangeMethods, type WebhookDelivery } from './changesProtocol';
import type { SecretScanResult } from '../core/secrets/scanTypes';
import { SCHEDULE_READ_METHODS, type ScheduleEvent, type ScheduleMethods } from './scheduleProtocol';
import { TEAM_READ_METHODS, type TeamEvent, type TeamMethods } from './teamProtocol';
import type { SessionMethods } from './sessionsProtocol';

export type * from './sessionsProtocol';
export type * from './changesProtocol';
export type {
  CreateMemoryInput,
  CreateResult,
  HistoryEntry,
  ListOptions,
  ListResult,
  MemoryRecord,
  MemoryScope,
  MemorySummary,
  UpdateMemoryInput,
  UpdatedMemory,
  RemovedMemory,
  RemovedReason,
  SimilarMemory,
  ChangeEvent,
  ChangePage,
  ChangeType,
  DeliveryStatus,
};

/** A page of recently deleted and expired memories (memory.listRemoved). */
export interface RemovedList {
  items: RemovedMemory[];
  total: number;
  offset: number;
  limit: number;
  /** How long a removed memory stays restorable (memory.pipelineV2.tombstoneRetentionMs). */
  restorableForMs: number;
}

export const PROTOCOL_VERSION = 2;

/**
 * CreateResult plus what the smart store did (docs/consolidation.md "On write"). A surface words
 * it with describeCreate (createResultText.ts), never as a bare status.
 */
export type CreateMemoryResult = CreateResult & {
  /** stored / merged (an automatic write ≥ memory.auto_merge_threshold) / skipped / duplicate. */
  action?: 'stored' | 'merged' | 'skipped' | 'duplicate';
  embedding?: 'ready' | 'pending' | 'none';
  /** Ids of the merge suggestions this write recorded. */
  suggestions?: string[];
  /** stored: the existing memories it is close to, most similar first, each with its suggestion. */
  similar?: SimilarMemory[];
  /** merged: how alike the text and the memory it was merged into (`memory`) were, 0 to 1. */
  mergedSimilarity?: number;
};

/** Encryption at rest of the engine's stores (encryption.status). */
export interface EncryptionStatus {
  stores: {
    store: StoreName;
    dir: string;
    encrypted: boolean;
    /** The user key the store's data key is wrapped under (an id, not secret). */
    userKeyId?: string;
    since?: string;
    /** This engine writes the store (only such a store is switched here). */
    ownedHere: boolean;
  }[];
  keychain: { available: boolean; reason?: string };
  keyFile: { path?: string; inUse: boolean };
  /** Whether a store created now is encrypted (a keychain answers, or a key file was chosen). */
  newStores: 'encrypted' | 'plain';
  /** Why new stores are plain here, and what to do. */
  note?: string;
}

// ── Start-up ────────────────────────────────────────────────────────────────────────────────

export type { EngineInit } from './engineInit';

// ── Domain shapes carried by requests and responses ──────────────────────────────────────────

/** Which store a memory lives in: the project's or the global one. */
export type StoreName = 'project' | 'global';

export interface SearchParams {
  query: string;
  limit?: number;
  types?: string[];
  /** Undefined: both stores. */
  scope?: MemoryScope;
  tags?: string[];
  /**
   * Count the hits as accesses (docs/lifecycle.md "Access"): only when they are handed to an
   * agent (LM tool, MCP, CLI) or cited in an answer. Default false: a person browsing or typing
   * in a search box never counts.
   */
  recordAccess?: boolean;
  /** Only memories created at or after / before this ISO date or date-time (search panel filters). */
  createdAfter?: string;
  createdBefore?: string;
}

/**
 * `date`: the memory matched a date the query names (1; under the min-max 'hybrid' ranking the
 * boost it got, search.dateBoost).
 */
export type SearchLeg = 'keyword' | 'vector' | 'graph' | 'date';

export interface SearchHit {
  memory: MemorySummary;
  /** The store's own ranking score (hybrid, min-max per search): orders one store's list, not comparable across queries. */
  score: number;
  /**
   * The relevance people see, 0…1: absolute (share of the query's information matched, each word
   * weighed by how rare it is in the store; cosine against the embedder's calibration), comparable
   * across queries and stores, and what each store's list is ranked by; docs/recall.md "Relevance".
   */
  relevance: number;
  /** The query's words (and quoted phrases) the memory contains, for highlighting. */
  matchedTerms: string[];
  /** Raw cosine with the query (absent without a vector leg or a vector for this memory). */
  similarity?: number;
  /** Which legs matched and their raw scores (docs/recall.md: every result says so). */
  legs: Partial<Record<SearchLeg, number>>;
  /** What the relevance is made of (docs/recall.md "Relevance"): shown on hover and in --json. */
  evidence?: SearchEvidence;
  store: StoreName;
  /** Full content (search panels and recall show it; summaries only carry a preview). */
  content: string;
  /** Which legs found it (absent from the keyword-only fallback, where it is always keyword). */
  matchType?: 'hybrid' | 'vector' | 'keyword';
}

export interface SearchResponse {
  query: string;
  hits: SearchHit[];
  /** Legs that actually ran (e.g. only 'keyword' until the vector leg is wired). */
  legsUsed: SearchLeg[];
  tookMs: number;
}

/** One version of a memory as its history recorded it (memory.versions): the record's editable fields after that change. */
export interface MemoryVersion {
  version: number;
  /** The history event that made it: created, updated, merged, restored, deleted, expired… ('current' when its history row is gone). */
  event: string;
  changedBy: string | null;
  reason: string | null;
  createdAt: string;
  /** Fields an update changed (empty for other events). */
  changed: string[];
  title: string;
  content: string;
  type: string;
  tags: string[];
  importance: number;
  scope: MemoryScope;
  expiresAt: string | null;
  /** The memory was deleted or expired by this change. */
  deleted: boolean;
}

export interface Suggestion {
  id: string;
  similarity: number;
  status: 'pending' | 'accepted' | 'rejected';
  a: MemorySummary;
  b: MemorySummary;
  createdAt: string;
}

export interface GraphNode {
  id: string;
  /** The title, or the start of the text (at most 200 graphemes): the panel shortens it and shows this on hover. */
  label: string;
  type: string;
  scope: MemoryScope;
  importance: number;
  /** Set on a memory absorbed by a merge (a tombstone drawn for its 'merged' edge): the id of the memory it went into. */
  mergedInto?: string;
}

export interface GraphEdge {
  from: string;
  to: string;
  /**
   * Stored relationship (SOLVES, SUPERSEDES, …), 'entity:<name>' (both mention a knowledge-graph entity),
   * 'shared_tag:<tag>', 'similar' (a pending consolidation suggestion; strength = its similarity) or
   * 'merged' (from the surviving memory to one it absorbed).
   */
  kind: string;
  strength: number;
}

export interface GraphParams {
  /** Centre the graph on this memory (its neighbourhood); absent = most recent memories. */
  centerId?: string;
  limit?: number;
  /**
   * graph.query only: 'entities' (default) = the knowledge graph (entities + relations);
   * 'memories' = memories linked by relationships, shared entities and tags. The entity view
   * falls back to the memory view (with a `notice`) when the graph is empty or graphEnabled is off.
   */
  mode?: 'entities' | 'memories';
  /** Entity view filters: entity types, at least this many mentions, a name substring. */
  entityTypes?: string[];
  minMentions?: number;
  search?: string;
}

export interface GraphData {
  nodes: GraphNode[];
  edges: GraphEdge[];
  truncated: boolean;
  /** Set by graph.query: this is the memory view. */
  mode?: 'memories';
  /** Why the memory view is shown instead of the entity view (graph empty, graphEnabled off). */
  notice?: string;
}

/** A knowledge-graph entity (src/core/graph) as the graph panel draws it. */
export interface EntityNode {
  id: string;
  name: string;
  type: string;
  /** How many memories mention it. */
  mentions: number;
}

export interface EntityEdge {
  id: string;
  from: string;
  to: string;
  /** Canonical relation type (uses, depends_on, …). */
  type: string;
  confidence: number;
  mentions: number;
}

export interface EntityGraphData {
  mode: 'entities';
  nodes: EntityNode[];
  edges: EntityEdge[];
  /** More entities matched the filters than `limit` (the most mentioned are shown). */
  truncated: boolean;
  /** Every entity type of the graph with its count (for the type filter), not only the shown ones. */
  types: { type: string; count: number }[];
  /** Entities in the whole graph. */
  totalEntities: number;
}

/** The answer of graph.query: the entity view, or the memory view (asked for, or the fallback). */
export type GraphView = EntityGraphData | GraphData;

/** A memory that mentions an entity (graph.entityMemories). */
export interface EntityMemory {
  id: string;
  title: string;
  preview: string;
  type: string;
  /** The text the memory used for the entity. */
  mentionText: string;
}

/**
 * One store: its counts plus the durable store's figures (op log sequence, snapshot, sizes).
 * Spelled out rather than derived from the core's StoreStats: the protocol is a fixed contract
 * that the webviews typecheck too, without Node types.
 */
export interface StoreInfo {
  dir: string;
  readOnly: boolean;
  projectId: string;
  memories: number;
  deleted: number;
  byType: Record<string, number>;
  pendingEmbeddings: number;
  seq: number;
  snapshotSeq: number;
  logBytes: number;
  snapshotBytes: number;
  schemaVersion: number;
  openMs: number;
  /** What the store can do now (docs/durability.md "Health"): ok, or why writes are refused. */
  health: StoreHealthInfo;
}

/** A store's health: `ok`, or disk full / I/O error (writes paused, resume by themselves) / read-only, with a sentence. */
export interface StoreHealthInfo {
  state: 'ok' | 'disk_full' | 'io_error' | 'read_only';
  detail: string;
  since: string;
}

export interface EngineStats {
  project: StoreInfo;
  global: StoreInfo;
  suggestionsPending: number;
}

export type PipelineState = 'off' | 'idle' | 'running' | 'degraded';

export interface PipelineStatus {
  state: PipelineState;
  mode: string;
  jobs: Record<string, number>;
  detail: string;
  /** pipeline.pause: the job workers lease nothing until pipeline.resume. */
  paused?: boolean;
  /** Full-mode proposals waiting for a person (reviews.list). */
  pendingReviews?: number;
  /** The engine runs restricted (untrusted workspace): no pipeline, no writes. */
  restricted?: boolean;
  /** Why a `degraded` pipeline does not work (hosts word it; `detail` says it for the log). */
  trouble?: PipelineTrouble;
}

/** The worker is not running; the model's calls run long or time out (since when); calls fail in a row. */
export type PipelineTrouble = { kind: 'not-running' } | { kind: 'model-slow'; since: string } | { kind: 'failing'; failures: number };

/** The pipeline modes of docs/pipeline.md (flags: memory.pipelineV2.enabled / shadowMode / allowUpdateDelete / mutationsFrozen). */
export type PipelineModeName = 'off' | 'shadow' | 'controlled' | 'full';

/**
 * A full-mode UPDATE/DELETE the contradiction detector held back: the core's pending review
 * without its internal history link and status (only pending ones are listed).
 */
export type PipelineReview = Omit<PendingReview, 'historyId' | 'status'>;

/** A change the pipeline applied to a memory (memory_history row), undo-able with history.undo. */
export interface PipelineChange {
  historyId: string;
  memoryId: string;
  event: 'created' | 'updated' | 'deleted';
  changedBy: string;
  reason: string | null;
  oldContent: string | null;
  newContent: string | null;
  createdAt: string;
}

/** pipeline.diagnostics: maintenance health (src/core/maintenance) plus the providers in use. */
export interface PipelineDiagnostics {
  status: PipelineStatus;
  health: {
    score: number;
    queue: { total: number; pending: number; leased: number; dead: number; deadRate: number; staleLeases: number };
    index: { ftsRows: number; memoryRows: number; activeMemories: number; consistent: boolean };
    storage: { tombstones: number; total: number; tombstoneRatio: number };
    at: string;
  };
  /** Completed jobs (health.queue counts only those still in the table). */
  completedJobs: number;
  embedder?: { provider: string; space: string; reason: string; degraded: boolean };
  /** The pipeline's LLM: Ollama reachable, model installed (checked without pulling). */
  llm: { provider: 'ollama'; url: string; model: string; reachable: boolean; modelPresent: boolean; error?: string };
}

/** suggestions.preview: the merged title and text accept would write into A, and both memories in full. */
export interface SuggestionPreview {
  id: string;
  similarity: number;
  title: string;
  content: string;
  strategy: 'latest_wins' | 'append' | 'smart_merge';
  a: MemoryRecord;
  b: MemoryRecord;
}

export interface DocumentIngestResult {
  documentId: string;
  status: 'pending' | 'extracting' | 'chunking' | 'embedding' | 'indexing' | 'done' | 'failed';
  chunkCount: number;
  memoryIds: string[];
  error: string | null;
  /** The file was ingested before with the same text: nothing was added. */
  unchanged?: boolean;
  /** Chunk memories this ingest added, and those of the earlier ingest of the file it removed. */
  added?: number;
  removed?: number;
  /** The file as recorded: relative to the workspace root when inside it. */
  source?: string;
  title?: string;
  /** Kinds of credential replaced by `[redacted: <kind>]` in the stored text (docs/secrets.md). */
  redacted?: import('../core/secrets/rules').SecretKind[];
}

export interface ConfigSummary {
  /** The agent.yaml that was read, if any. */
  file?: string;
  /** Keys whose value comes from host settings. */
  overridden: string[];
  issues: { severity: 'error' | 'warning'; key: string; message: string; source?: string }[];
}

export interface EngineDiagnostics {
  protocolVersion: number;
  projectId: string;
  projectIdKind: string;
  workspaceRoot?: string;
  node: string;
  uptimeMs: number;
  openMs: number;
  stats: EngineStats;
  pipeline: PipelineStatus;
  config: ConfigSummary;
  warnings: string[];
  /** The embedder in use (provider, embedding space, why it was chosen). */
  embedder?: { provider: string; space: string; reason: string; degraded: boolean };
}

/** JSONL (default: header line + one memory per line, src/engine/transferFormat.ts) or the older JSON ExportFile. */
export type ExportFormat = 'jsonl' | 'json';

/** A JSON export file (Agent Memory: Export). */
export interface ExportFile {
  format: 'agent-memory-export';
  version: 1;
  exportedAt: string;
  projectId: string;
  memories: MemoryRecord[];
}

export interface ImportResult {
  total: number;
  created: number;
  duplicates: number;
  skipped: number;
  /** `line`: 1-based line of a JSONL file; `index`: item position (JSON) or line position. */
  errors: { index: number; line?: number; message: string }[];
  /** Imported, with something the user should know (an unreadable date replaced by today's). */
  warnings?: { index: number; line?: number; message: string }[];
  /** Which format the file was read as. */
  format?: 'jsonl' | 'json';
}

export interface ReadyInfo {
  protocolVersion: number;
  projectId: string;
  openMs: number;
  warnings: string[];
  /**
   * What the engine runs with when the connection is made: the explicit settings (agent.yaml keys:
   * its window's, or the last config.reload's), the folder whose agent.yaml it reads, the pipeline
   * mode. A window compares them with its own (src/extension/host/ownerSettings.ts).
   */
  config?: RunningConfig;
}

export interface RunningConfig {
  settings: Record<string, unknown>;
  workspaceRoot?: string;
  mode: PipelineModeName;
  /** Who runs it: the owner's purpose ("VS Code window (pid 123)", "agent-memory mcp (pid 456)"). */
  owner?: string;
}

// ── Requests: method name → params and result ───────────────────────────────────────────────

/**
 * Schedules (scheduleProtocol.ts), agent sessions (sessionsProtocol.ts), the change feed and
 * webhooks (changesProtocol.ts), team memory (teamProtocol.ts).
 */
export interface EngineMethods extends ScheduleMethods, SessionMethods, ChangeMethods, TeamMethods {
  /** Through the smart store (docs/consolidation.md): may merge into an existing memory (status duplicate, action merged). */
  'memory.create': { params: CreateMemoryInput; result: CreateMemoryResult };
  'memory.get': { params: { id: string; includeDeleted?: boolean }; result: MemoryRecord | null };
  'memory.list': { params: ListOptions; result: ListResult };
  /** `redacted`: kinds of credential the secret guard replaced in the edit (docs/secrets.md). */
  'memory.update': { params: { id: string; patch: UpdateMemoryInput }; result: UpdatedMemory };
  /** Soft delete; `who` (default "user") and `reason` are kept in the history. */
  'memory.delete': { params: { id: string; reason?: string; who?: string }; result: MemoryRecord };
  /** Undoes a delete or an expiry (an expired memory gets a fresh lifetime, docs/lifecycle.md). */
  'memory.restore': { params: { id: string }; result: MemoryRecord };
  /** Recently deleted and expired memories, restorable until the retention sweep purges them; most recent first. */
  'memory.listRemoved': { params: { reason?: RemovedReason; offset?: number; limit?: number }; result: RemovedList };
  /** A deliberate use: a person opened these memories or an answer cited them (docs/lifecycle.md "Access"). */
  'memory.recordAccess': { params: { ids: string[] }; result: { recorded: number } };
  'memory.history': { params: { id: string }; result: HistoryEntry[] };
  /** The memory's versions, oldest first (src/engine/worker/services/versions.ts); deleted memories too. */
  'memory.versions': { params: { id: string }; result: MemoryVersion[] };
  /** Writes an old version's text and fields back as a new version (history: updated, "restored version N"). */
  'memory.restoreVersion': { params: { id: string; version: number; expectedVersion?: number }; result: MemoryRecord };
  /** Manual promote (docs/lifecycle.md): TTL removed, permanent. */
  'memory.promote': { params: { id: string }; result: MemoryRecord };
  /** Counts per type over both stores (the tree's groups). */
  'memory.typeCounts': { params: { scope?: MemoryScope }; result: Record<string, number> };
  /** Counts per tag over both stores, and how many memories have no tag (the tree's tag groups). */
  'memory.tagCounts': { params: { scope?: MemoryScope }; result: { tags: Record<string, number>; untagged: number } };
  /** Memories without any tag, newest first, project store then global (the tree's "untagged" group). */
  'memory.listUntagged': { params: { offset?: number; limit?: number }; result: ListResult };
  search: { params: SearchParams; result: SearchResponse };
  'suggestions.list': { params: { status?: 'pending' | 'accepted' | 'rejected'; limit?: number }; result: Suggestion[] };
  'suggestions.accept': { params: { id: string }; result: MemoryRecord };
  'suggestions.reject': { params: { id: string }; result: { id: string } };
  /** What accepting would write into A (nothing is written). */
  'suggestions.preview': { params: { id: string }; result: SuggestionPreview };
  /** Undoes an accepted suggestion: A as before the merge, B live again, the suggestion pending. */
  'suggestions.undo': { params: { id: string }; result: { memory: MemoryRecord; restored: MemoryRecord } };
  /** Runs the dedup scanner now (it also runs every memory.dedup_scan_interval): suggestions created. */
  'suggestions.scan': { params: Record<string, never>; result: { created: number } };
  /** Rejects every pending suggestion. */
  'suggestions.clear': { params: Record<string, never>; result: { cleared: number } };
  'graph.query': { params: GraphParams; result: GraphView };
  /** The memories mentioning one entity of the knowledge graph, newest first. */
  'graph.entityMemories': { params: { entityId: string; limit?: number }; result: { entity: EntityNode; memories: EntityMemory[] } };
  stats: { params: Record<string, never>; result: EngineStats };
  /** Whether each store is encrypted at rest, and where the key is kept (docs/encryption.md). */
  'encryption.status': { params: Record<string, never>; result: EncryptionStatus };
  /** Encrypts the stores this engine owns (crash-safely, verified); `keyFile`: keep the key in a 0600 file where no keychain answers. */
  'encryption.enable': { params: { keyFile?: boolean; scope?: MemoryScope }; result: EncryptionStatus };
  /** Writes the stores this engine owns plain again. */
  'encryption.disable': { params: { scope?: MemoryScope }; result: EncryptionStatus };
  /** A new user key; every encrypted store's data key rewrapped under it. */
  'encryption.rotate': { params: { keyFile?: boolean }; result: EncryptionStatus };
  /** The recovery key that opens the encrypted stores on another machine. */
  'encryption.exportRecoveryKey': {
    params: Record<string, never>;
    result: { recoveryKey: string; userKeyId: string; stores: StoreName[] };
  };
  diagnostics: { params: Record<string, never>; result: EngineDiagnostics };
  'pipeline.status': { params: Record<string, never>; result: PipelineStatus };
  /** Rebuilds the full-text index (and, once wired, the vector index). */
  'index.rebuild': { params: Record<string, never>; result: { memories: number } };
  /** Queues every live memory without a vector in the active embedding space for the background embedder. */
  'embeddings.reembed': { params: Record<string, never>; result: { queued: number } };
  /** Writes both stores' live memories to a file: JSONL (default; .json paths get the older JSON format unless `format` says otherwise). */
  export: { params: { path: string; scope?: MemoryScope; format?: ExportFormat }; result: { path: string; count: number; bytes: number } };
  /** Reads a JSONL export, a JSON export or a plain array of {content,…} and creates its memories (bad lines reported, never fatal). */
  import: { params: { path: string }; result: ImportResult };
  'config.reload': { params: { settings?: Record<string, unknown> }; result: ConfigSummary };
  /** Scan Memories for Secrets (docs/secrets.md): what the stores hold; with `redact`, redacted everywhere and compacted. */
  'secrets.scan': { params: { redact?: boolean }; result: SecretScanReport };
  /** Snapshot both stores now. */
  'engine.snapshot': { params: Record<string, never>; result: { project: number; global: number } };
  /**
   * Clean shutdown: snapshot + release the locks. The worker exits after answering. An owner first
   * tells its clients it goes away on purpose (owner.leaving), `restarting` when it comes back.
   */
  'engine.shutdown': { params: { restarting?: boolean }; result: { snapshotted: boolean } };
  /** Stop / start leasing pipeline jobs (this engine; the VS Code host remembers it per workspace across restarts). */
  'pipeline.pause': { params: Record<string, never>; result: PipelineStatus };
  'pipeline.resume': { params: Record<string, never>; result: PipelineStatus };
  /**
   * Applies a mode's flags as settings overrides of this engine (config layer) now; the VS Code
   * host also writes them to the workspace settings so they survive a restart.
   */
  'pipeline.setMode': {
    params: { mode: PipelineModeName };
    result: { mode: PipelineModeName; settings: Record<string, boolean>; status: PipelineStatus };
  };
  'pipeline.diagnostics': { params: Record<string, never>; result: PipelineDiagnostics };
  'reviews.list': { params: { limit?: number }; result: PipelineReview[] };
  'reviews.approve': { params: { id: string }; result: { status: 'updated' | 'deleted' | 'stale'; historyId?: string; reason?: string } };
  'reviews.reject': { params: { id: string }; result: { id: string } };
  /** Recent changes the pipeline (or an approved review) applied to memories, newest first. */
  'history.pipelineChanges': { params: { limit?: number }; result: PipelineChange[] };
  /** Undoes one applied change from its history id (refused when the memory changed since). */
  'history.undo': {
    params: { historyId: string };
    result: { memoryId: string; undone: 'created' | 'updated' | 'deleted'; memory: MemoryRecord };
  };
  /** Ingests a text file as a document (chunked into document_chunk memories); waits for the job, with progress. */
  'documents.ingest': { params: { path: string; title?: string; wait?: boolean }; result: DocumentIngestResult };
  /** Test hook (EngineInit.allowDebug): crash the worker thread, or hang until cancelled. */
  'debug.crash': { params: { how: 'throw' | 'exit' }; result: never };
  'debug.hang': { params: Record<string, never>; result: { cancelled: boolean } };
}

export type EngineMethod = keyof EngineMethods;
export type ParamsOf<M extends EngineMethod> = EngineMethods[M]['params'];
export type ResultOf<M extends EngineMethod> = EngineMethods[M]['result'];

/** What Scan Memories for Secrets found per store; `removedFiles`: old copies the compaction removed. */
export interface SecretScanReport {
  redact: boolean;
  stores: (SecretScanResult & { store: StoreName; removedFiles: number })[];
}

/** Methods that only read: the client retries them once across an engine restart. */
export const READ_ONLY_METHODS: ReadonlySet<EngineMethod> = new Set<EngineMethod>([
  'memory.get',
  'memory.list',
  'memory.history',
  'memory.versions',
  'memory.typeCounts',
  'memory.tagCounts',
  'memory.listUntagged',
  'memory.listRemoved',
  'search',
  'suggestions.list',
  'suggestions.preview',
  'graph.query',
  'graph.entityMemories',
  'stats',
  'encryption.status',
  'diagnostics',
  'pipeline.status',
  ...CHANGE_READ_METHODS,
  ...SCHEDULE_READ_METHODS,
  ...TEAM_READ_METHODS,
  'sessions.list',
  'sessions.get',
  'sessions.events',
  'sessions.restore',
  'sessions.search',
  'sessions.summary',
  'scratchpad.read',
  'notes.list',
  'recall',
]);

/**
 * memory.create params carry `metadata[IDEMPOTENCY_KEY]` (EngineClient adds one): stored with
 * the memory, it lets the engine answer a retried create with the memory it already made.
 */
export const IDEMPOTENCY_KEY = 'idempotencyKey';

/**
 * `metadata[IDEMPOTENCY_RETRY] = true` marks a create sent again after its engine went away
 * (EngineClient, server/globalRoute.ts): only then does the engine look for it among the
 * memories a merge absorbed (server/idempotency.ts). Never stored.
 */
export const IDEMPOTENCY_RETRY = 'idempotencyRetry';

/** The same create, marked as sent again. */
export function asRetry(params: CreateMemoryInput): CreateMemoryInput {
  return { ...params, metadata: { ...params.metadata, [IDEMPOTENCY_RETRY]: true } };
}

// ── Events ──────────────────────────────────────────────────────────────────────────────────

/** `expired`: the expiry sweep soft-deleted short-term memories (restorable, memory.listRemoved). */
export type MemoryChangeKind =
  'created' | 'updated' | 'deleted' | 'expired' | 'restored' | 'promoted' | 'merged' | 'imported' | 'reindexed';

/** Where a store's background re-embedding stands. */
export type ReembedState = 'running' | 'switched' | 'failed' | 'cancelled';

export type EngineEvent =
  | { type: 'memory.changed'; kind: MemoryChangeKind; ids: string[]; store: StoreName | 'both' }
  | { type: 'progress'; requestId: number; title: string; done: number; total: number; message?: string }
  | { type: 'warning'; message: string }
  /** A line for the log that is no warning: the built-in model loaded, or was released while idle. */
  | { type: 'log'; message: string }
  | { type: 'pipeline.state'; status: PipelineStatus }
  /**
   * The owner of the store goes away on purpose (Restart Engine in its window: `restarting`; the
   * window closing): sent to its clients just before it closes their connections, so they reconnect
   * at once and say so, instead of treating the closed connection as a crash. `owner`: its purpose
   * ("VS Code window (pid 123)").
   */
  | { type: 'owner.leaving'; owner: string; restarting: boolean }
  /** Consolidation suggestions were found (a dedup scan: `created`), rejected or cleared: the Suggestions views list them again. */
  | { type: 'suggestions.changed'; store: StoreName; created?: number }
  | { type: 'snapshot'; store: StoreName; seq: number }
  /** An agent session changed: events logged, summary or scratchpad written, notes changed, or forgotten. */
  | { type: 'sessions.changed'; sessionId: string; kind: 'logged' | 'summary' | 'scratchpad' | 'notes' | 'forgotten' }
  | { type: 'store.health'; store: StoreName; health: StoreHealthInfo }
  /** New changes in a store's feed (docs/changes.md): `cursor` is the newest one. */
  | { type: 'changes.appended'; store: StoreName; cursor: number }
  /** A webhook delivery was attempted (delivered, failed and due again, or dead): the Webhooks view lists it. */
  | { type: 'webhooks.delivery'; delivery: WebhookDelivery }
  /** The webhooks in use were set up again (opened, configuration reloaded, a secret made): the Webhooks view lists them again. */
  | { type: 'webhooks.changed'; count: number }
  /** Background re-embedding after `embedding.*` changed: search keeps the old space until `switched`. */
  | { type: 'embeddings.progress'; store: StoreName; space: string; done: number; total: number; state: ReembedState }
  | ScheduleEvent
  | TeamEvent;

// ── Errors ──────────────────────────────────────────────────────────────────────────────────

/**
 * Error codes: the closed catalogue of src/core/util/errorCatalogue.ts (codes of the core, the
 * engine and the client side of the port, each with its message template).
 */
export type EngineErrorCode = ErrorCode;

export interface EngineErrorPayload {
  code: EngineErrorCode;
  /** A sentence a person can read (shown as it is in notifications). */
  message: string;
  /** Extra detail for the log (stack of an internal error). */
  detail?: string;
}

// ── Messages on the port ────────────────────────────────────────────────────────────────────

export interface RequestMessage<M extends EngineMethod = EngineMethod> {
  kind: 'request';
  id: number;
  method: M;
  params: ParamsOf<M>;
}

export interface CancelMessage {
  kind: 'cancel';
  id: number;
}

/** Sent by the client while the engine starts: a request that embeds text waits (the engine loads its embedder meanwhile). */
export interface PrepareMessage {
  kind: 'prepare';
}

export type ToEngineMessage = RequestMessage | CancelMessage | PrepareMessage;

export interface ReadyMessage {
  kind: 'ready';
  info: ReadyInfo;
}

export type ResponseMessage =
  { kind: 'response'; id: number; ok: true; result: unknown } | { kind: 'response'; id: number; ok: false; error: EngineErrorPayload };

export interface EventMessage {
  kind: 'event';
  event: EngineEvent;
}

/** The engine could not start (store locked by another process, corrupt, …). */
export interface FatalMessage {
  kind: 'fatal';
  error: EngineErrorPayload;
}

export type FromEngineMessage = ReadyMessage | ResponseMessage | EventMessage | FatalMessage;
