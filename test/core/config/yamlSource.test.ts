// agent.yaml entries and issues carry the range of the value (known keys) or key (unknown keys)
// they are about, so an editor can underline exactly that text (src/core/config/yamlSource.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseConfig } from '../../../src/core/config/index.js';
import { readYamlEntries } from '../../../src/core/config/yamlSource.js';

const TEXT = ['memory:', '  default_ttl: soon', '  promote_importance: 7', 'search:', '  vector_wieght: 0.4', ''].join('\n');

test('entries have the 1-based start and end of their value', () => {
  const { entries } = readYamlEntries(TEXT);
  const ttl = entries.find((e) => e.path === 'memory.default_ttl')!;
  assert.deepEqual([ttl.line, ttl.column, ttl.endLine, ttl.endColumn], [2, 16, 2, 20], '"soon"');
  const imp = entries.find((e) => e.path === 'memory.promote_importance')!;
  assert.deepEqual([imp.line, imp.column, imp.endLine, imp.endColumn], [3, 23, 3, 24], '"7"');
});

test('issues carry the ranges: wrong type and out of range at the value, an unknown key at the key', () => {
  const { issues } = parseConfig(TEXT, 'agent.yaml');
  const at = (key: string) => issues.find((i) => i.key === key)!;
  assert.deepEqual([at('memory.default_ttl').line, at('memory.default_ttl').column, at('memory.default_ttl').endColumn], [2, 16, 20]);
  assert.equal(at('memory.promote_importance').severity, 'error');
  assert.deepEqual([at('memory.promote_importance').line, at('memory.promote_importance').endColumn], [3, 24]);
  const unknown = at('search.vector_wieght');
  assert.match(unknown.message, /did you mean search\.vector_weight/);
  assert.deepEqual([unknown.line, unknown.column, unknown.endLine, unknown.endColumn], [5, 3, 5, 16], 'the key "vector_wieght"');
});

test('a YAML syntax error has its line, column and an end', () => {
  const { issues } = parseConfig('memory:\n  default_ttl: [1, 2\n  promote_importance: 0.5\n', 'agent.yaml');
  assert.ok(issues.length >= 1);
  const e = issues[0]!;
  assert.equal(e.severity, 'error');
  assert.match(e.message, /YAML syntax error at line \d+, column \d+/);
  assert.ok(e.line !== undefined && e.column !== undefined);
  const endAfterStart = e.endLine === undefined || e.endLine > e.line! || (e.endLine === e.line && e.endColumn! > e.column!);
  assert.ok(endAfterStart, 'the end is after the start');
});
