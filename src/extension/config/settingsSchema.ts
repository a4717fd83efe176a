/**
 * The `contributes.configuration` of package.json, derived from CONFIG_SCHEMA: one VS Code
 * setting `agentMemory.<agent.yaml key>` per configuration key, with the same default, range
 * and description. `npm run settings` writes it into package.json; a unit test checks that
 * package.json is in sync. No `vscode` import: this runs in scripts and tests too.
 */
import { formatByteSize, formatDurationMs, webhooksJsonSchema, type ConfigKeySpec } from '../../core/config';
import { SETTING_DESCRIPTIONS } from './settingsDescriptions';
import { SETTING_IDS, SETTINGS_GROUPS } from './settingsLayout';

export const SETTINGS_SECTION = 'agentMemory';

export const PRECEDENCE_NOTE =
  "Precedence: a value set here (user or workspace settings) wins over the same key in the workspace's agent.yaml, which wins over the built-in default.";

type JsonSchema = Record<string, unknown>;

const DURATION_PATTERN = '^\\s*(\\d+(\\.\\d+)?\\s*(ms|s|m|h|d|w)\\s*)+$';
const DURATION_ERROR = 'Use a duration such as "500ms", "30s", "5m", "1h", "7d" or "1h30m".';
const SIZE_PATTERN = '^\\s*\\d+(\\.\\d+)?\\s*(B|KiB|MiB|GiB|KB|MB|GB)?\\s*$';
const SIZE_ERROR = 'Use a size such as "512KiB", "8MiB" or "1GiB".';

/** A default in the unit people type: durations and sizes as text ("1d", "8MiB"). */
function shownDefault(spec: ConfigKeySpec): unknown {
  if (spec.type === 'duration') return formatDurationMs(spec.unit === 's' ? spec.default * 1000 : spec.default);
  if (spec.type === 'bytes') return formatByteSize(spec.default);
  return spec.default;
}

function valueSchema(spec: ConfigKeySpec): JsonSchema {
  switch (spec.type) {
    case 'boolean':
      return { type: 'boolean', default: spec.default };
    case 'integer':
      return { type: 'integer', default: spec.default, minimum: spec.min, maximum: spec.max };
    case 'number':
      return { type: 'number', default: spec.default, minimum: spec.min, maximum: spec.max };
    // Text, not number-or-text: the Settings editor edits a union type only in settings.json.
    case 'duration':
      return { type: 'string', default: shownDefault(spec), pattern: DURATION_PATTERN, patternErrorMessage: DURATION_ERROR };
    case 'bytes':
      return { type: 'string', default: shownDefault(spec), pattern: SIZE_PATTERN, patternErrorMessage: SIZE_ERROR };
    case 'string':
      return { type: 'string', default: spec.default, maxLength: spec.maxLength, ...(spec.allowEmpty ? {} : { minLength: 1 }) };
    case 'enum':
      return { type: 'string', enum: [...spec.values], default: spec.default };
    case 'url':
      return { type: 'string', default: spec.default, pattern: '^https?://', patternErrorMessage: 'Use an http:// or https:// URL.' };
    case 'webhooks':
      return { ...webhooksJsonSchema(), default: [] };
  }
}

function rangeHint(spec: ConfigKeySpec): string {
  switch (spec.type) {
    case 'duration':
      return ` From ${formatDurationMs(spec.unit === 's' ? spec.min * 1000 : spec.min)} to ${formatDurationMs(spec.unit === 's' ? spec.max * 1000 : spec.max)}.`;
    case 'bytes':
      return ` From ${formatByteSize(spec.min)} to ${formatByteSize(spec.max)}.`;
    default:
      return '';
  }
}

function schemaFor(spec: ConfigKeySpec, order: number, advanced: boolean): JsonSchema {
  const text = SETTING_DESCRIPTIONS[spec.path] ?? spec.description;
  return {
    ...valueSchema(spec),
    markdownDescription: `${text}${rangeHint(spec)}\n\n${yamlNote(spec.path)}`,
    order,
    ...(advanced ? { tags: ['advanced'] } : {}),
  };
}

/** The line under each description: the agent.yaml key the setting overrides. */
function yamlNote(yamlKey: string): string {
  return `Overrides \`${yamlKey}\` in the workspace's agent.yaml.`;
}

/**
 * The id a setting had before the Settings editor layout (`agentMemory.<agent.yaml key>`): still
 * read and writable, hidden from the Settings editor unless set, and flagged as renamed there.
 */
function legacySchema(spec: ConfigKeySpec, newId: string): JsonSchema {
  const { type, default: def } = valueSchema(spec);
  return {
    type: spec.type === 'duration' || spec.type === 'bytes' ? ['number', 'string'] : type,
    default: spec.type === 'duration' || spec.type === 'bytes' ? spec.default : def,
    markdownDeprecationMessage: `Renamed to \`#${SETTINGS_SECTION}.${newId}#\`, which wins when both are set.`,
  };
}

/**
 * Settings of the VS Code host itself, not agent.yaml keys (the engine never sees them as
 * configuration): where the shared store lives (src/engine/storeLocation.ts).
 */
export const HOST_SETTINGS: Record<string, JsonSchema> = {
  [`${SETTINGS_SECTION}.storeHome`]: {
    type: 'string',
    default: '',
    markdownDescription:
      'Folder holding the memory stores shared by every window, clone, CLI and MCP server of a project ' +
      '(one folder per project id, plus `global`). Empty: the `AGENT_MEMORY_HOME` environment variable, else `~/.agent-memory`. ' +
      'The `agent-memory` CLI reads `AGENT_MEMORY_HOME` or `--home`; agents set up with Set Up Other Agents… get this folder from their launcher. ' +
      'Takes effect when the engine restarts.',
    scope: 'machine',
    order: 90,
  },
  [`${SETTINGS_SECTION}.storage.recordChatSessions`]: {
    type: 'boolean',
    default: true,
    markdownDescription:
      'Record the turns of `@memory` and of the memory tools (#memorySearch, #memorySave) as an agent session of this window, listed in the Sessions view and found by session search. Off: nothing of the chat is recorded.',
    scope: 'window',
    order: 91,
  },
};

/**
 * One configuration section per SETTINGS_GROUPS entry, in that order (everyday groups first,
 * internal knobs last and tagged "advanced"); within a group, settings in SETTING_IDS order.
 * Each setting's former id (the agent.yaml key) stays registered as a renamed setting.
 */
export function settingsContribution(schema: readonly ConfigKeySpec[]): JsonSchema[] {
  const byYamlKey = new Map<string, ConfigKeySpec>(schema.map((spec) => [spec.path, spec]));
  const missing = schema.filter((spec) => SETTING_IDS[spec.path] === undefined).map((spec) => spec.path);
  if (missing.length > 0) throw new Error(`settingsLayout.ts has no setting id for: ${missing.join(', ')}`);
  const sections = SETTINGS_GROUPS.map((group, index) => {
    const properties: Record<string, JsonSchema> = {};
    const entries = Object.entries(SETTING_IDS).filter(([, id]) => id.startsWith(`${group.id}.`));
    entries.forEach(([yamlKey, id], order) => {
      const spec = byYamlKey.get(yamlKey);
      if (spec) properties[`${SETTINGS_SECTION}.${id}`] = schemaFor(spec, order + 1, group.advanced);
    });
    if (group.id === 'storage') Object.assign(properties, HOST_SETTINGS);
    for (const [yamlKey, id] of entries) {
      const spec = byYamlKey.get(yamlKey);
      // Keys added after the layout (webhooks.*) have their agent.yaml name as id: no former id.
      if (spec && id !== yamlKey) properties[`${SETTINGS_SECTION}.${yamlKey}`] = legacySchema(spec, id);
    }
    return { id: `${SETTINGS_SECTION}.${group.id}`, title: group.title, order: index + 1, properties };
  });
  return sections;
}
