// webhooks.endpoints (docs/changes.md "Webhooks"): a list of named http(s) webhooks with the
// change types each receives; a bad list keeps the previous value with a sentence naming the
// webhook and what is wrong, and VS Code settings win over agent.yaml like every key.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyOverrides, parseConfig } from '../../../src/core/config';

test('a list of webhooks is read with its names, URLs and change types (default: all)', () => {
  const r = parseConfig(
    [
      'webhooks:',
      '  endpoints:',
      '    - name: ci',
      '      url: https://hooks.example.com/memory',
      '      events: [memory.created, memory.deleted]',
      '    - name: local.audit',
      '      url: http://127.0.0.1:9000/in',
      '      events: memory.updated',
      '    - name: all',
      '      url: http://127.0.0.1:9001',
      '  maxAttempts: 3',
      '  retryDelay: 2s',
    ].join('\n'),
    'agent.yaml',
  );
  assert.deepEqual(r.issues, []);
  assert.deepEqual(r.config.webhooks.endpoints, [
    { name: 'ci', url: 'https://hooks.example.com/memory', events: ['memory.created', 'memory.deleted'] },
    { name: 'local.audit', url: 'http://127.0.0.1:9000/in', events: ['memory.updated'] },
    { name: 'all', url: 'http://127.0.0.1:9001/', events: [] },
  ]);
  assert.equal(r.config.webhooks.maxAttempts, 3);
  assert.equal(r.config.webhooks.retryDelay, 2000);
  assert.ok(Object.isFrozen(r.config.webhooks.endpoints[0]), 'the resolved configuration is frozen, lists too');
});

test('bad webhooks are one error each, naming the webhook and what is allowed; no webhook is used', () => {
  const cases: [string, RegExp][] = [
    ['[{ name: ci, url: "ftp://example.com/x" }]', /webhook 1 \(ci\): url must use http:\/\/ or https:\/\//],
    ['[{ name: ci, url: "https://u:secret@example.com/x" }]', /must not hold a user name or password/],
    [
      '[{ name: ci, url: "https://example.com", events: [memory.create] }]',
      /"memory.create" is not a change type \(did you mean "memory.created"\?\)/,
    ],
    ['[{ name: ci, url: "https://example.com", secret: abc }]', /unknown key secret.*a webhook has name, url and events/],
    ['[{ url: "https://example.com" }]', /webhook 1: name must be/],
    ['[{ name: a, url: "https://x.example" }, { name: a, url: "https://y.example" }]', /the name "a" is used twice/],
    ['"https://example.com"', /expected a list of webhooks/],
  ];
  for (const [value, message] of cases) {
    const r = parseConfig(`webhooks:\n  endpoints: ${value}\n`, 'agent.yaml');
    const errors = r.issues.filter((i) => i.severity === 'error');
    assert.equal(errors.length, 1, value);
    assert.equal(errors[0]!.key, 'webhooks.endpoints');
    assert.match(errors[0]!.message, message);
    assert.match(errors[0]!.allowed ?? '', /name .*url \(http:\/\/ or https:\/\/\).*events/);
    assert.equal(errors[0]!.line, 2, 'the line of the value in agent.yaml');
    assert.deepEqual(r.config.webhooks.endpoints, [], value);
  }
});

test('VS Code settings replace the list of agent.yaml', () => {
  const file = parseConfig('webhooks:\n  endpoints: [{ name: ci, url: "https://a.example/x" }]\n', 'agent.yaml');
  const o = applyOverrides(file.config, { 'webhooks.endpoints': [{ name: 'mine', url: 'http://127.0.0.1:7000/' }] }, 'settings');
  assert.deepEqual(o.issues, []);
  assert.deepEqual(o.config.webhooks.endpoints, [{ name: 'mine', url: 'http://127.0.0.1:7000/', events: [] }]);
});
