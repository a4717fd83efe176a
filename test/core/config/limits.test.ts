/**
 * agent.yaml as untrusted input: generated hostile files (hundreds of thousands of unknown keys,
 * a 50 MB string, a megabyte-long key) load with a clear, bounded list of issues. How long
 * each takes is a time: `npm run bench -- --sections hostile` measures it (bench/hostile.bench.ts;
 * before the limits these took 60 s and more). Here: what comes out, and the memory it costs.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { tmpDir } from '../../helpers/tmp';
import { defaultConfig, loadConfigFile, loadProjectConfig, parseConfig } from '../../../src/core/config';
import { capIssues, MAX_CONFIG_BYTES, MAX_REPORTED_ISSUES } from '../../../src/core/config/limits';
import type { ConfigIssue } from '../../../src/core/config/types';
import { readYamlEntries } from '../../../src/core/config/yamlSource';

function unknownKeys(n: number): string {
  const lines = ['search:', '  vector_weight: 0.6'];
  for (let i = 0; i < n; i++) lines.push(`zz_unknown_${i}: ${i}`);
  return `${lines.join('\n')}\n`;
}

test('a 2.5 MB agent.yaml with 200,000 unknown keys is refused at once with a clear message', async () => {
  const dir = tmpDir('am-cfg-hostile-');
  const text = unknownKeys(200_000);
  assert.ok(text.length > 2_500_000);
  fs.writeFileSync(path.join(dir, 'agent.yaml'), text);
  const loaded = await loadProjectConfig(dir);
  assert.equal(loaded.issues.length, 1);
  assert.equal(loaded.issues[0]!.severity, 'error');
  assert.match(loaded.issues[0]!.message, /is \d+ KiB; the limit is 256 KiB, so it is ignored and defaults are used/);
  assert.equal(loaded.issues[0]!.source, path.join(dir, 'agent.yaml'));
  assert.deepEqual(loaded.config, defaultConfig());
  // The same text handed to the parser directly is refused the same way.
  const parsed = parseConfig(text, 'agent.yaml');
  assert.equal(parsed.issues.length, 1, 'refused whole, not parsed key by key');
  assert.match(parsed.issues[0]!.message, /the limit is 256 KiB/);
});

test('as many unknown keys as fit under the size limit load with the first 50 issues reported', () => {
  let n = 30_000;
  let text = unknownKeys(n);
  while (Buffer.byteLength(text) > MAX_CONFIG_BYTES) text = unknownKeys((n = Math.floor(n * 0.9)));
  assert.ok(n > 10_000, `${n} keys`);
  const value = parseConfig(text, 'agent.yaml');
  assert.equal(value.config.search.vector_weight, 0.6, 'the known key still applies');
  assert.equal(value.issues.length, MAX_REPORTED_ISSUES + 1);
  assert.match(value.issues[0]!.message, /unknown key zz_unknown_0 is ignored/);
  const last = value.issues.at(-1)!;
  assert.equal(last.severity, 'warning');
  const more = n + parseConfig(unknownKeys(0)).issues.length - MAX_REPORTED_ISSUES; // the known key may bring a warning of its own
  assert.equal(
    last.message,
    `and ${more.toLocaleString('en-US')} more issues not shown (${more.toLocaleString('en-US')} warnings); fix the ones above first`,
  );
});

test('a 50 MB string costs neither seconds nor gigabytes', async () => {
  const dir = tmpDir('am-cfg-50mb-');
  const file = path.join(dir, 'agent.yaml');
  const text = `search:\n  vector_weight: "${'x'.repeat(50 * 1024 * 1024)}"\n`;
  fs.writeFileSync(file, text);
  const rss0 = process.memoryUsage().rss;
  const loaded = await loadConfigFile(file);
  const fromText = parseConfig(text, file);
  const grew = process.memoryUsage().rss - rss0;
  assert.ok(grew < 200 * 1024 * 1024, `memory grew by ${Math.round(grew / 1e6)} MB`);
  for (const r of [loaded, fromText]) {
    assert.equal(r.issues.length, 1);
    assert.match(r.issues[0]!.message, /is 5\d{4} KiB; the limit is 256 KiB/);
  }
});

test('a long unknown key and a long value under the size limit are handled and shown briefly', () => {
  const longKey = 'k'.repeat(200_000);
  // An explicit key (`? key`): YAML limits implicit keys to 1024 characters.
  const text = `? ${longKey}\n: 1\nsearch:\n  vector_weight: "${'y'.repeat(50_000)}"\n`;
  const value = parseConfig(text);
  const messages = value.issues.map((i) => i.message);
  assert.ok(messages.some((m) => m.startsWith('unknown key kkkk')));
  const bad = value.issues.find((i) => i.key === 'search.vector_weight');
  assert.ok(bad, JSON.stringify(messages.map((m) => m.slice(0, 100))));
  assert.ok(bad.message.length < 400, `message of ${bad.message.length} characters`);
  // Typos are still suggested for the issues shown.
  assert.match(parseConfig('search:\n  vector_wieght: 0.5\n').issues[0]!.message, /did you mean search\.vector_weight\?/);
});

test('capIssues keeps the first 50 and counts the rest by severity', () => {
  const issue = (i: number, severity: ConfigIssue['severity']): ConfigIssue => ({ severity, key: `k${i}`, message: `m${i}` });
  const few = [issue(0, 'warning')];
  assert.equal(capIssues(few), few);
  const many = [...Array.from({ length: 60 }, (_, i) => issue(i, 'warning')), issue(60, 'error')];
  const capped = capIssues(many, 'agent.yaml');
  assert.equal(capped.length, 51);
  assert.deepEqual(capped.slice(0, 50), many.slice(0, 50));
  assert.deepEqual(capped[50], {
    severity: 'error',
    key: '',
    message: 'and 11 more issues not shown (1 error, 10 warnings); fix the ones above first',
    source: 'agent.yaml',
  });
});

// ── Nesting depth: refused before parsing ──────────────────────────────────────────────────────

const deepFiles: Array<[string, string]> = [
  ['98 KB of "[" (never closed)', `memory:\n  x: ${'['.repeat(98_000)}\n`],
  ['49,000 balanced brackets', `memory:\n  x: ${'['.repeat(49_000)}${']'.repeat(49_000)}\n`],
  ['30,000 nested flow mappings', `memory: ${'{a: '.repeat(30_000)}1${'}'.repeat(30_000)}\n`],
  ['a compact sequence of 20,000 "- "', `memory:\n  x:\n    ${'- '.repeat(20_000)}1\n`],
  ['200 indented mappings', Array.from({ length: 200 }, (_, i) => `${' '.repeat(i)}k${i}:`).join('\n')],
];
for (const [label, text] of deepFiles) {
  test(`agent.yaml nested too deep (${label}) is refused before parsing, with a problem that says where`, () => {
    assert.ok(Buffer.byteLength(text) <= MAX_CONFIG_BYTES);
    const value = parseConfig(text, 'agent.yaml');
    assert.equal(value.issues.length, 1, JSON.stringify(value.issues.map((i) => i.message.slice(0, 120))));
    const issue = value.issues[0]!;
    assert.equal(issue.severity, 'error');
    assert.match(issue.message, /^the file nests deeper than 64 levels \(at line \d+, column \d+\); it is ignored and defaults are used$/);
    assert.equal(issue.source, 'agent.yaml');
    assert.ok(issue.line !== undefined && issue.column !== undefined, 'the problem has a place the editor can show');
    assert.deepEqual(value.config, defaultConfig());
    // The reader of the raw entries (the Problems panel's second pass) refuses it the same way.
    const read = readYamlEntries(text, 'agent.yaml');
    assert.equal(read.ok, false);
    assert.match(read.issues[0]!.message, /nests deeper than 64 levels/);
  });
}

test('brackets and indentation that are not nesting do not count: comments, quoted text, block scalars, 64 real levels', () => {
  const brackets = '['.repeat(100);
  const code = Array.from({ length: 100 }, (_, i) => `    ${' '.repeat(i)}step${i}()`).join('\n');
  const text = [
    `# ${brackets}`,
    'search:',
    `  vector_weight: 0.6 # ${brackets}`,
    'memory:',
    `  pipelineV2:`,
    `    extractionModel: "qwen3:4b ${brackets} \\" ${brackets}"`,
    `    ollamaUrl: 'http://127.0.0.1:11434/${brackets}''${brackets}'`,
    'notes: |',
    code,
    `x64: ${'['.repeat(63)}${']'.repeat(63)}`,
  ].join('\n');
  const r = parseConfig(text, 'agent.yaml');
  assert.ok(!r.issues.some((i) => /nests deeper/.test(i.message)), JSON.stringify(r.issues.map((i) => i.message.slice(0, 120))));
  assert.equal(r.config.search.vector_weight, 0.6, 'the file was read');
  assert.match(
    parseConfig(`x: ${'['.repeat(64)}${']'.repeat(64)}`).issues[0]!.message,
    /nests deeper than 64 levels \(at line 1, column 67\)/,
  );
});

test('aliases that would expand without end are a problem at their key, not a failure of the whole file', () => {
  const lines = ['search:', '  vector_weight: 0.6', 'a0: &a0 [x, x, x, x, x, x, x, x, x, x]'];
  for (let i = 1; i < 12; i++)
    lines.push(
      `a${i}: &a${i} [${Array(10)
        .fill(`*a${i - 1}`)
        .join(', ')}]`,
    );
  const value = parseConfig(lines.join('\n'), 'agent.yaml');
  assert.equal(value.config.search.vector_weight, 0.6, 'the rest of the file still applies');
  const alias = value.issues.find((i) => /aliases/.test(i.message));
  assert.ok(alias, JSON.stringify(value.issues.map((i) => i.message.slice(0, 120))));
  assert.match(alias.message, /repeats aliases \(\*name\) too often to be read; it is ignored/);
});
