/**
 * How the configuration keys appear in VS Code's Settings editor: the setting id of each
 * agent.yaml key, its group and whether it is an internal knob. The Settings editor makes a
 * setting's title from the last part of its id ("ollamaModel" → "Ollama Model") and drops the
 * part equal to its group's id, so ids are camelCase words under their group: the agent.yaml
 * key `memory.auto_merge_threshold` is the setting `agentMemory.duplicates.autoMergeSimilarity`,
 * titled "Auto Merge Similarity" in the group "Duplicates".
 * The agent.yaml keys themselves (docs/configuration.md) do not change.
 */

/** A group of settings: a `contributes.configuration` section, shown in this order. */
export interface SettingsGroup {
  /** Part of the setting ids after `agentMemory.`. */
  readonly id: string;
  readonly title: string;
  /** Internal knobs: tagged "advanced", listed after the everyday groups. */
  readonly advanced: boolean;
}

// Short titles: the Settings editor's table of contents shows about 14 characters; the first words tell groups apart.
export const SETTINGS_GROUPS: readonly SettingsGroup[] = [
  { id: 'pipeline', title: 'Pipeline and Ollama', advanced: false },
  { id: 'lifetime', title: 'Lifetimes', advanced: false },
  { id: 'search', title: 'Search', advanced: false },
  { id: 'duplicates', title: 'Duplicates', advanced: false },
  { id: 'embeddings', title: 'Embeddings', advanced: false },
  { id: 'storage', title: 'Storage', advanced: false },
  { id: 'webhooks', title: 'Webhooks', advanced: false },
  { id: 'team', title: 'Team Memory', advanced: false },
  { id: 'worker', title: 'Worker (Advanced)', advanced: true },
  { id: 'maintenance', title: 'Maintenance (Advanced)', advanced: true },
  { id: 'retention', title: 'Retention (Advanced)', advanced: true },
  { id: 'documents', title: 'Documents (Advanced)', advanced: true },
  { id: 'index', title: 'Index (Advanced)', advanced: true },
];

/** agent.yaml key → `<group id>.<name>`, in display order within each group. */
export const SETTING_IDS: Readonly<Record<string, string>> = {
  'memory.pipelineV2.enabled': 'pipeline.enabled',
  'memory.pipelineV2.shadowMode': 'pipeline.shadowMode',
  'memory.pipelineV2.allowUpdateDelete': 'pipeline.allowUpdateAndDelete',
  'memory.pipelineV2.ollamaUrl': 'pipeline.ollamaServer',
  'memory.pipelineV2.extractionModel': 'pipeline.ollamaModel',
  'memory.pipelineV2.graphEnabled': 'pipeline.knowledgeGraph',
  'memory.pipelineV2.mutationsFrozen': 'pipeline.freezeWrites',

  'memory.default_ttl': 'lifetime.shortTermLifetime',
  'memory.ttl_extend_factor': 'lifetime.extendOnUse',
  'memory.promote_access_count': 'lifetime.promoteAfterUses',
  'memory.promote_importance': 'lifetime.permanentFromImportance',
  'memory.pipelineV2.tombstoneRetentionMs': 'lifetime.keepDeletedFor',
  'memory.pipelineV2.historyRetentionMs': 'lifetime.keepHistoryFor',

  'search.default_limit': 'search.resultLimit',
  'search.max_limit': 'search.maxResultLimit',
  'search.min_score': 'search.minScore',
  'search.vector_weight': 'search.vectorWeight',
  'search.keyword_weight': 'search.keywordWeight',
  'memory.pipelineV2.graphBoostWeight': 'search.graphBoost',
  'memory.pipelineV2.rerankerEnabled': 'search.rerank',
  'memory.pipelineV2.rerankerModel': 'search.rerankModel',
  'memory.pipelineV2.queryExpansionEnabled': 'search.queryExpansion',

  'memory.similarity_threshold': 'duplicates.suggestFromSimilarity',
  'memory.auto_merge_threshold': 'duplicates.autoMergeFromSimilarity',
  'memory.merge_strategy': 'duplicates.mergeStrategy',
  'memory.dedup_scan_interval': 'duplicates.scanInterval',

  'embedding.provider': 'embeddings.provider',
  'embedding.model': 'embeddings.ollamaModel',
  'embedding.ollama_url': 'embeddings.ollamaServer',

  'memory.normalize_project_id': 'storage.normalizeProjectId',
  'memory.secret_policy': 'storage.secretPolicy',

  'webhooks.endpoints': 'webhooks.endpoints',
  'webhooks.timeout': 'webhooks.timeout',
  'webhooks.maxAttempts': 'webhooks.maxAttempts',
  'webhooks.retryDelay': 'webhooks.retryDelay',
  'webhooks.maxRetryDelay': 'webhooks.maxRetryDelay',
  'team.host': 'team.host',
  'team.port': 'team.port',
  'team.database': 'team.database',
  'team.user': 'team.user',
  'team.schema': 'team.schema',
  'team.tls': 'team.tls',
  'team.caFile': 'team.caFile',
  'team.certFile': 'team.certFile',
  'team.author': 'team.author',
  'team.syncInterval': 'team.syncInterval',

  'memory.pipelineV2.extractionTimeout': 'worker.extractionTimeout',
  'memory.pipelineV2.workerPollMs': 'worker.pollInterval',
  'memory.pipelineV2.workerMaxRetries': 'worker.maxAttempts',
  'memory.pipelineV2.leaseTimeoutMs': 'worker.leaseTimeout',
  'memory.pipelineV2.minFactConfidenceForWrite': 'worker.minFactConfidence',
  'memory.pipelineV2.graphBoostTimeoutMs': 'worker.graphBoostTimeout',
  'memory.pipelineV2.rerankerTopN': 'worker.rerankTopN',
  'memory.pipelineV2.rerankerTimeoutMs': 'worker.rerankTimeout',
  'memory.pipelineV2.queryExpansionTimeoutMs': 'worker.queryExpansionTimeout',

  'memory.pipelineV2.autonomousEnabled': 'maintenance.enabled',
  'memory.pipelineV2.autonomousFrozen': 'maintenance.frozen',
  'memory.pipelineV2.maintenanceMode': 'maintenance.mode',
  'memory.pipelineV2.maintenanceIntervalMs': 'maintenance.interval',
  'memory.pipelineV2.repairReembedCooldownMs': 'maintenance.reembedCooldown',
  'memory.pipelineV2.repairReembedHourlyBudget': 'maintenance.reembedHourlyBudget',
  'memory.pipelineV2.repairRequeueCooldownMs': 'maintenance.requeueCooldown',
  'memory.pipelineV2.repairRequeueHourlyBudget': 'maintenance.requeueHourlyBudget',
  'memory.cleanup_interval': 'maintenance.expiryCheckInterval',

  'memory.pipelineV2.retentionIntervalMs': 'retention.sweepInterval',
  'memory.pipelineV2.completedJobRetentionMs': 'retention.keepCompletedJobsFor',
  'memory.pipelineV2.deadJobRetentionMs': 'retention.keepFailedJobsFor',

  'memory.pipelineV2.documentWorkerIntervalMs': 'documents.workerInterval',
  'memory.pipelineV2.documentChunkSize': 'documents.chunkSize',
  'memory.pipelineV2.documentChunkOverlap': 'documents.chunkOverlap',
  'memory.pipelineV2.documentMaxContentBytes': 'documents.maxSize',

  'vector.M': 'index.linksPerNode',
  'vector.efConstruction': 'index.buildCandidates',
  'vector.efSearch': 'index.searchCandidates',
  'store.snapshotLogBytes': 'index.snapshotAfterLogSize',
  'store.snapshotIdleMs': 'index.snapshotAfterIdle',
  'store.snapshotMaxAgeMs': 'index.snapshotMaxAge',
};

const BY_ID: ReadonlyMap<string, string> = new Map(Object.entries(SETTING_IDS).map(([key, id]) => [id, key]));

/** The setting id (without `agentMemory.`) of an agent.yaml key; unknown keys keep their own path. */
export function settingIdFor(yamlKey: string): string {
  return SETTING_IDS[yamlKey] ?? yamlKey;
}

/** The agent.yaml key of a setting id (without `agentMemory.`), if it is one. */
export function yamlKeyFor(settingId: string): string | undefined {
  return BY_ID.get(settingId);
}
