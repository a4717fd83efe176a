/**
 * The JSON schema of agent.yaml, derived from CONFIG_SCHEMA: nested sections, each key with its
 * type, range, default and description. package.json contributes it through `yamlValidation`,
 * so an installed YAML extension completes and explains the keys and marks wrong values while
 * typing. `npm run settings` writes it to media/agent-yaml.schema.json; a unit test checks that
 * the file is in sync. No `vscode` import: this runs in scripts and tests too.
 */
import { webhooksJsonSchema, type ConfigKeySpec } from '../../core/config';

export const AGENT_YAML_SCHEMA_FILE = 'media/agent-yaml.schema.json';
/** The file names agent.yaml is looked up under (src/core/config/files.ts); config.yaml is left out: it is not always ours. */
export const AGENT_YAML_FILE_MATCH = ['agent.yaml', '.agent-memory/agent.yaml', 'AGENT.yaml'];

type JsonSchema = Record<string, unknown>;

// Accepted by src/core/config/duration.ts and byteSize.ts (e.g. "30s", "1h 30m", "8MiB").
const DURATION_PATTERN = '^(\\s*\\d+(\\.\\d+)?\\s*(ms|s|m|h|d|w))+\\s*$';
const SIZE_PATTERN = '^\\s*\\d+(\\.\\d+)?\\s*([kKmMgG][iI]?[bB]?|[bB])?\\s*$';

function unitWord(spec: ConfigKeySpec): string {
  if (spec.type === 'duration') return spec.unit === 'ms' ? 'milliseconds' : 'seconds';
  return 'bytes';
}

function leafSchema(spec: ConfigKeySpec): JsonSchema {
  const description = spec.description;
  switch (spec.type) {
    case 'boolean':
      return { type: 'boolean', default: spec.default, description };
    case 'integer':
      return { type: 'integer', default: spec.default, minimum: spec.min, maximum: spec.max, description };
    case 'number':
      return { type: 'number', default: spec.default, minimum: spec.min, maximum: spec.max, description };
    case 'duration':
    case 'bytes': {
      const pattern = spec.type === 'duration' ? DURATION_PATTERN : SIZE_PATTERN;
      const example = spec.type === 'duration' ? '"30s", "5m", "1h"' : '"512KiB", "8MiB"';
      return {
        anyOf: [
          { type: 'number', minimum: spec.min, maximum: spec.max },
          { type: 'string', pattern },
        ],
        default: spec.default,
        description: `${description} A number of ${unitWord(spec)} (${spec.min}–${spec.max}), or text such as ${example}.`,
      };
    }
    case 'string':
      return {
        type: 'string',
        default: spec.default,
        maxLength: spec.maxLength,
        ...(spec.allowEmpty ? {} : { minLength: 1 }),
        description,
      };
    case 'enum':
      return { type: 'string', enum: [...spec.values], default: spec.default, description };
    case 'url':
      return { type: 'string', default: spec.default, pattern: '^https?://', description };
    case 'webhooks':
      return { ...webhooksJsonSchema(), default: [], description };
  }
}

function section(): JsonSchema {
  return { type: 'object', additionalProperties: false, properties: {} as Record<string, JsonSchema> };
}

/** The whole schema: one object per section (`memory`, `memory.pipelineV2`, `search`, …), unknown keys flagged. */
export function agentYamlJsonSchema(schema: readonly ConfigKeySpec[]): JsonSchema {
  const root = { $schema: 'http://json-schema.org/draft-07/schema#', title: 'Agent Memory agent.yaml', ...section() };
  for (const spec of schema) {
    const parts = spec.path.split('.');
    let node: JsonSchema = root;
    for (const part of parts.slice(0, -1)) {
      const props = node.properties as Record<string, JsonSchema>;
      props[part] ??= section();
      node = props[part]!;
    }
    (node.properties as Record<string, JsonSchema>)[parts[parts.length - 1]!] = leafSchema(spec);
  }
  return root;
}
