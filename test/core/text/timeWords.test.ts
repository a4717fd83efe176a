/** Human dates and relative times instead of raw ISO timestamps. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { expiryText, humanDate, relativeTime } from '../../../src/core/text/timeWords';

// Local-time noon, so calendar days do not depend on the machine's time zone.
const NOW = new Date(2026, 10, 24, 12, 0, 0);
const at = (ms: number) => new Date(NOW.getTime() + ms);
const H = 3_600_000;

test('relative times read like a person would say them', () => {
  assert.equal(relativeTime(at(-10_000), NOW), 'just now');
  assert.equal(relativeTime(at(-5 * 60_000), NOW), '5 minutes ago');
  assert.equal(relativeTime(at(-2 * H), NOW), '2 hours ago');
  assert.equal(relativeTime(at(-26 * H), NOW), 'yesterday');
  assert.equal(relativeTime(at(-3 * 24 * H), NOW), '3 days ago');
  assert.equal(relativeTime(at(2 * H), NOW), 'in 2 hours');
  assert.equal(relativeTime(at(24 * H), NOW), 'tomorrow');
  assert.equal(relativeTime(at(-90 * 24 * H).toISOString(), NOW), 'on 26 Aug 2026', 'far away: a date');
});

test('expiry reads "expires tomorrow" / "expired 2 hours ago"', () => {
  assert.equal(expiryText(at(24 * H), NOW), 'expires tomorrow');
  assert.equal(expiryText(at(3 * H), NOW), 'expires in 3 hours');
  assert.equal(expiryText(at(-2 * H), NOW), 'expired 2 hours ago');
});

test('absolute dates are short and readable; garbage is shown as it is, not "Invalid Date"', () => {
  assert.equal(humanDate('2026-03-12T14:05:00.000Z', { timeZone: 'UTC' }), '12 Mar 2026, 14:05');
  assert.equal(humanDate('2026-03-12T14:05:00.000Z', { time: false, timeZone: 'UTC' }), '12 Mar 2026');
  assert.equal(humanDate('not a date'), 'not a date');
  assert.equal(relativeTime('not a date', NOW), 'not a date');
});
