/**
 * Types of the resolved configuration and of the issues found while resolving it.
 * The shape here is the single source of truth for key paths: the schema table
 * (schema.ts) is checked against it at compile time.
 */
import type { SecretPolicy } from '../secrets/policy';

import type { WebhookEndpointConfig } from './changeTypes.js';

export type { WebhookEndpointConfig } from './changeTypes.js';
export type MaintenanceMode = 'observe' | 'execute';
export type MergeStrategy = 'latest_wins' | 'append' | 'smart_merge';
export type { SecretPolicy } from '../secrets/policy';
export type EmbeddingProviderName = 'auto' | 'ollama' | 'builtin' | 'hash';
export type PipelineMode = 'off' | 'shadow' | 'controlled' | 'full';

/** `memory.pipelineV2.*` — the pipeline's settings (docs/pipeline.md), retention and the Ollama URL. */
export interface PipelineV2Config {
  enabled: boolean;
  shadowMode: boolean;
  allowUpdateDelete: boolean;
  graphEnabled: boolean;
  autonomousEnabled: boolean;
  mutationsFrozen: boolean;
  autonomousFrozen: boolean;

  extractionModel: string;
  extractionTimeout: number;
  ollamaUrl: string;

  workerPollMs: number;
  workerMaxRetries: number;
  leaseTimeoutMs: number;

  minFactConfidenceForWrite: number;

  graphBoostWeight: number;
  graphBoostTimeoutMs: number;

  rerankerEnabled: boolean;
  rerankerModel: string;
  rerankerTopN: number;
  rerankerTimeoutMs: number;

  queryExpansionEnabled: boolean;
  queryExpansionTimeoutMs: number;

  maintenanceIntervalMs: number;
  maintenanceMode: MaintenanceMode;
  repairReembedCooldownMs: number;
  repairReembedHourlyBudget: number;
  repairRequeueCooldownMs: number;
  repairRequeueHourlyBudget: number;

  documentWorkerIntervalMs: number;
  documentChunkSize: number;
  documentChunkOverlap: number;
  documentMaxContentBytes: number;

  retentionIntervalMs: number;
  tombstoneRetentionMs: number;
  historyRetentionMs: number;
  completedJobRetentionMs: number;
  deadJobRetentionMs: number;
}

/** `memory.*` — lifetimes and consolidation (docs/lifecycle.md, docs/consolidation.md); snake_case keys. */
export interface MemoryConfig {
  pipelineV2: PipelineV2Config;
  default_ttl: number;
  promote_access_count: number;
  promote_importance: number;
  ttl_extend_factor: number;
  cleanup_interval: number;
  normalize_project_id: boolean;
  similarity_threshold: number;
  auto_merge_threshold: number;
  dedup_scan_interval: number;
  merge_strategy: MergeStrategy;
  secret_policy: SecretPolicy;
}

export interface SearchConfig {
  vector_weight: number;
  keyword_weight: number;
  default_limit: number;
  max_limit: number;
  min_score: number;
}

export interface EmbeddingConfig {
  provider: EmbeddingProviderName;
  model: string;
  ollama_url: string;
}

export interface VectorConfig {
  M: number;
  efConstruction: number;
  efSearch: number;
}

export interface StoreConfig {
  snapshotLogBytes: number;
  snapshotIdleMs: number;
  snapshotMaxAgeMs: number;
}

/** `webhooks.*` — where changes are sent and how deliveries are retried (docs/changes.md). */
export interface WebhooksConfig {
  endpoints: WebhookEndpointConfig[];
  timeout: number;
  maxAttempts: number;
  retryDelay: number;
  maxRetryDelay: number;
}

/** `team.*` — the team memory server this project syncs with (docs/team.md); its password is never here. */
export interface TeamConfig {
  host: string;
  port: number;
  database: string;
  user: string;
  schema: string;
  tls: 'verify-full' | 'disable';
  caFile: string;
  /** A client certificate (PEM file); its key is in the keychain. */
  certFile: string;
  author: string;
  syncInterval: number;
}

/** The mutable shape, used while building a configuration. */
export interface ConfigShape {
  memory: MemoryConfig;
  search: SearchConfig;
  embedding: EmbeddingConfig;
  vector: VectorConfig;
  store: StoreConfig;
  webhooks: WebhooksConfig;
  team: TeamConfig;
}

export type DeepReadonly<T> = T extends object ? { readonly [K in keyof T]: DeepReadonly<T[K]> } : T;

/** A fully resolved, deep-frozen configuration: every key present, every value valid. */
export type ResolvedConfig = DeepReadonly<ConfigShape>;

/** Every dotted path to a leaf of T, e.g. `'memory.pipelineV2.enabled'` (a list is one leaf). */
export type LeafPath<T, Prefix extends string = ''> = {
  [K in keyof T & string]: T[K] extends readonly unknown[]
    ? `${Prefix}${K}`
    : T[K] extends object
      ? LeafPath<T[K], `${Prefix}${K}.`>
      : `${Prefix}${K}`;
}[keyof T & string];

/** The value type at a dotted path of T. */
export type ValueAt<T, P extends string> = P extends `${infer Head}.${infer Rest}`
  ? Head extends keyof T
    ? ValueAt<T[Head], Rest>
    : never
  : P extends keyof T
    ? T[P]
    : never;

export type ConfigKey = LeafPath<ConfigShape>;

/** Leaf paths whose value type is V (e.g. all boolean keys). */
export type ConfigKeyOf<V> = { [P in ConfigKey]: ValueAt<ConfigShape, P> extends V ? P : never }[ConfigKey];

export interface ConfigIssue {
  severity: 'error' | 'warning';
  /** Dotted key the issue is about; '' for the file as a whole. */
  key: string;
  value?: unknown;
  message: string;
  /** Human-readable description of the accepted values, when relevant. */
  allowed?: string;
  /** 1-based line in the source file, when known. */
  line?: number;
  /** 1-based column in the source file, when known. */
  column?: number;
  /**
   * 1-based line and column just after the value or key the issue is about, when known
   * (editors underline line:column–endLine:endColumn).
   */
  endLine?: number;
  endColumn?: number;
  /** File path or other name of where the value came from (e.g. "VS Code settings"). */
  source?: string;
}

export interface ConfigResult {
  config: ResolvedConfig;
  issues: ConfigIssue[];
}
