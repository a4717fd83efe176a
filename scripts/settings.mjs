// `npm run settings`: regenerates package.json `contributes.configuration` from CONFIG_SCHEMA
// (src/core/config/schema.ts) through src/extension/config/settingsSchema.ts — the Settings editor's
// ids, groups, order and advanced tags come from src/extension/config/settingsLayout.ts, the everyday
// descriptions from settingsDescriptions.ts; a key missing there fails — and agent.yaml's JSON
// schema (media/agent-yaml.schema.json, contributed through `yamlValidation`) through
// src/extension/config/configSchemaJson.ts. Run after changing the configuration schema;
// test/extension/surfaces.test.ts and configSchemaJson.test.ts fail while they are out of date.
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
require('tsx/cjs'); // lets require() load the TypeScript sources
const root = new URL('..', import.meta.url);
const { CONFIG_SCHEMA } = require('../src/core/config/schema.ts');
const { settingsContribution } = require('../src/extension/config/settingsSchema.ts');
const { agentYamlJsonSchema, AGENT_YAML_SCHEMA_FILE } = require('../src/extension/config/configSchemaJson.ts');
const file = new URL('package.json', root);
const pkg = JSON.parse(readFileSync(file, 'utf8'));
pkg.contributes.configuration = settingsContribution(CONFIG_SCHEMA);
writeFileSync(file, JSON.stringify(pkg, null, 2) + '\n');
// Prettier formats short arrays on one line: run `npx prettier --write package.json media/agent-yaml.schema.json` after.
console.log(`[settings] ${CONFIG_SCHEMA.length} settings written to package.json`);
writeFileSync(new URL(AGENT_YAML_SCHEMA_FILE, root), JSON.stringify(agentYamlJsonSchema(CONFIG_SCHEMA), null, 2) + '\n');
console.log(`[settings] agent.yaml JSON schema written to ${AGENT_YAML_SCHEMA_FILE}`);
