/**
 * CONFIG_SCHEMA: the one declarative table of every configuration key (path, type, default,
 * range or allowed values, unit, description). Parsing, validation, the README reference
 * and the VS Code settings are all derived from it.
 */
import type {
  BooleanSpec,
  ByteSizeSpec,
  ConfigKeySpec,
  ConfigUnit,
  DurationSpec,
  EnumSpec,
  IntegerSpec,
  NumberSpec,
  StringSpec,
  UrlSpec,
  WebhooksSpec,
} from './specTypes.js';
import type { ConfigKey, ConfigShape, ValueAt, WebhookEndpointConfig } from './types.js';
import { DEFAULT_SECRET_POLICY, SECRET_POLICIES } from '../secrets/policy.js';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const KIB = 1024;
const MIB = 1024 * KIB;
const GIB = 1024 * MIB;

/** Default base URL of a local Ollama server (always with a port: the client reads no port as 80). */
export const DEFAULT_OLLAMA_URL = 'http://127.0.0.1:11434';

type V<P extends ConfigKey> = ValueAt<ConfigShape, P>;
/** Keys whose value type is exactly T. */
type KeyOf<T> = { [P in ConfigKey]: [V<P>] extends [T] ? ([T] extends [V<P>] ? P : never) : never }[ConfigKey];
/** Keys whose value type is a union of string literals. */
type EnumKey = { [P in ConfigKey]: V<P> extends string ? (string extends V<P> ? never : P) : never }[ConfigKey];

interface Range {
  default: number;
  min: number;
  max: number;
}

function bool<P extends KeyOf<boolean>>(path: P, def: boolean, description: string): BooleanSpec<P> {
  return { path, type: 'boolean', default: def, description };
}
function int<P extends KeyOf<number>>(path: P, r: Range & { unit: ConfigUnit }, description: string): IntegerSpec<P> {
  return { path, type: 'integer', ...r, description };
}
function num<P extends KeyOf<number>>(path: P, r: Range & { unit: ConfigUnit }, description: string): NumberSpec<P> {
  return { path, type: 'number', ...r, description };
}
function fraction<P extends KeyOf<number>>(path: P, def: number, description: string): NumberSpec<P> {
  return { path, type: 'number', default: def, min: 0, max: 1, unit: 'fraction', description };
}
function ms<P extends KeyOf<number>>(path: P, r: Range, description: string): DurationSpec<P> {
  return { path, type: 'duration', ...r, unit: 'ms', description };
}
function seconds<P extends KeyOf<number>>(path: P, r: Range, description: string): DurationSpec<P> {
  return { path, type: 'duration', ...r, unit: 's', description };
}
function bytes<P extends KeyOf<number>>(path: P, r: Range, description: string): ByteSizeSpec<P> {
  return { path, type: 'bytes', ...r, unit: 'bytes', description };
}
function str<P extends KeyOf<string>>(path: P, def: string, opts: { allowEmpty: boolean }, description: string): StringSpec<P> {
  return { path, type: 'string', default: def, allowEmpty: opts.allowEmpty, maxLength: 200, description };
}
function oneOf<P extends EnumKey>(path: P, values: readonly V<P>[], def: V<P>, description: string): EnumSpec<P> {
  return { path, type: 'enum', values, default: def, description };
}
function url<P extends KeyOf<string>>(path: P, def: string, description: string): UrlSpec<P> {
  return { path, type: 'url', default: def, description };
}

function webhookList<P extends KeyOf<WebhookEndpointConfig[]>>(path: P, description: string): WebhooksSpec<P> {
  return { path, type: 'webhooks', default: [], description };
}

const P = 'memory.pipelineV2';

const ENTRIES = [
  // ── memory.pipelineV2: flags (docs/pipeline.md "Modes") ──────────────────────────────────
  bool(`${P}.enabled`, false, 'Master switch of the background extraction pipeline. When false, no extraction jobs are processed.'),
  bool(`${P}.shadowMode`, false, 'Run extraction and decisions and record every proposal to memory history, but write no facts.'),
  bool(
    `${P}.allowUpdateDelete`,
    false,
    'Full mode: apply UPDATE (the old version stays in history) and DELETE (soft delete) decisions to existing memories. Proposals the contradiction detector flags wait for review; every applied change can be undone.',
  ),
  bool(`${P}.graphEnabled`, false, 'Persist extracted entity triples to the knowledge graph and allow graph-boosted search.'),
  bool(`${P}.autonomousEnabled`, false, 'Run the maintenance worker (diagnostics and optional self-repair) on its interval.'),
  bool(`${P}.mutationsFrozen`, false, 'Emergency brake: disables all pipeline writes even when shadowMode is false.'),
  bool(`${P}.autonomousFrozen`, false, "Stops the maintenance worker's scheduled interval even when autonomousEnabled is true."),

  // ── extraction / LLM ────────────────────────────────────────────────────────────────────
  str(`${P}.extractionModel`, 'qwen3:4b', { allowEmpty: false }, 'Ollama model used for fact extraction and decisions.'),
  ms(`${P}.extractionTimeout`, { default: 45 * SECOND, min: 5 * SECOND, max: 300 * SECOND }, 'Timeout of one LLM generate call.'),
  url(`${P}.ollamaUrl`, DEFAULT_OLLAMA_URL, 'Base URL of the Ollama server used by the pipeline (include the port).'),

  // ── worker ──────────────────────────────────────────────────────────────────────────────
  ms(`${P}.workerPollMs`, { default: 2 * SECOND, min: 100, max: MINUTE }, 'Extraction worker tick interval when there are no failures.'),
  int(
    `${P}.workerMaxRetries`,
    { default: 3, min: 1, max: 10, unit: 'count' },
    'Attempts before a job is moved to the dead state (extraction and document jobs).',
  ),
  ms(
    `${P}.leaseTimeoutMs`,
    { default: 5 * MINUTE, min: 10 * SECOND, max: 10 * MINUTE },
    'A leased job older than this is considered stale and returned to pending.',
  ),

  // ── controlled writes ───────────────────────────────────────────────────────────────────
  fraction(
    `${P}.minFactConfidenceForWrite`,
    0.7,
    'Extracted facts below this confidence are not written (skipped as low_fact_confidence).',
  ),

  // ── knowledge graph ─────────────────────────────────────────────────────────────────────
  fraction(`${P}.graphBoostWeight`, 0.15, 'Score added to results linked to the query through the knowledge graph.'),
  ms(
    `${P}.graphBoostTimeoutMs`,
    { default: 500, min: 50, max: 5 * SECOND },
    'Deadline of the graph-boost lookup; on timeout the partial result is used.',
  ),

  // ── reranking ───────────────────────────────────────────────────────────────────────────
  bool(`${P}.rerankerEnabled`, false, 'Rerank the top results of hybrid search with a reranking model.'),
  str(`${P}.rerankerModel`, '', { allowEmpty: true }, 'Model used by the reranker (empty: the provider default).'),
  int(
    `${P}.rerankerTopN`,
    { default: 20, min: 1, max: 100, unit: 'count' },
    'How many top results are passed to the reranker; the rest keep their order.',
  ),
  ms(
    `${P}.rerankerTimeoutMs`,
    { default: 2 * SECOND, min: 100, max: 30 * SECOND },
    'Reranker deadline; on timeout or error the original order is kept.',
  ),

  // ── query expansion ─────────────────────────────────────────────────────────────────────
  bool(
    `${P}.queryExpansionEnabled`,
    false,
    "Search also with other wordings of each query from the pipeline's model (Ollama); slower, finds memories worded differently.",
  ),
  ms(
    `${P}.queryExpansionTimeoutMs`,
    { default: 1500, min: 100, max: 30 * SECOND },
    'Query expansion deadline; on timeout or error the query is searched as written, and expansion pauses for a minute.',
  ),

  // ── maintenance ─────────────────────────────────────────────────────────────────────────
  ms(`${P}.maintenanceIntervalMs`, { default: 30 * MINUTE, min: MINUTE, max: DAY }, 'Interval between maintenance cycles.'),
  oneOf(
    `${P}.maintenanceMode`,
    ['observe', 'execute'],
    'observe',
    'observe: log repair recommendations only; execute: run them (rate limited).',
  ),
  ms(`${P}.repairReembedCooldownMs`, { default: 5 * MINUTE, min: 10 * SECOND, max: HOUR }, 'Minimum time between two re-embed repairs.'),
  int(`${P}.repairReembedHourlyBudget`, { default: 10, min: 1, max: 1000, unit: 'count' }, 'Maximum re-embed repairs per hour.'),
  ms(`${P}.repairRequeueCooldownMs`, { default: MINUTE, min: 5 * SECOND, max: HOUR }, 'Minimum time between two dead-job requeue repairs.'),
  int(`${P}.repairRequeueHourlyBudget`, { default: 50, min: 1, max: 1000, unit: 'count' }, 'Maximum dead-job requeue repairs per hour.'),

  // ── documents ───────────────────────────────────────────────────────────────────────────
  ms(`${P}.documentWorkerIntervalMs`, { default: 10 * SECOND, min: SECOND, max: 300 * SECOND }, 'Document ingest worker tick interval.'),
  int(`${P}.documentChunkSize`, { default: 2000, min: 200, max: 50_000, unit: 'chars' }, 'Size of each document chunk.'),
  int(
    `${P}.documentChunkOverlap`,
    { default: 200, min: 0, max: 10_000, unit: 'chars' },
    'Characters each chunk shares with the previous one (must be less than documentChunkSize).',
  ),
  bytes(`${P}.documentMaxContentBytes`, { default: 10 * MIB, min: KIB, max: 100 * MIB }, 'Maximum size of a fetched document.'),

  // ── retention ───────────────────────────────────────────────────────────────────────────
  ms(`${P}.retentionIntervalMs`, { default: 6 * HOUR, min: MINUTE, max: 7 * DAY }, 'Interval between retention sweeps.'),
  ms(
    `${P}.tombstoneRetentionMs`,
    { default: 30 * DAY, min: HOUR, max: 3650 * DAY },
    'Soft-deleted memories older than this are purged (with their embeddings and graph links).',
  ),
  ms(
    `${P}.historyRetentionMs`,
    { default: 180 * DAY, min: HOUR, max: 3650 * DAY },
    'Memory history (audit) rows older than this are purged.',
  ),
  ms(
    `${P}.completedJobRetentionMs`,
    { default: 14 * DAY, min: HOUR, max: 3650 * DAY },
    'Completed pipeline jobs older than this are purged.',
  ),
  ms(`${P}.deadJobRetentionMs`, { default: 30 * DAY, min: HOUR, max: 3650 * DAY }, 'Dead pipeline jobs older than this are purged.'),

  // ── memory lifecycle and consolidation (docs/lifecycle.md, docs/consolidation.md) ────────────
  seconds('memory.default_ttl', { default: 86_400, min: 60, max: 365 * 86_400 }, 'Time to live of a new short-term memory, in seconds.'),
  int(
    'memory.promote_access_count',
    { default: 5, min: 1, max: 1000, unit: 'count' },
    'Access count at which a short-term memory is promoted to permanent.',
  ),
  fraction('memory.promote_importance', 0.8, 'Memories stored with at least this importance are permanent (no TTL).'),
  num(
    'memory.ttl_extend_factor',
    { default: 0.5, min: 0, max: 10, unit: 'factor' },
    'On each access the TTL is extended by this fraction of the original TTL (0 disables).',
  ),
  ms('memory.cleanup_interval', { default: 5 * MINUTE, min: 10 * SECOND, max: DAY }, 'How often expired short-term memories are removed.'),
  bool('memory.normalize_project_id', true, 'Resolve project ids to a VCS-agnostic canonical form (remote URL, worktrees, overrides).'),
  fraction('memory.similarity_threshold', 0.75, 'Minimum similarity for a consolidation suggestion.'),
  fraction(
    'memory.auto_merge_threshold',
    0.92,
    "Minimum similarity for merging an automatic write (an agent's save, a capture) into an existing memory; a person's own save is kept, with a merge suggestion (must be at least similarity_threshold).",
  ),
  ms('memory.dedup_scan_interval', { default: HOUR, min: MINUTE, max: 7 * DAY }, 'How often the background duplicate scanner runs.'),
  oneOf('memory.merge_strategy', ['latest_wins', 'append', 'smart_merge'], 'smart_merge', 'How merged memories are combined.'),

  // ── secrets (docs/secrets.md) ─────────────────────────────────────────────────────────────
  oneOf(
    'memory.secret_policy',
    SECRET_POLICIES,
    DEFAULT_SECRET_POLICY,
    'What a write does with a credential in its text (API keys, tokens, private keys, passwords): redact replaces each with [redacted: <kind>] and says so, refuse skips the write, allow stores it as written.',
  ),

  // ── search ──────────────────────────────────────────────────────────────────────────────
  // 0.5/0.5 rather than 0.7/0.3: with the offline embedder the vector leg is the weaker one
  // (measured on LoCoMo: bench/locomo/RESULTS.md).
  fraction('search.vector_weight', 0.5, 'Weight of vector similarity in hybrid search (scores are min-max normalized per query).'),
  fraction('search.keyword_weight', 0.5, 'Weight of keyword (BM25) matching in hybrid search.'),
  int('search.default_limit', { default: 20, min: 1, max: 1000, unit: 'count' }, 'Results returned when the caller gives no limit.'),
  int('search.max_limit', { default: 100, min: 1, max: 1000, unit: 'count' }, 'Largest limit a caller may ask for.'),
  fraction('search.min_score', 0, 'Results below this combined score are dropped.'),

  // ── embedding ───────────────────────────────────────────────────────────────────────────
  oneOf(
    'embedding.provider',
    ['auto', 'ollama', 'builtin', 'hash'],
    'auto',
    'auto: Ollama when reachable, else the built-in offline model; hash: deterministic feature hashing (tests, minimal installs).',
  ),
  str('embedding.model', 'nomic-embed-text', { allowEmpty: false }, 'Ollama embedding model.'),
  url('embedding.ollama_url', DEFAULT_OLLAMA_URL, 'Base URL of the Ollama server used for embeddings (include the port).'),

  // ── vector index (HNSW) ─────────────────────────────────────────────────────────────────
  int('vector.M', { default: 16, min: 4, max: 64, unit: 'count' }, 'HNSW links per node. Changing it rebuilds the index.'),
  int(
    'vector.efConstruction',
    { default: 100, min: 10, max: 1000, unit: 'count' },
    'HNSW build-time candidate list size. Changing it rebuilds the index.',
  ),
  int(
    'vector.efSearch',
    { default: 50, min: 10, max: 1000, unit: 'count' },
    'HNSW query-time candidate list size (higher: better recall, slower).',
  ),

  // ── store (operation log + snapshots) ───────────────────────────────────────────────────
  bytes(
    'store.snapshotLogBytes',
    { default: 8 * MIB, min: 64 * KIB, max: GIB },
    'Take a snapshot when the operation log grows beyond this size.',
  ),
  ms(
    'store.snapshotIdleMs',
    { default: 30 * SECOND, min: SECOND, max: HOUR },
    'Take a snapshot after this long without writes (if the log is not empty).',
  ),
  ms(
    'store.snapshotMaxAgeMs',
    { default: 10 * MINUTE, min: 10 * SECOND, max: DAY },
    'Take a snapshot when the oldest unsnapshotted write is older than this.',
  ),

  // ── webhooks (docs/changes.md) ──────────────────────────────────────────────────────────
  webhookList(
    'webhooks.endpoints',
    'Where changes of memories are sent: each webhook has a name, an http(s) URL and the change types it receives (default: all). Deliveries start once its signing secret exists (agent-memory webhooks secret NAME).',
  ),
  ms('webhooks.timeout', { default: 10 * SECOND, min: 200, max: 2 * MINUTE }, 'How long one delivery attempt may take, answer included.'),
  int(
    'webhooks.maxAttempts',
    { default: 8, min: 1, max: 50, unit: 'count' },
    'Attempts before a delivery is given up (dead); failed ones are listed and can be retried.',
  ),
  ms(
    'webhooks.retryDelay',
    { default: 30 * SECOND, min: 100, max: HOUR },
    'Wait before the first retry of a failed delivery; it doubles with every further attempt.',
  ),
  ms('webhooks.maxRetryDelay', { default: HOUR, min: SECOND, max: DAY }, 'The longest wait between two attempts of a delivery.'),

  // ── team memory (docs/team.md) ───────────────────────────────────────────────────────────
  str(
    'team.host',
    '',
    { allowEmpty: true },
    'Host name of the PostgreSQL server this project shares its memory through; empty: not shared. The password is kept in the keychain, never here.',
  ),
  int('team.port', { default: 5432, min: 1, max: 65535, unit: 'count' }, 'Port of the team memory server.'),
  str('team.database', '', { allowEmpty: true }, 'Database on the team memory server.'),
  str(
    'team.user',
    '',
    { allowEmpty: true },
    'Role this machine signs in to the team memory server as (an ordinary role: no superuser needed).',
  ),
  str('team.schema', '', { allowEmpty: true }, "Schema of this project on the server; empty: made from the project's id."),
  oneOf(
    'team.tls',
    ['verify-full', 'disable'],
    'verify-full',
    "TLS to the server: verify-full checks the server's certificate and name; disable sends everything in the clear (only for a server on this machine).",
  ),
  str(
    'team.caFile',
    '',
    { allowEmpty: true },
    "A file with the certificate authority that signed the server's certificate; empty: the system's.",
  ),
  str(
    'team.certFile',
    '',
    { allowEmpty: true },
    'A client certificate (PEM) to sign in with instead of a password, when the server asks for one; its private key is kept in the keychain, never here.',
  ),
  str(
    'team.author',
    '',
    { allowEmpty: true },
    "Your name on the team, recorded with every change you push; empty: this computer's user name.",
  ),
  ms(
    'team.syncInterval',
    { default: 30 * SECOND, min: SECOND, max: HOUR },
    'How often to pull changes from the team server when nothing changed here.',
  ),
];

// Compile-time check: every leaf of ConfigShape has an entry.
type Missing = Exclude<ConfigKey, (typeof ENTRIES)[number]['path']>;
const everyKeyHasAnEntry: [Missing] extends [never] ? true : { missing: Missing } = true;
void everyKeyHasAnEntry;

/** The configuration table, in documentation order. */
export const CONFIG_SCHEMA: readonly ConfigKeySpec[] = Object.freeze(ENTRIES.map((e) => Object.freeze(e)));

const BY_PATH: ReadonlyMap<string, ConfigKeySpec> = new Map(CONFIG_SCHEMA.map((s) => [s.path, s]));

/** The dotted paths of all sections (objects), e.g. 'memory', 'memory.pipelineV2'. */
export const CONFIG_SECTIONS: readonly string[] = Object.freeze([
  ...new Set(
    CONFIG_SCHEMA.flatMap((s) =>
      s.path
        .split('.')
        .slice(0, -1)
        .map((_, i, parts) => parts.slice(0, i + 1).join('.')),
    ),
  ),
]);
const SECTION_SET: ReadonlySet<string> = new Set(CONFIG_SECTIONS);

export function specFor(path: string): ConfigKeySpec | undefined {
  return BY_PATH.get(path);
}

export function isSection(path: string): boolean {
  return SECTION_SET.has(path);
}
