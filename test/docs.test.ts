// The README is true: its configuration reference is generated from CONFIG_SCHEMA, each
// behaviour it claims names the test that covers it (CLAIMS below), its Node requirement matches
// the dependencies' engines, and the developer documentation lives in docs/DEVELOPMENT.md.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BEGIN, END, configReferenceTable, withReference } from '../scripts/config-reference';
import { CONFIG_SCHEMA } from '../src/core/config/index.js';

const root = join(__dirname, '..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const development = readFileSync(join(root, 'docs', 'DEVELOPMENT.md'), 'utf8');

test('README configuration reference is generated from the schema and up to date', () => {
  assert.ok(readme.includes(BEGIN) && readme.includes(END), 'README has the reference markers');
  assert.equal(withReference(readme), readme, 'run: node --import tsx scripts/config-reference.ts');
});

test('every configuration key appears in the reference with its default', () => {
  const table = configReferenceTable();
  for (const spec of CONFIG_SCHEMA) assert.ok(table.includes(`| \`${spec.path}\` |`), spec.path);
  assert.equal(table.split('\n').length, CONFIG_SCHEMA.length + 2);
});

test('README shows how to start; the developer commands are in docs/DEVELOPMENT.md, which it links', () => {
  assert.match(readme, /npm start/);
  assert.match(readme, /\(docs\/DEVELOPMENT\.md\)/);
  assert.match(development, /npm test/);
  assert.match(development, /npm run test:e2e/);
  assert.ok(
    readme.includes('## One memory per project: windows, clones, the CLI and other agents'),
    'the CLI / MCP / several windows section',
  );
});

const TRUST_UI = 'test/e2e/ui/trust.ui.mjs';
const TRUST_HOST = 'test/e2e/suite/trust.test.ts';
const READINESS = 'test/extension/pipelineReadiness.test.ts';

/** Each claim of the README (a phrase it must contain) and the test that shows it is true. */
const CLAIMS: { phrase: string; file: string; test: string }[] = [
  { phrase: 'Recall…', file: TRUST_UI, test: 'recall answers without a model' },
  { phrase: 'VS Code does not pass chat requests to `@memory` at all', file: TRUST_UI, test: 'recall answers without a model' },
  { phrase: '**Save now** button', file: TRUST_UI, test: 'Add Memory asks type, tags, lifetime' },
  { phrase: '**permanent**', file: 'test/extension/addMemorySteps.test.ts', test: 'defaults: permanent, general' },
  { phrase: 'scope (moves it between this project and global) or lifetime', file: TRUST_HOST, test: 'Edit can change the scope' },
  { phrase: 'appears in the **Problems** panel and as a squiggle', file: TRUST_UI, test: 'invalid agent.yaml gives a Problems entry' },
  { phrase: 'each problem is written to the log once', file: 'test/extension/configProblems.test.ts', test: 'each problem logged once' },
  { phrase: 'You get **one** notification', file: 'test/extension/configProblems.test.ts', test: 'one notification per distinct set' },
  { phrase: 'the file says so at that value', file: 'test/extension/configProblems.test.ts', test: 'overrides' },
  { phrase: 'status bar item turns to a\nwarning', file: TRUST_UI, test: 'invalid agent.yaml gives a Problems entry' },
  { phrase: 'JSON schema', file: 'test/extension/configSchemaJson.test.ts', test: 'package.json contributes it' },
  { phrase: 'offers to pull a missing model (with progress)', file: READINESS, test: 'pulls through /api/pull' },
  { phrase: '"waiting for Ollama"', file: READINESS, test: 'waiting for Ollama' },
  { phrase: 'Import keeps `created_at`', file: 'test/e2e/suite/surfaces.test.ts', test: 'export' },
  {
    phrase: 'Every\nclone and worktree with the same `origin` therefore shares one memory',
    file: 'test/engine/storeLocation.test.ts',
    test: 'two clones with the same origin open the same store',
  },
  {
    phrase: 'the old folder is then renamed',
    file: 'test/engine/storeMigration.test.ts',
    test: 'merge into the shared store without loss',
  },
  {
    phrase: 'applied exactly once or reported as\nfailed, never twice',
    file: 'test/engine/server/takeover.test.ts',
    test: 'none applied twice',
  },
  {
    phrase: "closing a\nwindow or ending an agent's command fails nobody's save",
    file: 'test/engine/server/ownerLeaves.test.ts',
    test: 'the owning CLI exits with an update in flight',
  },
  {
    phrase: 'one client takes the store over within a couple of seconds while the others wait for it',
    file: 'test/engine/server/sharedTransport.test.ts',
    test: 'of five clients one starts an engine, the others connect to it',
  },
  {
    phrase: 'searches and new memories in flight are sent again by themselves',
    file: 'test/engine/server/ownerLeaves.test.ts',
    test: 'the owning CLI is killed while six loops',
  },
  { phrase: '`--json` prints exactly one JSON object', file: 'test/cli/main.test.ts', test: 'every command: --json output and exit codes' },
  { phrase: 'Recalled text comes back marked as data', file: 'test/mcp/server.test.ts', test: 'the MCP SDK client lists the tools' },
];

test('every claim in CLAIMS is in the README and names an existing test', () => {
  for (const c of CLAIMS) {
    assert.ok(readme.includes(c.phrase.replace(/\\n/g, '\n')), `README claims: ${c.phrase}`);
    const file = join(root, c.file);
    assert.ok(existsSync(file), `${c.file} exists`);
    assert.ok(readFileSync(file, 'utf8').includes(c.test), `${c.file} has a test "${c.test}"`);
  }
});

/** Lowest Node major a package's `engines.node` allows (">= 14.6" → 14, "4.x || >=6.0.0" → 4). */
function minNodeMajor(range: string): number {
  return Math.min(...[...range.matchAll(/(\d+)(?:\.[\dx]+)*/g)].map((m) => Number(m[1])));
}

test("the Node requirement the README and docs state matches the dependencies' engines", () => {
  type Deps = { dependencies: Record<string, string>; devDependencies: Record<string, string> };
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Deps;
  const need = (name: string) => {
    const f = join(root, 'node_modules', name, 'package.json');
    const engines = existsSync(f) ? (JSON.parse(readFileSync(f, 'utf8')) as { engines?: { node?: string } }).engines : undefined;
    return engines?.node ? minNodeMajor(engines.node) : 0;
  };
  assert.match(readme, /Node 20 or later/);
  assert.match(development, /\*\*Node 20 or later\*\*/);
  for (const name of [...Object.keys(pkg.dependencies), ...Object.keys(pkg.devDependencies)]) {
    if (name === '@vscode/vsce') continue; // only `npm run package`: checked below
    assert.ok(need(name) <= 20, `${name} needs Node ${need(name)}`);
  }
  const runtime = Math.max(...Object.keys(pkg.dependencies).map(need));
  assert.ok(runtime <= 18, `run-time dependencies need Node ${runtime}; docs/DEVELOPMENT.md says 18`);
  const vsce = need('@vscode/vsce');
  assert.ok(development.includes(`**Node ${vsce}**`), `docs/DEVELOPMENT.md names Node ${vsce} for npm run package`);
});
