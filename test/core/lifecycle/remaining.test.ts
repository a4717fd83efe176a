import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeAgo, describeExpiry, spanInWords } from '../../../src/core/lifecycle/remaining';

test('remaining: the lifetime left in words; nothing for a permanent memory', () => {
  const now = new Date(2026, 2, 1, 10, 0, 0); // local time: "tomorrow" is a calendar day
  const at = (h: number) => new Date(now.getTime() + h * 3600_000).toISOString();
  assert.equal(describeExpiry(null, now), undefined);
  assert.equal(describeExpiry('not a date', now), undefined);
  assert.equal(describeExpiry(at(-1), now), 'expired');
  assert.equal(describeExpiry(at(0.5), now), 'expires in 30 minutes');
  assert.equal(describeExpiry(at(5), now), 'expires in 5 hours');
  assert.equal(describeExpiry(at(24), now), 'expires tomorrow');
  assert.equal(describeExpiry(at(72), now), 'expires in 3 days');
  assert.equal(describeExpiry(at(1 / 120), now), 'expires in less than a minute');
  assert.equal(spanInWords(3600_000), '1 hour');
});

test('remaining: when something happened, relative ("2 hours ago", "yesterday")', () => {
  const now = new Date(2026, 2, 5, 18, 0, 0);
  const ago = (h: number) => new Date(now.getTime() - h * 3600_000).toISOString();
  assert.equal(describeAgo(ago(0), now), 'just now');
  assert.equal(describeAgo(ago(2), now), '2 hours ago');
  assert.equal(describeAgo(ago(24), now), 'yesterday');
  assert.equal(describeAgo(ago(72), now), '3 days ago');
});
