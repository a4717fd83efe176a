/**
 * The `contributes.configuration` of package.json, derived from CONFIG_SCHEMA: one VS Code
 * setting `agentMemory.<agent.yaml key>` per configuration key, with the same default, range
 * and description. `npm run settings` writes it into package.json; a unit test checks that
 * package.json is in sync. No `vscode` import: this runs in scripts and tests too.
 */
import type { ConfigKeySpec } from '../core/config';

export const SETTINGS_SECTION = 'agentMemory';

export const PRECEDENCE_NOTE =
  'Precedence: a value set here (user or workspace settings) wins over the same key in the workspace\'s agent.yaml, which wins over the built-in default.';

type JsonSchema = Record<string, unknown>;

function unitHint(spec: ConfigKeySpec): string {
  switch (spec.type) {
    case 'duration': return ` A number of ${spec.unit === 'ms' ? 'milliseconds' : 'seconds'}, or text such as "30s", "5m", "1h".`;
    case 'bytes': return ' A number of bytes, or text such as "512KiB", "8MiB".';
    default: return '';
  }
}

function schemaFor(spec: ConfigKeySpec): JsonSchema {
  const base: JsonSchema = { markdownDescription: `${spec.description}${unitHint(spec)}\n\nagent.yaml key: \`${spec.path}\`. ${PRECEDENCE_NOTE}` };
  switch (spec.type) {
    case 'boolean': return { type: 'boolean', default: spec.default, ...base };
    case 'integer': return { type: 'integer', default: spec.default, minimum: spec.min, maximum: spec.max, ...base };
    case 'number': return { type: 'number', default: spec.default, minimum: spec.min, maximum: spec.max, ...base };
    case 'duration':
    case 'bytes': return { type: ['number', 'string'], default: spec.default, ...base };
    case 'string': return { type: 'string', default: spec.default, maxLength: spec.maxLength, ...(spec.allowEmpty ? {} : { minLength: 1 }), ...base };
    case 'enum': return { type: 'string', enum: [...spec.values], default: spec.default, ...base };
    case 'url': return { type: 'string', default: spec.default, pattern: '^https?://', ...base };
  }
}

/** One configuration section per top-level agent.yaml section, in schema order. */
export function settingsContribution(schema: readonly ConfigKeySpec[]): JsonSchema[] {
  const sections = new Map<string, Record<string, JsonSchema>>();
  for (const spec of schema) {
    const top = spec.path.split('.')[0]!;
    const props = sections.get(top) ?? {};
    props[`${SETTINGS_SECTION}.${spec.path}`] = schemaFor(spec);
    sections.set(top, props);
  }
  return [...sections].map(([top, properties]) => ({ id: `${SETTINGS_SECTION}.${top}`, title: `Agent Memory: ${top}`, properties }));
}
