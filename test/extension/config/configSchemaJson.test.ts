// agent.yaml's JSON schema (src/extension/config/configSchemaJson.ts) is generated from CONFIG_SCHEMA,
// shipped as media/agent-yaml.schema.json and contributed through yamlValidation.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { CONFIG_SCHEMA } from '../../../src/core/config/schema';
import { AGENT_YAML_FILE_MATCH, AGENT_YAML_SCHEMA_FILE, agentYamlJsonSchema } from '../../../src/extension/config/configSchemaJson';

const root = join(__dirname, '..', '..', '..');
interface Schema {
  properties?: Record<string, Schema>;
  type?: unknown;
  minimum?: number;
  maximum?: number;
  enum?: string[];
  anyOf?: Schema[];
  pattern?: string;
  default?: unknown;
}

test('the shipped schema file is up to date (run `npm run settings`)', () => {
  const file = JSON.parse(readFileSync(join(root, AGENT_YAML_SCHEMA_FILE), 'utf8'));
  assert.deepEqual(file, agentYamlJsonSchema(CONFIG_SCHEMA));
});

test('package.json contributes it for the agent.yaml file names', () => {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  assert.deepEqual(pkg.contributes.yamlValidation, [{ fileMatch: AGENT_YAML_FILE_MATCH, url: `./${AGENT_YAML_SCHEMA_FILE}` }]);
});

test('every key is in the schema at its nested place with its default and range', () => {
  const schema = agentYamlJsonSchema(CONFIG_SCHEMA) as Schema;
  for (const spec of CONFIG_SCHEMA) {
    const leaf = spec.path.split('.').reduce<Schema | undefined>((node, part) => node?.properties?.[part], schema);
    assert.ok(leaf, spec.path);
    assert.deepEqual(leaf.default, spec.default, spec.path);
  }
  const weight = schema.properties!.search!.properties!.vector_weight!;
  assert.deepEqual([weight.type, weight.minimum, weight.maximum], ['number', 0, 1]);
  assert.deepEqual(schema.properties!.embedding!.properties!.provider!.enum, ['auto', 'ollama', 'builtin', 'hash']);
});

test('duration patterns accept what the loader accepts', () => {
  const ttl = (agentYamlJsonSchema(CONFIG_SCHEMA) as Schema).properties!.memory!.properties!.default_ttl!;
  const re = new RegExp(ttl.anyOf!.find((s) => s.type === 'string')!.pattern!);
  for (const ok of ['30s', '5m', '1h 30m', '7d']) assert.ok(re.test(ok), ok);
  for (const bad of ['soon', '5 minutes', '']) assert.ok(!re.test(bad), bad);
});
