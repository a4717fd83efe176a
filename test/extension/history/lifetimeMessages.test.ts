// What people are told about deleting, expiry and restoring (src/extension/history/lifetimeMessages.ts):
// where a deleted memory goes and for how long it can be restored; that memories expired; for
// how long a restored memory is kept.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { deleteDetail, expiredNotice, restoredMessage } from '../../../src/extension/history/lifetimeMessages';
import type { RemovedMemory } from '../../../src/engine/protocol';

const DAY = 86_400_000;
const now = new Date('2026-03-10T12:00:00.000Z');

test('the delete dialog says where a deleted memory can be restored, and for how long', () => {
  assert.equal(
    deleteDetail(30 * DAY),
    'It moves to Recently Deleted and Expired (Agent Memory sidebar), where it can be restored for 30 days.',
  );
  assert.match(deleteDetail(3_600_000), /restored for 1 hour\.$/);
  assert.doesNotMatch(deleteDetail(30 * DAY), /history/);
});

const expired = (title: string, preview = `${title}: its text`, removedAt = now.toISOString()): RemovedMemory => ({
  memory: { id: title, title, preview, type: 'general', scope: 'project' } as RemovedMemory['memory'],
  reason: 'expired',
  removedAt,
  removedBy: 'lifecycle',
  detail: null,
  purgeAt: new Date(Date.parse(removedAt) + 30 * DAY).toISOString(),
});

test('an expiry notice names the memory or counts them, and says where to restore them until when', () => {
  assert.equal(
    expiredNotice([expired('Deploy freeze')]),
    'A short-term memory expired: “Deploy freeze”. Restore it from Recently Deleted and Expired within 30 days if you still need it.',
  );
  assert.equal(
    expiredNotice([expired('a'), expired('b'), expired('c')]),
    '3 short-term memories expired. Restore them from Recently Deleted and Expired within 30 days if you still need them.',
  );
  // An untitled one is named by its text.
  // An untitled one is named by its text, without its full stop inside the quotes.
  assert.match(expiredNotice([expired('', 'No deploys this week.')]), /^A short-term memory expired: “No deploys this week”\. /);
});

test('a restored memory says how long it is kept: an expired one gets a fresh lifetime, told in words', () => {
  const base = { title: 'Deploy freeze', content: 'No deploys this week.' };
  assert.equal(
    restoredMessage({ ...base, ttlSeconds: 86_400, expiresAt: new Date(now.getTime() + DAY).toISOString() }, true, now),
    'Memory restored for 1 day: “Deploy freeze”. It was short-term and had expired; it expires again tomorrow unless it is used. Keep it permanently?',
  );
  assert.equal(
    restoredMessage({ ...base, ttlSeconds: 7 * 86_400, expiresAt: new Date(now.getTime() + 5 * DAY).toISOString() }, false, now),
    'Memory restored: “Deploy freeze” (short-term: expires in 5 days).',
  );
  assert.equal(
    restoredMessage({ ...base, ttlSeconds: null, expiresAt: null }, false, now),
    'Memory restored: “Deploy freeze” (permanent).',
  );
});
