// What the Webhooks view and its commands say (src/extension/webhooks/webhooksText.ts): a webhook's state
// and counts in words, each delivery's outcome, and the notifications of its three commands.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { WebhookDelivery, WebhookInfo } from '../../../src/engine/protocol';
import * as t from '../../../src/extension/webhooks/webhooksText';

const NOW = new Date('2026-11-28T05:00:00.000Z');

const delivery = (over: Partial<WebhookDelivery> = {}): WebhookDelivery => ({
  id: 'd-1',
  webhook: 'ci',
  cursor: 42,
  eventType: 'memory.created',
  event: {},
  status: 'delivered',
  attempts: 1,
  nextAttemptAt: '2026-11-28T04:58:00.000Z',
  lastAttemptAt: '2026-11-28T04:58:00.000Z',
  lastStatus: 200,
  lastError: null,
  deliveredAt: '2026-11-28T04:58:00.000Z',
  createdAt: '2026-11-28T04:58:00.000Z',
  ...over,
});

const hook = (over: Partial<WebhookInfo> = {}): WebhookInfo => ({
  name: 'ci',
  url: 'http://127.0.0.1:9000/hook',
  events: [],
  state: 'active',
  pending: 0,
  delivered: 5,
  dead: 0,
  retryable: 0,
  ...over,
});

test('a webhook row says its state and counts, and its menu offers what applies', () => {
  assert.equal(t.webhookDescription(hook()), '5 delivered');
  assert.deepEqual(t.webhookLook(hook()), { icon: 'pass', color: 'testing.iconPassed' });
  assert.equal(t.webhookContext(hook()), 'webhook.active');

  const failing = hook({ pending: 2, dead: 1, retryable: 1, last: delivery({ status: 'pending', attempts: 2, lastStatus: 500 }) });
  assert.equal(t.webhookDescription(failing), 'failing, 2 waiting, 5 delivered, 1 failed');
  assert.equal(t.webhookLook(failing).icon, 'warning');
  assert.equal(t.webhookContext(failing), 'webhook.active.failed');

  // A failed test event counts as failed but is not retried: no retry in the menu.
  assert.equal(t.webhookContext(hook({ dead: 1, retryable: 0 })), 'webhook.active');

  const noSecret = hook({ state: 'needs_secret', delivered: 0 });
  assert.equal(t.webhookDescription(noSecret), 'no secret: nothing is sent');
  assert.equal(t.webhookContext(noSecret), 'webhook.needs_secret');
  assert.match(t.webhookTooltip(noSecret, 'the keychain of this computer'), /nothing is sent to it\. Copy Signing Secret makes one/);
  assert.equal(t.webhookDescription(hook({ state: 'paused' })), 'paused: this workspace is not trusted');

  const tip = t.webhookTooltip(
    hook({ events: ['memory.created', 'memory.deleted'] }),
    'a file only you can read: /x (no keychain answers here: off)',
  );
  assert.match(tip, /^ci → http:\/\/127\.0\.0\.1:9000\/hook\n\nSends memory\.created, memory\.deleted\./);
  assert.match(tip, /Signing secrets are kept in a file only you can read: \/x \(no keychain answers here: off\)\.$/);
});

test('a delivery row says what was sent and how it went, in words', () => {
  assert.equal(t.deliveryTitle(delivery()), 'Memory created (change 42)');
  assert.equal(t.deliveryTitle(delivery({ cursor: null, eventType: 'webhook.test' })), 'Test event');
  assert.equal(t.deliveryDescription(delivery(), NOW), 'delivered 2 minutes ago');
  assert.equal(t.deliveryDescription(delivery({ status: 'pending', attempts: 0 }), NOW), 'waiting to be sent');
  const retrying = delivery({ status: 'pending', attempts: 3, nextAttemptAt: '2026-11-28T05:10:00.000Z', lastError: 'answered 500: boom' });
  assert.equal(t.deliveryDescription(retrying, NOW), 'failing, next try in 10 minutes');
  assert.equal(t.deliveryLook(retrying).icon, 'sync');
  const dead = delivery({ status: 'dead', attempts: 8, lastError: 'answered 500: boom', deliveredAt: null });
  assert.equal(t.deliveryDescription(dead, NOW), 'failed after 8 attempts');
  assert.deepEqual(t.deliveryLook(dead), { icon: 'error', color: 'list.errorForeground' });
  const tip = t.deliveryTooltip(dead, NOW);
  assert.match(tip, /^Memory created \(change 42\) to ci: failed after 8 attempts\.\n\nLast error: answered 500: boom\./);
  assert.match(tip, /Delivery id: d-1 \(the same on every attempt; the receiver drops repeats by it\)\.$/);
  assert.doesNotMatch(t.deliveryTooltip(delivery(), NOW), /Last error/);
  // Dates in the one wording of src/core/text/timeWords.ts ("28 Nov 2026, 05:58" in local time), not the platform's toLocaleString.
  assert.match(tip, /\n\nLast attempt: \d{1,2} Nov 2026, \d\d:\d\d \(8 attempts in all\)\.\n\n/);
});

test('the commands say what happened and what to do', () => {
  assert.deepEqual(t.testOutcome(delivery({ cursor: null, eventType: 'webhook.test' })), {
    ok: true,
    message: 'The test event reached ci (it answered 200).',
  });
  const refused = t.testOutcome(
    delivery({ status: 'dead', lastStatus: null, lastError: 'the connection was refused (nothing listens there)' }),
  );
  assert.equal(refused.ok, false);
  assert.equal(
    refused.message,
    'The test event did not reach ci: the connection was refused (nothing listens there). Check the URL and that the receiver runs, then send it again.',
  );
  assert.match(
    t.makeSecretQuestion(hook()),
    /^ci has no signing secret yet, so nothing is sent to it\. Make one and copy it\? Once it exists, changes .* are sent to http:\/\/127\.0\.0\.1:9000\/hook\.$/,
  );
  assert.match(
    t.secretCopied({ name: 'ci', created: true, keptIn: 'the keychain' }),
    /^Made a signing secret for ci and copied it\. .*The secret is kept in the keychain\.$/,
  );
  assert.equal(
    t.secretCopied({ name: 'ci', created: false, keptIn: 'the keychain' }),
    'Copied the signing secret of ci (kept in the keychain).',
  );
  assert.equal(t.retried(1, 'ci'), '1 failed delivery to ci will be sent again now.');
  assert.equal(t.retried(3), '3 failed deliveries will be sent again now.');
  assert.equal(t.retried(0), 'No failed deliveries to send again (a failed test event is not retried: send another).');
});
