// The change feed (docs/changes.md): every create, update, delete, merge, expire, restore and
// promote writes one memory_events row in the change's own transaction, with no memory text; the
// cursor is stable across a replay of the op log and never reused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openMemory } from '../../helpers/memoryFixture';
import { Store } from '../../../src/core/store/store';
import { MemoryService } from '../../../src/core/memory/memoryService';
import type { CreateResult, MemoryRecord } from '../../../src/core/memory/types';
import { promoteMemory } from '../../../src/core/lifecycle/promote';
import { cleanupExpired } from '../../../src/core/lifecycle/cleanup';
import { applyAccesses } from '../../../src/core/lifecycle/access';
import { DEFAULT_LIFECYCLE } from '../../../src/core/memory/limits';
import { eventsSince, latestCursor } from '../../../src/core/changes/events';
import { runRetentionSweep } from '../../../src/core/retention/sweep';
import { recentDeliveries, syncWebhooks } from '../../../src/core/changes/outbox';

function created(r: CreateResult): MemoryRecord {
  assert.equal(r.status, 'created', JSON.stringify(r));
  return (r as { memory: MemoryRecord }).memory;
}

const TEXTS = {
  a: 'The staging database is rebuilt from the nightly dump every Monday morning.',
  b: 'Release builds are signed with the hardware token kept in the office safe.',
  c: 'Short-lived note: the flaky checkout test is quarantined until the mock server is fixed.',
};

test('every kind of change writes one event, in order, with version, store, actor and time, and no memory text', async () => {
  const { store, svc, clock } = await openMemory();
  const a = created(svc.create({ content: TEXTS.a, who: 'cli' }));
  clock.advance(1000);
  const updated = svc.update(a.id, { tags: ['ops'], who: 'claude-code' });
  clock.advance(1000);
  svc.delete(a.id, { who: 'user', reason: 'moved to the wiki' });
  clock.advance(1000);
  svc.restore(a.id, { who: 'user' });
  const b = created(svc.create({ content: TEXTS.b }));
  store.transaction((tx) => {
    svc.mergeInTx(tx, a.id, { content: `${TEXTS.a} ${TEXTS.b}`, absorbedIds: [b.id], who: 'system' });
    svc.absorbInTx(tx, b.id, a.id, { who: 'system' });
  });
  const c = created(svc.create({ content: TEXTS.c, ttlSeconds: 3600 }));
  promoteMemory(store, c.id, { who: 'user', now: clock.now() });
  const d = created(
    svc.create({ content: 'A note that expires: the demo account password rotates on the first of the month.', ttlSeconds: 60 }),
  );
  clock.advance(120_000);
  const expired = cleanupExpired(store, { now: clock.now() });
  assert.deepEqual(expired.ids, [d.id]);
  const e = created(
    svc.create({ content: 'Another short-lived note: the VPN gateway moves to the new rack on Thursday.', ttlSeconds: 3600 }),
  );
  store.transaction((tx) => applyAccesses(tx, [e.rid], clock.now(), { ...DEFAULT_LIFECYCLE, promoteAccessCount: 1 }));

  const page = eventsSince(store, 0, 100);
  assert.deepEqual(
    page.events.map((ev) => [ev.type, ev.memoryId, ev.version, ev.actor]),
    [
      ['memory.created', a.id, 1, 'cli'],
      ['memory.updated', a.id, 2, 'claude-code'],
      ['memory.deleted', a.id, 3, 'user'],
      ['memory.restored', a.id, 4, 'user'],
      ['memory.created', b.id, 1, 'user'],
      ['memory.merged', a.id, 5, 'system'],
      ['memory.merged', b.id, 2, 'system'],
      ['memory.created', c.id, 1, 'user'],
      ['memory.promoted', c.id, 1, 'user'],
      ['memory.created', d.id, 1, 'user'],
      ['memory.expired', d.id, 2, 'lifecycle'],
      ['memory.created', e.id, 1, 'user'],
      ['memory.promoted', e.id, 1, 'lifecycle'],
    ],
  );
  assert.equal(updated.version, 2);
  assert.deepEqual(
    page.events.map((ev) => ev.cursor),
    page.events.map((_, i) => i + 1),
    'cursors count up from 1',
  );
  assert.equal(page.events[6]!.mergedInto, a.id, 'the absorbed memory says where it went');
  assert.equal(page.events[5]!.mergedInto, undefined);
  assert.ok(page.events.every((ev) => ev.store === 'project' && ev.projectId === 'github.com/acme/app'));
  assert.equal(page.events[1]!.at, '2026-03-01T12:00:01.000Z');
  assert.equal(page.cursor, 13);
  assert.equal(page.latest, 13);
  assert.equal(page.more, false);
  assert.equal(page.gap, false);

  // No memory text anywhere in the feed's table.
  const dump = JSON.stringify(store.all('SELECT * FROM memory_events'));
  for (const t of [TEXTS.a, TEXTS.b, TEXTS.c, 'staging database', 'hardware token', 'VPN gateway', 'demo account'])
    assert.ok(!dump.includes(t), `the feed holds no memory text (${t})`);
  await store.close();
});

test('an accessed memory that is not promoted, a no-op update and a proposal audit write no event', async () => {
  const { store, svc, clock } = await openMemory();
  const a = created(svc.create({ content: TEXTS.c, ttlSeconds: 3600 }));
  const before = latestCursor(store);
  store.transaction((tx) => applyAccesses(tx, [a.rid], clock.now(), DEFAULT_LIFECYCLE)); // extends the lifetime only
  svc.update(a.id, { tags: [] }); // nothing changes
  assert.equal(latestCursor(store), before);
  await store.close();
});

test('a transaction that fails leaves no event and no delivery, and does not use up a cursor', async () => {
  const { store, svc } = await openMemory();
  syncWebhooks(store, [{ name: 'ci', url: 'http://127.0.0.1:9/hook', events: [] }], new Date().toISOString());
  const a = created(svc.create({ content: TEXTS.a }));
  assert.throws(() =>
    store.transaction((tx) => {
      svc.updateInTx(tx, a.id, { tags: ['ops'] });
      throw new Error('the caller gave up');
    }),
  );
  assert.equal(latestCursor(store), 1);
  svc.delete(a.id);
  assert.deepEqual(
    eventsSince(store, 0, 10).events.map((e) => [e.cursor, e.type]),
    [
      [1, 'memory.created'],
      [2, 'memory.deleted'],
    ],
  );
  // The outbox too: a delivery per committed change, none for the one that failed.
  assert.deepEqual(
    recentDeliveries(store, { limit: 10 }).map((d) => [d.cursor, d.eventType, d.status]),
    [
      [2, 'memory.deleted', 'pending'],
      [1, 'memory.created', 'pending'],
    ],
  );
  await store.close();
});

test('paging: at most `limit` events, `more` and the cursor to go on from', async () => {
  const { store, svc } = await openMemory();
  for (let i = 0; i < 5; i++) created(svc.create({ content: `Numbered fact ${i}: the build agent ${i} runs on the ARM pool only.` }));
  const first = eventsSince(store, 0, 2);
  assert.deepEqual(
    first.events.map((e) => e.cursor),
    [1, 2],
  );
  assert.equal(first.more, true);
  const second = eventsSince(store, first.cursor, 10);
  assert.deepEqual(
    second.events.map((e) => e.cursor),
    [3, 4, 5],
  );
  assert.equal(second.more, false);
  const none = eventsSince(store, second.cursor, 10);
  assert.deepEqual(none.events, []);
  assert.equal(none.cursor, 5);
  assert.equal(none.gap, false);
  // A cursor this store never gave (another store's) is a gap: the reader must read again.
  const foreign = eventsSince(store, 99, 10);
  assert.equal(foreign.gap, true);
  assert.equal(foreign.cursor, 5);
  await store.close();
});

test('the cursors are the same after the op log is replayed, and new ones go on after them', async () => {
  const { store, svc, dir } = await openMemory();
  const a = created(svc.create({ content: TEXTS.a }));
  svc.update(a.id, { tags: ['ops'] });
  const before = eventsSince(store, 0, 10).events;
  await store.close({ snapshot: false }); // the events come back from the log alone
  const again = await Store.open({ dir });
  assert.equal(again.stats().replayedRecords > 0, true, 'replayed from the log');
  assert.deepEqual(eventsSince(again, 0, 10).events, before);
  const svc2 = new MemoryService(again, { projectId: 'github.com/acme/app' });
  svc2.delete(a.id);
  assert.equal(latestCursor(again), 3);
  await again.close(); // snapshot
  const third = await Store.open({ dir });
  assert.deepEqual(
    eventsSince(third, 0, 10).events.map((e) => [e.cursor, e.type]),
    [
      [1, 'memory.created'],
      [2, 'memory.updated'],
      [3, 'memory.deleted'],
    ],
  );
  await third.close();
});

test('retention removes old events and finished deliveries; cursors go on after them and a reader behind is told', async () => {
  const { store, svc, clock } = await openMemory();
  const DAY = 86_400_000;
  const windows = { tombstoneRetentionMs: 30 * DAY, historyRetentionMs: 10 * DAY, completedJobRetentionMs: DAY, deadJobRetentionMs: DAY };
  const a = created(svc.create({ content: TEXTS.a }));
  svc.update(a.id, { tags: ['ops'] });
  store.transaction((tx) => {
    for (const [id, status] of [
      ['d-delivered', 'delivered'],
      ['d-dead', 'dead'],
      ['d-pending', 'pending'],
    ] as const)
      tx.run(
        `INSERT INTO webhook_deliveries (id, webhook, event_seq, event_type, payload_json, status, next_attempt_at, created_at)
         VALUES (?, 'ci', 1, 'memory.created', '{}', ?, ?, ?)`,
        [id, status, clock.now().toISOString(), clock.now().toISOString()],
      );
  });
  clock.advance(11 * DAY);
  const report = runRetentionSweep(store, windows, clock.now());
  const removed = Object.fromEntries(report.steps.map((s) => [s.step, s.removed]));
  assert.equal(removed.events, 2);
  assert.equal(removed.deliveries, 2, 'delivered and dead ones go; the pending one stays');
  assert.deepEqual(
    store.all<{ id: string }>('SELECT id FROM webhook_deliveries').map((r) => r.id),
    ['d-pending'],
  );
  assert.deepEqual(eventsSince(store, 2, 10).events, []);
  assert.equal(eventsSince(store, 0, 10).gap, true, 'a reader at cursor 0 missed events 1 and 2');
  assert.equal(eventsSince(store, 2, 10).gap, false, 'a reader at cursor 2 missed nothing');
  svc.delete(a.id);
  assert.deepEqual(
    eventsSince(store, 2, 10).events.map((e) => [e.cursor, e.type]),
    [[3, 'memory.deleted']],
    'numbering goes on after the removed events, never from 1 again',
  );
  await store.close();
});
