// agent.yaml problems for the Problems panel (src/extension/config/configProblems.ts): editor ranges
// (0-based) of each issue, override notes where a VS Code setting wins over the file, invalid
// settings reported without a range, one stable key per problem and the one notification text.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  actionable,
  configProblems,
  issueRange,
  notificationText,
  ProblemReporter,
  problemKey,
} from '../../../src/extension/config/configProblems';

const TEXT = ['# project memory', 'memory:', '  default_ttl: soon', '  promote_importance: 0.9', 'search:', '  vector_weight: 2', ''].join(
  '\n',
);

test('each file problem has the 0-based range of its value, with the allowed values in the message', () => {
  const problems = configProblems(TEXT, 'agent.yaml', {});
  const ttl = problems.find((p) => p.key === 'memory.default_ttl')!;
  assert.equal(ttl.severity, 'error');
  assert.deepEqual(ttl.range, { line: 2, column: 15, endLine: 2, endColumn: 19 });
  assert.match(ttl.message, /memory\.default_ttl/);
  const weight = problems.find((p) => p.key === 'search.vector_weight')!;
  assert.deepEqual(weight.range, { line: 5, column: 17, endLine: 5, endColumn: 18 });
  assert.match(weight.message, /0.*1/);
  assert.equal(actionable(problems).length, 2);
});

test('a value a VS Code setting overrides gets an information note at the value; the setting is not a problem', () => {
  const problems = configProblems(TEXT, 'agent.yaml', { 'memory.promote_importance': 0.5 });
  const note = problems.find((p) => p.key === 'memory.promote_importance')!;
  assert.equal(note.severity, 'info');
  assert.match(note.message, /overridden by the VS Code setting agentMemory\.lifetime\.permanentFromImportance = 0\.5/);
  assert.deepEqual(note.range, { line: 3, column: 22, endLine: 3, endColumn: 25 });
  assert.equal(actionable(problems).length, 2, 'notes are not counted as problems');
});

test('an invalid setting is a problem without a range, and does not claim to override the file', () => {
  const problems = configProblems(TEXT, 'agent.yaml', { 'memory.promote_importance': 'high' });
  const bad = problems.find((p) => p.source === 'settings')!;
  assert.equal(bad.severity, 'error');
  assert.equal(bad.range, undefined);
  assert.match(bad.message, /^agentMemory\.lifetime\.permanentFromImportance \(VS Code settings\)/);
  assert.ok(!problems.some((p) => p.severity === 'info'));
});

test('a YAML syntax error is one error at its line; no file gives no problems', () => {
  const problems = configProblems('memory:\n  default_ttl: [1, 2\n', 'agent.yaml', {});
  assert.ok(problems.length >= 1);
  assert.equal(problems[0]!.severity, 'error');
  assert.ok(problems[0]!.range!.line >= 1);
  assert.deepEqual(configProblems('', 'agent.yaml', {}), []);
});

test('issueRange: the rest of the line when only the start is known, the first line when nothing is', () => {
  const lines = ['memory:', '  x: 1'];
  assert.deepEqual(issueRange({ line: 2, column: 3 }, lines), { line: 1, column: 2, endLine: 1, endColumn: 6 });
  assert.deepEqual(issueRange({}, lines), { line: 0, column: 0, endLine: 0, endColumn: 7 });
});

test('problemKey is stable for the same problem; the notification names the count and the first problem with its line', () => {
  const a = actionable(configProblems(TEXT, 'agent.yaml', {}));
  const b = actionable(configProblems(TEXT, 'agent.yaml', {}));
  assert.deepEqual(a.map(problemKey), b.map(problemKey));
  const text = notificationText('agent.yaml', a);
  assert.equal(
    text,
    'Agent Memory: agent.yaml has 2 problems: memory.default_ttl (line 3) and 1 more. Defaults are used for those values until they are fixed.',
  );
});

test('ProblemReporter: each problem logged once, one notification per distinct set, a reload with the same problems says nothing', () => {
  const r = new ProblemReporter();
  const two = configProblems(TEXT, 'agent.yaml', { 'memory.promote_importance': 0.5 });
  const first = r.report(two);
  assert.equal(first.toLog.length, 2, 'the two problems, not the override note');
  assert.equal(first.notify, true);
  const again = r.report(configProblems(TEXT, 'agent.yaml', { 'memory.promote_importance': 0.5 }));
  assert.deepEqual(again, { toLog: [], notify: false }, 'a reload: nothing logged, no notification');
  const fixedOne = TEXT.replace('default_ttl: soon', 'default_ttl: 7d');
  const one = r.report(configProblems(fixedOne, 'agent.yaml', {}));
  assert.deepEqual(one, { toLog: [], notify: true }, 'the set changed: notified, the remaining problem not logged again');
  assert.deepEqual(r.report(configProblems('', 'agent.yaml', {})), { toLog: [], notify: false }, 'all fixed: no notification');
  const back = r.report(configProblems(TEXT, 'agent.yaml', {}));
  assert.equal(back.toLog.length, 2, 'problems that come back are logged again');
  assert.equal(back.notify, true);
});

test('one problem: the notification says so in the singular; a duration problem gives its range as durations, with examples inside it', () => {
  const one = actionable(configProblems('memory:\n  default_ttl: soon\n', 'agent.yaml', {}));
  assert.equal(one.length, 1);
  assert.equal(
    notificationText('agent.yaml', one),
    'Agent Memory: agent.yaml has 1 problem: memory.default_ttl (line 2). Its default is used until it is fixed.',
  );
  const message = one[0]!.message;
  assert.match(message, /"soon" is not a valid duration/);
  assert.match(message, /from 1m to 365d: a duration like "5m", "1h", "7d"/);
  assert.doesNotMatch(message, /"30s"|"250ms"|86400|31536000/, message);
});

test('a YAML syntax error: the notification quotes the line it concerns and says the whole file is ignored', () => {
  const text = 'memory:\n  default_ttl: 7d\n  pipelineV2:\n    enabled: [true\n    shadowMode: true\n';
  const one = actionable(configProblems(text, 'agent.yaml', {}));
  assert.equal(one.length, 1);
  assert.equal(
    notificationText('agent.yaml', one),
    'Agent Memory: agent.yaml has a YAML syntax error at line 5 ("shadowMode: true"). The whole file is ignored, and the defaults are used, until it is fixed.',
  );
  // One mistake the parser reports three times; the last one at the empty line after the file's end.
  const three = actionable(configProblems('memory:\n  default_ttl: 7d\n   bad: x\nsearch:\n  vector_weight: "a\n', 'agent.yaml', {}));
  assert.equal(three.length, 3);
  assert.equal(
    notificationText('agent.yaml', three),
    'Agent Memory: agent.yaml has a YAML syntax error at line 2 ("default_ttl: 7d") and 2 more. The whole file is ignored, and the defaults are used, until it is fixed.',
  );
  const atEnd = actionable(configProblems('search:\n  vector_weight: "a\n', 'agent.yaml', {}));
  assert.match(
    notificationText('agent.yaml', atEnd),
    /^Agent Memory: agent\.yaml has a YAML syntax error at line 3 \(after "vector_weight: \\"a"\)\./,
  );
  for (const t of [notificationText('agent.yaml', one), notificationText('agent.yaml', three), notificationText('agent.yaml', atEnd)])
    assert.doesNotMatch(t, /: \(line|problems?: \(/, 'never a problem without what it is about');
});

test('a file that cannot be used for another reason says why, at which line, and that the whole file is ignored', () => {
  const problems = actionable(configProblems('- just\n- a list\n', 'agent.yaml', {}));
  assert.equal(problems.length, 1);
  assert.equal(
    notificationText('agent.yaml', problems),
    'Agent Memory: agent.yaml cannot be used: the file must be a mapping of keys (e.g. "memory:"), at line 1 ("- just"). The whole file is ignored, and the defaults are used, until it is fixed.',
  );
});
