// Human times (src/extension/relativeTime.ts): relative phrases with correct plurals, a date
// when it is long ago, lifetimes in their largest whole unit.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { durationText, relativeTime, shortDate } from '../../src/extension/relativeTime';

const NOW = new Date('2026-11-24T12:00:00.000Z');
const ago = (ms: number) => new Date(NOW.getTime() - ms).toISOString();

test('relative times read as people say them', () => {
  assert.equal(relativeTime(ago(10_000), NOW), 'just now');
  assert.equal(relativeTime(ago(60_000), NOW), '1 minute ago');
  assert.equal(relativeTime(ago(5 * 60_000), NOW), '5 minutes ago');
  assert.equal(relativeTime(ago(2 * 3_600_000), NOW), '2 hours ago');
  assert.equal(relativeTime(ago(30 * 3_600_000), NOW), 'yesterday');
  assert.equal(relativeTime(ago(-30 * 3_600_000), NOW), 'tomorrow');
  assert.equal(relativeTime(ago(-3 * 86_400_000), NOW), 'in 3 days');
  assert.match(relativeTime(ago(90 * 86_400_000), NOW), /^on \d{1,2} \w{3} 2026$/);
  assert.match(shortDate('2026-03-01T07:13:00.000Z'), /^1 Mar 2026, \d\d:\d\d$/);
  assert.equal(relativeTime('not a date', NOW), 'not a date');
});

test('durations use their largest whole unit', () => {
  assert.equal(durationText(86_400), '1 day');
  assert.equal(durationText(7 * 86_400), '1 week');
  assert.equal(durationText(30 * 86_400), '30 days');
  assert.equal(durationText(12 * 3_600), '12 hours');
  assert.equal(durationText(90), '90 seconds');
});
