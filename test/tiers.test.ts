// The test tiers (scripts/run-tests.mjs, CONTRIBUTING.md "Tests"): `npm test` runs the fast tier
// only, so a test that kills processes or starts the CLI or the MCP server as a process must
// declare `// @tier durability` or `// @tier process`, or it would slow every `npm test` down.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

const root = path.resolve(__dirname, '..');

interface Runner {
  testFiles(this: void, tier: string): string[];
  tierOf(this: void, source: string): string;
}
const runner = (): Promise<Runner> => import(path.join(root, 'scripts/run-tests.mjs')) as Promise<Runner>;

/** What a fast test must not do: kill a process, start a long-lived child, or run our CLI / MCP server. */
const PROCESS_WORK = /SIGKILL|\.kill\(|runCli\b|cliProcess|StdioClientTransport|\bfork\(|\bspawn\(/;

test('a test file that kills or starts our processes is not in the fast tier', async () => {
  const { testFiles } = await runner();
  const offenders = testFiles('fast')
    .filter((f) => f !== 'test/tiers.test.ts') // names the patterns
    .filter((f) => PROCESS_WORK.test(fs.readFileSync(path.join(root, f), 'utf8')));
  assert.deepEqual(offenders, [], 'add `// @tier durability` (crashes, disk faults) or `// @tier process` as the first line');
});

test('every tier has files, and a tier line is read only at the top of a file', async () => {
  const { testFiles, tierOf } = await runner();
  for (const tier of ['fast', 'durability', 'process']) assert.ok(testFiles(tier).length > 0, tier);
  assert.equal(tierOf('// @tier process\nimport x;'), 'process');
  assert.equal(tierOf('/** doc */\n// @tier durability\n'), 'durability');
  assert.equal(tierOf(`${'x'.repeat(700)}\n// @tier process\n`), 'fast');
  assert.throws(() => testFiles('none'), /unknown tier|no test/i);
});

test('every test file of every tier polls through the one until() of test/helpers/until.ts', async () => {
  const { testFiles } = await runner();
  const own = /\b(?:async\s+function\s+until\s*\(|const\s+until\s*=\s*async\b)/;
  const offenders = ['fast', 'durability', 'process']
    .flatMap((tier) => testFiles(tier))
    .filter((f) => f !== 'test/tiers.test.ts') // names the pattern
    .filter((f) => own.test(fs.readFileSync(path.join(root, f), 'utf8')));
  assert.deepEqual(offenders, [], 'import { until } from test/helpers/until.ts instead of a private polling helper');
});
