import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Store } from '../../../src/core/store/store';
import { ACCESS_THROTTLE_MS, AccessTracker } from '../../../src/core/lifecycle/access';
import { openMemory } from '../../helpers/memoryFixture';
import { tmpDir } from '../../helpers/tmp';

test('access: at most one per memory per hour counts, and the throttle survives a restart (last_accessed_at is persisted)', async () => {
  const dir = tmpDir('am-access-');
  const m = await openMemory({ dir });
  const r = m.svc.create({ content: 'The release checklist lives in docs/release.md.', ttlSeconds: 48 * 3600 });
  assert.equal(r.status, 'created');
  const mem = r.status === 'created' ? r.memory : undefined!;
  const tracker = new AccessTracker(m.store, { now: m.clock.now });
  for (let i = 0; i < 10; i++) {
    tracker.record([mem.rid]);
    tracker.flush();
    m.clock.advance(60_000); // ten accesses a minute apart: one counts
  }
  assert.equal(m.svc.get(mem.id)!.accessCount, 1);
  const expiresAfterOne = m.svc.get(mem.id)!.expiresAt;
  await m.store.close({ snapshot: false });

  // A restart 20 minutes after the first access: still inside the hour, still not counted.
  const store = await Store.open({ dir });
  let now = new Date(Date.parse(mem.createdAt) + 20 * 60_000);
  const again = new AccessTracker(store, { now: () => now });
  again.record([mem.rid]);
  assert.equal(again.flush().bumped, 0);
  const row = () =>
    store.get<{ access_count: number; expires_at: string }>('SELECT access_count, expires_at FROM memories WHERE rid = ?', [mem.rid])!;
  assert.equal(row().access_count, 1);
  assert.equal(row().expires_at, expiresAfterOne, 'an uncounted access does not extend the lifetime either');
  // An hour after the first one: counts.
  now = new Date(Date.parse(mem.createdAt) + ACCESS_THROTTLE_MS);
  again.record([mem.rid]);
  assert.equal(again.flush().bumped, 1);
  assert.equal(row().access_count, 2);
  await store.close();
});

test('access: a failed flush keeps the accesses queued and reports it; the next flush writes them', async () => {
  const m = await openMemory();
  const r = m.svc.create({ content: 'Feature flags are read from the flags service at startup.', ttlSeconds: null });
  const mem = r.status === 'created' ? r.memory : undefined!;
  const errors: string[] = [];
  const tracker = new AccessTracker(m.store, { now: m.clock.now, onError: (e) => errors.push(e) });
  tracker.record([mem.rid]);
  const original = m.store.transaction.bind(m.store);
  (m.store as { transaction: unknown }).transaction = () => {
    throw new Error('store busy');
  };
  tracker.flushQuietly();
  assert.equal(errors.length, 1);
  assert.match(errors[0]!, /store busy/);
  assert.equal(tracker.pending, 1, 'kept for the next flush');
  (m.store as { transaction: unknown }).transaction = original;
  tracker.flushQuietly();
  assert.equal(tracker.pending, 0);
  assert.equal(m.svc.get(mem.id)!.accessCount, 1);
  await m.store.close();
});

test('access: a full queue is written at once (maxPending), without any timer', async () => {
  const m = await openMemory();
  const rids: number[] = [];
  for (let i = 0; i < 3; i++) {
    const r = m.svc.create({ content: `Service number ${i} is owned by team ${'xyz'[i]}.`, ttlSeconds: null, allowNearDuplicate: true });
    if (r.status === 'created') rids.push(r.memory.rid);
  }
  const tracker = new AccessTracker(m.store, { now: m.clock.now, maxPending: 3 });
  tracker.record(rids.slice(0, 2));
  assert.equal(tracker.pending, 2);
  tracker.record(rids.slice(2));
  assert.equal(tracker.pending, 0);
  assert.equal(Number(m.store.get<{ n: number }>('SELECT sum(access_count) AS n FROM memories')!.n), 3);
  await m.store.close();
});
