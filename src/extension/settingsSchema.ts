/**
 * The `contributes.configuration` of package.json, derived from CONFIG_SCHEMA: one VS Code
 * setting `agentMemory.<agent.yaml key>` per configuration key, with the same default, range
 * and description. `npm run settings` writes it into package.json; a unit test checks that
 * package.json is in sync. No `vscode` import: this runs in scripts and tests too.
 */
import type { ConfigKeySpec } from '../core/config';

export const SETTINGS_SECTION = 'agentMemory';

export const PRECEDENCE_NOTE =
  "Precedence: a value set here (user or workspace settings) wins over the same key in the workspace's agent.yaml, which wins over the built-in default.";

type JsonSchema = Record<string, unknown>;

function unitHint(spec: ConfigKeySpec): string {
  switch (spec.type) {
    case 'duration':
      return ` A number of ${spec.unit === 'ms' ? 'milliseconds' : 'seconds'}, or text such as "30s", "5m", "1h".`;
    case 'bytes':
      return ' A number of bytes, or text such as "512KiB", "8MiB".';
    default:
      return '';
  }
}

function schemaFor(spec: ConfigKeySpec): JsonSchema {
  const base: JsonSchema = {
    markdownDescription: `${spec.description}${unitHint(spec)}\n\nagent.yaml key: \`${spec.path}\`. ${PRECEDENCE_NOTE}`,
  };
  switch (spec.type) {
    case 'boolean':
      return { type: 'boolean', default: spec.default, ...base };
    case 'integer':
      return { type: 'integer', default: spec.default, minimum: spec.min, maximum: spec.max, ...base };
    case 'number':
      return { type: 'number', default: spec.default, minimum: spec.min, maximum: spec.max, ...base };
    case 'duration':
    case 'bytes':
      return { type: ['number', 'string'], default: spec.default, ...base };
    case 'string':
      return { type: 'string', default: spec.default, maxLength: spec.maxLength, ...(spec.allowEmpty ? {} : { minLength: 1 }), ...base };
    case 'enum':
      return { type: 'string', enum: [...spec.values], default: spec.default, ...base };
    case 'url':
      return { type: 'string', default: spec.default, pattern: '^https?://', ...base };
  }
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
      'The `agent-memory` CLI reads `AGENT_MEMORY_HOME` or `--home`: set the same folder there. ' +
      'Takes effect when the engine restarts.',
    scope: 'machine',
  },
};

/** One configuration section per top-level agent.yaml section, in schema order, then the host's own settings. */
export function settingsContribution(schema: readonly ConfigKeySpec[]): JsonSchema[] {
  const sections = new Map<string, Record<string, JsonSchema>>();
  for (const spec of schema) {
    const top = spec.path.split('.')[0]!;
    const props = sections.get(top) ?? {};
    props[`${SETTINGS_SECTION}.${spec.path}`] = schemaFor(spec);
    sections.set(top, props);
  }
  return [
    ...[...sections].map(([top, properties]) => ({ id: `${SETTINGS_SECTION}.${top}`, title: `Agent Memory: ${top}`, properties })),
    { id: `${SETTINGS_SECTION}.storage`, title: 'Agent Memory: storage', properties: HOST_SETTINGS },
  ];
}
