/** Configuration: agent.yaml loading and validation, driven by one declarative schema. */
export { CONFIG_SCHEMA, CONFIG_SECTIONS, DEFAULT_OLLAMA_URL, isSection, specFor } from './schema.js';
export type {
  BooleanSpec,
  ByteSizeSpec,
  ConfigKeySpec,
  ConfigUnit,
  DurationSpec,
  EnumSpec,
  IntegerSpec,
  NumberSpec,
  RangedSpec,
  StringSpec,
  UrlSpec,
  WebhooksSpec,
} from './specTypes.js';
export { isRanged } from './specTypes.js';
export type {
  ConfigIssue,
  ConfigKey,
  ConfigResult,
  ConfigShape,
  EmbeddingConfig,
  EmbeddingProviderName,
  MaintenanceMode,
  MemoryConfig,
  MergeStrategy,
  PipelineMode,
  PipelineV2Config,
  ResolvedConfig,
  SearchConfig,
  StoreConfig,
  VectorConfig,
  WebhookEndpointConfig,
  WebhooksConfig,
} from './types.js';
export { CHANGE_TYPES, MAX_WEBHOOKS, webhooksJsonSchema } from './changeTypes.js';
export { parseConfig } from './parse.js';
export { applyOverrides } from './overrides.js';
export { CONFIG_FILE_CANDIDATES, configChangedAt, findConfigFile, loadConfigFile, loadProjectConfig, type LoadedConfig } from './files.js';
export { maintenanceScheduled, pipelineMode } from './mode.js';
export { defaultConfig, getAt as getConfigValue } from './tree.js';
export { describeAllowed, formatValue } from './describe.js';
export { formatIssue } from './format.js';
export { formatDurationMs, parseDurationMs } from './duration.js';
export { formatByteSize, parseByteSize } from './byteSize.js';
