// A memory's lifetime written as text (src/core/lifecycle/lifetimeText.ts): one parser for the
// memory document, the CLI's --ttl and, through parseDurationMs, the durations of agent.yaml.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseLifetimeSeconds } from '../../../src/core/lifecycle/lifetimeText';
import { parseDurationMs } from '../../../src/core/config';
import { parseCli, UsageError } from '../../../src/cli/args';

const DAY = 86_400;

test('permanent, a duration as agent.yaml writes it, in words, or whole seconds', () => {
  const good: [string, number | null][] = [
    ['permanent', null],
    ['Permanent', null],
    ['2m', 120],
    ['90m', 5_400],
    ['12h', 12 * 3_600],
    ['7d', 7 * DAY],
    ['2w', 14 * DAY],
    ['1h30m', 5_400],
    ['1.5h', 5_400],
    ['30s', 30],
    ['3600', 3_600],
    ['7 days', 7 * DAY],
    ['1 week', 7 * DAY],
    ['12 hours', 12 * 3_600],
    ['1 minute', 60],
    ['45 seconds', 45],
    ['1 day 12 hours', 36 * 3_600],
    ['  5 Minutes ', 300],
  ];
  for (const [text, seconds] of good) assert.equal(parseLifetimeSeconds(text), seconds, text);
  for (const bad of [
    '',
    'forever',
    '0 days',
    '0s',
    '0',
    '-5m',
    '1.5s',
    '250ms',
    'm5',
    '5x',
    '7 days ago',
    '2 months',
    '200y',
    `${101 * 365}d`,
  ]) {
    assert.equal(parseLifetimeSeconds(bad), undefined, bad);
  }
});

test('every duration agent.yaml accepts (in whole seconds) is a lifetime of the same length', () => {
  for (const text of ['30s', '5m', '1h', '7d', '2w', '1h30m', '1h 30m', '1.5h', ' 10 s ']) {
    const ms = parseDurationMs(text);
    assert.ok(ms !== undefined, text);
    assert.equal(parseLifetimeSeconds(text), ms / 1000, text);
  }
});

test("the CLI's --ttl reads the same lifetimes", () => {
  for (const text of ['2m', '90m', '12h', '7d', '2w', '1h30m', '3600', '7 days']) {
    const a = parseCli(['add', 'some text to remember', '--ttl', text], '/tmp');
    assert.ok(a.kind === 'run');
    assert.equal(a.args.ttl, parseLifetimeSeconds(text), text);
  }
  for (const bad of ['forever', '0', '2 months', 'permanent']) {
    assert.throws(() => parseCli(['add', 'some text to remember', '--ttl', bad], '/tmp'), UsageError, bad);
  }
});
