// Webhook deliveries (docs/changes.md "Webhooks") against a real HTTP receiver on 127.0.0.1 that
// checks every signature itself: signed, in the feed's order, retried with backoff after a 500,
// dead after maxAttempts, a hanging endpoint cut at the timeout while writes go on, a redirect to
// another host never followed, and a test event outside the queue.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { openMemory } from '../../helpers/memoryFixture';
import { tmpDir } from '../../helpers/tmp';
import { driveTasks } from '../../helpers/driveTasks';
import { WebhookReceiver } from '../../helpers/webhookReceiver';
import type { CreateResult, MemoryRecord } from '../../../src/core/memory/types';
import { syncWebhooks, recentDeliveries, type Delivery } from '../../../src/core/changes/outbox';
import { FileSecretStore, WebhookSender, newSigningSecret, retryDelayMs, type DeliverySettings } from '../../../src/core/webhooks';

function created(r: CreateResult): MemoryRecord {
  assert.equal(r.status, 'created', JSON.stringify(r));
  return (r as { memory: MemoryRecord }).memory;
}

const FAST: DeliverySettings = { timeoutMs: 2000, maxAttempts: 3, retryDelayMs: 50, maxRetryDelayMs: 200 };

async function setup(opts: { settings?: Partial<DeliverySettings>; events?: string[] } = {}) {
  const secret = newSigningSecret();
  const receiver = await WebhookReceiver.start(secret);
  const mem = await openMemory({ now: () => new Date() });
  const secrets = new FileSecretStore(path.join(tmpDir('am-secrets-'), 'secrets', 'webhooks.json'));
  await secrets.set('ci', secret);
  syncWebhooks(mem.store, [{ name: 'ci', url: receiver.url, events: (opts.events ?? []) as never[] }], new Date().toISOString());
  const attempts: Delivery[] = [];
  const sender = new WebhookSender({
    store: mem.store,
    secret: (name) => secrets.get(name),
    settings: () => ({ ...FAST, ...opts.settings }),
    onAttempt: (d) => attempts.push(d),
  });
  sender.start();
  const driver = driveTasks([sender]);
  const close = async () => {
    sender.stop();
    await driver.stop();
    await receiver.close();
    await mem.store.close();
  };
  return { ...mem, receiver, sender, secrets, attempts, driver, close };
}

const NOTES = [
  'The release branch is cut every other Tuesday after the planning meeting.',
  'Database migrations must be reviewed by the platform team before they merge.',
  'The on-call rotation hands over on Monday at 10:00 in the team channel.',
];

test('every change is delivered once, signed, in the order of the feed, with no memory text', async (t) => {
  const s = await setup();
  t.after(() => s.close());
  const [a, b, c] = NOTES.map((n) => created(s.svc.create({ content: n, who: 'cli' })));
  s.svc.update(a!.id, { tags: ['release'], who: 'claude-code' });
  s.svc.delete(b!.id, { who: 'user' });
  await s.receiver.until(() => s.attempts.filter((d) => d.status === 'delivered').length >= 5);
  const got = s.receiver.received;
  assert.deepEqual(
    got.map((r) => [r.body.event.type, r.body.event.memoryId, r.body.event.cursor]),
    [
      ['memory.created', a!.id, 1],
      ['memory.created', b!.id, 2],
      ['memory.created', c!.id, 3],
      ['memory.updated', a!.id, 4],
      ['memory.deleted', b!.id, 5],
    ],
  );
  for (const r of got) {
    assert.ok(r.verified, 'the receiver checked the signature and timestamp with the shared secret');
    assert.equal(r.headers['x-agent-memory-delivery'], r.body.id, 'the delivery id is in a header and the body');
    assert.equal(r.headers['x-agent-memory-event'], r.body.event.type);
    assert.equal(r.headers['content-type'], 'application/json');
    assert.equal(r.body.webhook, 'ci');
    assert.equal(r.body.attempt, 1);
    for (const n of NOTES) assert.ok(!r.raw.includes(n.slice(0, 30)), 'no memory text is sent');
  }
  assert.equal(got[3]!.body.event.actor, 'claude-code');
  assert.equal(got[3]!.body.event.version, 2);
  const rows = recentDeliveries(s.store, { limit: 10 });
  assert.equal(rows.length, 5);
  assert.ok(rows.every((d) => d.status === 'delivered' && d.attempts === 1 && d.lastStatus === 200 && d.deliveredAt));
  assert.equal(new Set(got.map((r) => r.body.id)).size, 5, 'one delivery id per event');
});

test('a 500 is retried with the same delivery id after the backoff; the next event waits its turn', async (t) => {
  const s = await setup();
  t.after(() => s.close());
  s.receiver.enqueue({ status: 500, body: 'database is down' }, { status: 503 });
  const a = created(s.svc.create({ content: NOTES[0]! }));
  const b = created(s.svc.create({ content: NOTES[1]! }));
  await s.receiver.until(() => s.receiver.delivered.length >= 2);
  const got = s.receiver.received;
  assert.deepEqual(
    got.map((r) => [r.body.event.memoryId, r.body.attempt, r.answered]),
    [
      [a.id, 1, 500],
      [a.id, 2, 503],
      [a.id, 3, 200],
      [b.id, 1, 200],
    ],
    'the second change is sent only after the first got through',
  );
  assert.equal(new Set(got.slice(0, 3).map((r) => r.body.id)).size, 1, 'every attempt has the same delivery id');
  assert.ok(
    got.every((r) => r.verified),
    'each attempt is signed again',
  );
  const failed = s.attempts.filter((d) => d.status === 'pending');
  assert.equal(failed.length, 2);
  assert.match(failed[0]!.lastError ?? '', /answered 500: database is down/);
  assert.equal(failed[0]!.lastStatus, 500);
  // The waits double: retryDelay after the first failure, twice that after the second.
  const gap1 = Date.parse(failed[0]!.nextAttemptAt) - Date.parse(failed[0]!.lastAttemptAt!);
  const gap2 = Date.parse(failed[1]!.nextAttemptAt) - Date.parse(failed[1]!.lastAttemptAt!);
  assert.deepEqual([gap1, gap2], [retryDelayMs(FAST, 1), retryDelayMs(FAST, 2)]);
  assert.deepEqual([retryDelayMs(FAST, 1), retryDelayMs(FAST, 2), retryDelayMs(FAST, 5)], [50, 100, 200]);
  const row = recentDeliveries(s.store, { limit: 10 }).find((d) => d.event.memoryId === a.id)!;
  assert.equal(row.status, 'delivered');
  assert.equal(row.attempts, 3);
  assert.equal(row.lastError, null);
});

test('after maxAttempts a delivery is dead with its reason, and the queue moves on', async (t) => {
  const s = await setup();
  t.after(() => s.close());
  s.receiver.enqueue({ status: 500 }, { status: 500 }, { status: 500 });
  const a = created(s.svc.create({ content: NOTES[0]! }));
  const b = created(s.svc.create({ content: NOTES[1]! }));
  await s.receiver.until(() => s.attempts.some((d) => d.event.memoryId === b.id && d.status === 'delivered'));
  assert.equal(s.receiver.received.filter((r) => r.body.event.memoryId === a.id).length, 3, 'maxAttempts = 3');
  const rows = recentDeliveries(s.store, { limit: 10 });
  const dead = rows.find((d) => d.event.memoryId === a.id)!;
  assert.equal(dead.status, 'dead');
  assert.equal(dead.attempts, 3);
  assert.match(dead.lastError ?? '', /answered 500/);
  assert.equal(rows.find((d) => d.event.memoryId === b.id)!.status, 'delivered');
  assert.deepEqual(
    recentDeliveries(s.store, { limit: 10, failedOnly: true }).map((d) => d.id),
    [dead.id],
  );
});

test('an endpoint that hangs is cut at the timeout and retried; writes meanwhile do not wait for it', async (t) => {
  const s = await setup({ settings: { timeoutMs: 300 } });
  t.after(() => s.close());
  s.receiver.enqueue({ hang: true });
  const a = created(s.svc.create({ content: NOTES[0]! }));
  await s.receiver.until(() => s.receiver.received.length >= 1);
  // The request hangs now; writes go on and are durable without it.
  const b = created(s.svc.create({ content: NOTES[1]! }));
  s.svc.update(b.id, { tags: ['ops'] });
  assert.equal(s.receiver.received[0]!.answered, undefined, 'the first request was still unanswered while the writes completed');
  await s.receiver.until(() => s.receiver.delivered.length >= 3);
  const first = s.attempts.find((d) => d.event.memoryId === a.id && d.status === 'pending')!;
  assert.equal(first.lastError, 'no answer within 300 ms');
  assert.equal(first.lastStatus, null);
  assert.deepEqual(
    s.receiver.delivered.map((r) => [r.body.event.type, r.body.event.memoryId]),
    [
      ['memory.created', a.id],
      ['memory.created', b.id],
      ['memory.updated', b.id],
    ],
  );
});

test('a redirect to the same origin is followed; one to another host is not, and says so', async (t) => {
  const s = await setup({ settings: { maxAttempts: 1 } });
  const elsewhere = await WebhookReceiver.start(s.receiver.secret);
  t.after(async () => {
    await s.close();
    await elsewhere.close();
  });
  s.receiver.enqueue({ status: 307, location: '/moved' });
  const a = created(s.svc.create({ content: NOTES[0]! }));
  await s.receiver.until(() => s.receiver.delivered.length >= 1);
  s.receiver.enqueue({ status: 308, location: `${elsewhere.url}` });
  assert.deepEqual(
    s.receiver.received.map((r) => [r.path, r.answered]),
    [
      ['/hook', 307],
      ['/moved', 200],
    ],
  );
  assert.ok(s.receiver.received[1]!.verified, 'the body and signature are sent again to the new path');
  const b = created(s.svc.create({ content: NOTES[1]! }));
  await s.receiver.until(() => s.attempts.some((d) => d.event.memoryId === b.id));
  const dead = s.attempts.find((d) => d.event.memoryId === b.id)!;
  assert.equal(dead.status, 'dead');
  assert.equal(dead.lastStatus, 308);
  assert.match(
    dead.lastError ?? '',
    new RegExp(
      `redirected to another host \\(${elsewhere.origin.replace(/[.:/]/g, '\\$&')}\\); redirects to another host are not followed`,
    ),
  );
  assert.equal(elsewhere.received.length, 0, 'nothing reached the other host');
  assert.equal(a.version, 1);
});

test('a refused connection is a clear failure; a webhook gets only the change types it subscribed to', async (t) => {
  const s = await setup({ events: ['memory.deleted'] });
  t.after(() => s.close());
  const a = created(s.svc.create({ content: NOTES[0]! }));
  s.svc.update(a.id, { tags: ['x'] });
  s.svc.delete(a.id);
  await s.receiver.until(() => s.receiver.delivered.length >= 1);
  assert.deepEqual(
    s.receiver.received.map((r) => r.body.event.type),
    ['memory.deleted'],
  );
  assert.equal(recentDeliveries(s.store, { limit: 10 }).length, 1, 'no delivery was even queued for the other changes');

  // Nothing listens on the port any more: refused.
  const port = new URL(s.receiver.url).port;
  await s.receiver.close();
  syncWebhooks(s.store, [{ name: 'ci', url: `http://127.0.0.1:${port}/hook`, events: [] }], new Date().toISOString());
  s.svc.restore(a.id);
  const until = Date.now() + 10_000;
  while (!s.attempts.some((d) => d.eventType === 'memory.restored') && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
  const refused = s.attempts.find((d) => d.eventType === 'memory.restored')!;
  assert.equal(refused.lastError, 'the connection was refused (nothing listens there)');
});

test('"Send test event" sends one signed test delivery at once, outside the queue, and records it', async (t) => {
  const s = await setup();
  t.after(() => s.close());
  const d = await s.sender.sendTest('ci');
  assert.ok(d);
  assert.equal(d.status, 'delivered');
  assert.equal(d.cursor, null);
  assert.equal(s.receiver.received.length, 1);
  const r = s.receiver.received[0]!;
  assert.ok(r.verified);
  assert.equal(r.body.event.type, 'webhook.test');
  assert.equal(r.headers['x-agent-memory-event'], 'webhook.test');
  s.receiver.enqueue({ status: 404, body: 'no such route' });
  const failed = await s.sender.sendTest('ci');
  assert.equal(failed?.status, 'dead', 'a test event is never retried');
  assert.equal(failed?.lastError, 'answered 404: no such route');
  assert.equal(await s.sender.sendTest('nope'), undefined, 'an unknown webhook');
});
