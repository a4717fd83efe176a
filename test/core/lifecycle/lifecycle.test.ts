import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setImmediate as tick } from 'node:timers/promises';
import { Store } from '../../../src/core/store/store';
import { AccessTracker } from '../../../src/core/lifecycle/access';
import { promoteMemory } from '../../../src/core/lifecycle/promote';
import { cleanupExpired } from '../../../src/core/lifecycle/cleanup';
import { isLive } from '../../../src/core/memory/visibility';
import { NotFoundError } from '../../../src/core/memory/errors';
import { openMemory } from '../../helpers/memoryFixture';
import { searchFixture } from '../search/fixture';
import { tmpDir } from '../../helpers/tmp';

const HOUR = 3600;

describe('lifecycle: access on read', () => {
  test('each access extends the expiry by 50% of the original TTL', async () => {
    const m = await openMemory();
    const r = m.svc.create({ content: 'Short-lived note about the staging database password rotation.', ttlSeconds: HOUR });
    assert.equal(r.status, 'created');
    const mem = r.status === 'created' ? r.memory : undefined!;
    const created = Date.parse(mem.expiresAt!) - HOUR * 1000;
    const tracker = new AccessTracker(m.store, { now: m.clock.now });
    tracker.record([mem.rid]);
    tracker.flush();
    let now = m.svc.get(mem.id)!;
    assert.equal(now.accessCount, 1);
    assert.equal(now.ttlSeconds, HOUR, 'the original TTL is kept');
    assert.equal(Date.parse(now.expiresAt!), created + HOUR * 1000 * 1.5);
    // An hour later: two accesses in one batch count once.
    m.clock.advance(HOUR * 1000);
    tracker.record([mem.rid]);
    tracker.record([mem.rid]);
    const res = tracker.flush();
    assert.equal(res.bumped, 1);
    now = m.svc.get(mem.id)!;
    assert.equal(now.accessCount, 2);
    assert.equal(Date.parse(now.expiresAt!), created + HOUR * 1000 * 2);
    assert.equal(now.lastAccessedAt, m.clock.now().toISOString());
    await m.store.close();
  });

  test('the configured factor is used', async () => {
    const m = await openMemory();
    const r = m.svc.create({ content: 'Cache warm-up runs every night at two.', ttlSeconds: 1000 });
    const mem = r.status === 'created' ? r.memory : undefined!;
    const tracker = new AccessTracker(m.store, { now: m.clock.now, lifecycle: { ttlExtendFactor: 0.25 } });
    tracker.record([mem.rid]);
    tracker.flush();
    assert.equal(Date.parse(m.svc.get(mem.id)!.expiresAt!) - Date.parse(mem.expiresAt!), 250_000);
    assert.throws(() => new AccessTracker(m.store, { lifecycle: { ttlExtendFactor: -1 } }), RangeError);
    await m.store.close();
  });

  test('promoted to permanent at the 5th access, with a history row; permanent ones only count', async () => {
    const m = await openMemory();
    const r = m.svc.create({ content: 'Release branches are cut on Thursdays.', ttlSeconds: 24 * HOUR });
    const mem = r.status === 'created' ? r.memory : undefined!;
    const perm = m.svc.create({ content: 'The product name is Agent Memory.', ttlSeconds: null });
    const p = perm.status === 'created' ? perm.memory : undefined!;
    const tracker = new AccessTracker(m.store, { now: m.clock.now });
    for (let i = 1; i <= 4; i++) {
      if (i > 1) m.clock.advance(HOUR * 1000); // one access per memory per hour counts
      tracker.record([mem.rid, p.rid]);
      assert.deepEqual(tracker.flush().promoted, []);
      assert.notEqual(m.svc.get(mem.id)!.expiresAt, null);
    }
    m.clock.advance(HOUR * 1000);
    tracker.record([mem.rid, p.rid]);
    assert.deepEqual(tracker.flush().promoted, [mem.id]);
    const after = m.svc.get(mem.id)!;
    assert.equal(after.accessCount, 5);
    assert.equal(after.ttlSeconds, null);
    assert.equal(after.expiresAt, null);
    const h = m.svc.history(mem.id).filter((e) => e.event === 'promoted');
    assert.equal(h.length, 1);
    assert.equal(h[0]!.changedBy, 'lifecycle');
    assert.equal(m.svc.get(p.id)!.accessCount, 5);
    assert.equal(m.svc.get(p.id)!.expiresAt, null);
    assert.equal(m.svc.history(p.id).filter((e) => e.event === 'promoted').length, 0);
    await m.store.close();
  });

  test('deleted memories are not bumped; unknown rids are ignored', async () => {
    const m = await openMemory();
    const r = m.svc.create({ content: 'Old build server was retired in March.', ttlSeconds: null });
    const mem = r.status === 'created' ? r.memory : undefined!;
    m.svc.delete(mem.id);
    const tracker = new AccessTracker(m.store, { now: m.clock.now });
    tracker.record([mem.rid, 999_999, Number.NaN]);
    assert.equal(tracker.flush().bumped, 0);
    assert.equal(m.svc.get(mem.id, { includeDeleted: true })!.accessCount, 0);
    await m.store.close();
  });

  test('nothing is written until flush (the engine scheduler calls it); the write survives a reopen', async () => {
    const dir = tmpDir('am-life-');
    const m = await openMemory({ dir });
    const r = m.svc.create({ content: 'Lint runs before every commit via a hook.', ttlSeconds: HOUR });
    const mem = r.status === 'created' ? r.memory : undefined!;
    const tracker = new AccessTracker(m.store, { now: m.clock.now });
    tracker.record([mem.rid]);
    assert.equal(m.svc.get(mem.id)!.accessCount, 0);
    await tick();
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(m.svc.get(mem.id)!.accessCount, 0, 'no timer of its own');
    assert.equal(tracker.pending, 1);
    tracker.flush();
    assert.equal(m.svc.get(mem.id)!.accessCount, 1);
    await m.store.close({ snapshot: false });
    const store = await Store.open({ dir });
    const row = store.get<{ access_count: number; expires_at: string }>('SELECT access_count, expires_at FROM memories WHERE id = ?', [
      mem.id,
    ])!;
    assert.equal(row.access_count, 1);
    assert.equal(Date.parse(row.expires_at) - Date.parse(mem.expiresAt!), HOUR * 500);
    await store.close();
  });
});

describe('lifecycle: promote, expiry, cleanup', () => {
  test('manual promote removes the TTL; already permanent is a no-op; expired or missing is not found', async () => {
    const m = await openMemory();
    const a = m.svc.create({ content: 'Feature freeze starts next Monday.', ttlSeconds: HOUR });
    const mem = a.status === 'created' ? a.memory : undefined!;
    assert.deepEqual(promoteMemory(m.store, mem.id, { now: m.clock.now(), who: 'alice' }), { id: mem.id, promoted: true });
    const got = m.svc.get(mem.id)!;
    assert.equal(got.ttlSeconds, null);
    assert.equal(got.expiresAt, null);
    assert.equal(m.svc.history(mem.id).find((h) => h.event === 'promoted')?.changedBy, 'alice');
    assert.deepEqual(promoteMemory(m.store, mem.id, { now: m.clock.now() }), { id: mem.id, promoted: false });
    const b = m.svc.create({ content: 'Temporary workaround: pin the node version to 20.11.', ttlSeconds: 10 });
    const gone = b.status === 'created' ? b.memory : undefined!;
    m.clock.advance(11_000);
    assert.throws(() => promoteMemory(m.store, gone.id, { now: m.clock.now() }), NotFoundError);
    assert.throws(() => promoteMemory(m.store, 'nope', { now: m.clock.now() }), NotFoundError);
    await m.store.close();
  });

  test('expired memories are invisible to recall before any cleanup runs', async () => {
    const f = await searchFixture();
    const short = await f.add({ content: 'The flaky test is quarantined until Friday.', ttlSeconds: 30 });
    const long = await f.add({ content: 'The flaky test list lives in docs/flaky.md.' });
    const s = f.searcher();
    assert.equal((await s.search({ query: 'flaky test' })).results.length, 2);
    f.clock.advance(30_000); // expires_at == now counts as expired
    const r = await s.search({ query: 'flaky test' });
    assert.deepEqual(
      r.results.map((x) => x.memory.id),
      [long.id],
    );
    assert.equal(isLive({ deletedAt: null, expiresAt: short.expiresAt }, f.clock.now()), false);
    await f.store.close();
  });

  test('cleanup tombstones expired memories in batches with history, and can be undone', async () => {
    const m = await openMemory();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const r = m.svc.create({
        content: `Expiring note number ${i} about topic ${'abcde'[i]}${i}xyz.`,
        ttlSeconds: 60 + i,
        allowNearDuplicate: true,
      });
      if (r.status === 'created') ids.push(r.memory.id);
    }
    const keep = m.svc.create({ content: 'Permanent: the API is versioned in the URL.', ttlSeconds: null });
    const later = m.svc.create({ content: 'Expires much later: quarterly OKR review notes.', ttlSeconds: 10 * HOUR });
    assert.equal(ids.length, 5);
    m.clock.advance(120_000);
    const first = cleanupExpired(m.store, { now: m.clock.now(), batchSize: 2, maxBatches: 1 });
    assert.equal(first.expired, 2);
    assert.equal(first.more, true);
    const rest = cleanupExpired(m.store, { now: m.clock.now(), batchSize: 2 });
    assert.equal(rest.expired, 3);
    assert.equal(rest.batches, 2);
    assert.equal(rest.more, false);
    assert.deepEqual(new Set([...first.ids, ...rest.ids]), new Set(ids));
    for (const id of ids) {
      const rec = m.svc.get(id, { includeDeleted: true })!;
      assert.equal(rec.deleteReason, 'expired');
      assert.equal(rec.deletedBy, 'lifecycle');
      assert.equal(rec.retentionStatus, 'expired');
      assert.equal(m.svc.history(id).filter((h) => h.event === 'expired').length, 1);
    }
    assert.ok(keep.status === 'created' && m.svc.get(keep.memory.id));
    assert.ok(later.status === 'created' && m.svc.get(later.memory.id));
    assert.equal(cleanupExpired(m.store, { now: m.clock.now() }).expired, 0, 'idempotent');
    // A tombstone like any other: restorable.
    assert.equal(m.svc.restore(ids[0]!).deletedAt, null);
    await m.store.close();
  });
});

describe('lifecycle: expired memories are invisible to get, list and count before the sweep', () => {
  test('past expires_at: gone from get/list/count; includeDeleted still shows it; the sweep changes nothing visible', async () => {
    const m = await openMemory();
    try {
      const short = m.svc.create({ content: 'Temporary: the staging box is down for maintenance today.', ttlSeconds: 60 });
      const keep = m.svc.create({ content: 'The deploy script lives in tools/deploy.sh.', ttlSeconds: null });
      assert.ok(short.status === 'created' && keep.status === 'created');
      if (short.status !== 'created' || keep.status !== 'created') return;
      const id = short.memory.id;
      assert.equal(m.svc.count(), 2);
      assert.equal(m.svc.list().total, 2);
      assert.ok(m.svc.get(id));

      m.clock.advance(60_000); // expires_at == now counts as expired (isLive)
      assert.equal(m.svc.get(id), undefined);
      assert.equal(m.svc.get(id, { includeDeleted: true })?.id, id, 'still in the table until the sweep');
      assert.equal(m.svc.count(), 1);
      const listed = m.svc.list();
      assert.equal(listed.total, 1);
      assert.deepEqual(
        listed.items.map((x) => x.id),
        [keep.memory.id],
      );
      assert.deepEqual(new Set(m.svc.list({ includeDeleted: true }).items.map((x) => x.id)), new Set([id, keep.memory.id]));
      // Same filters as before: a type filter still combines with the live clause.
      assert.equal(m.svc.list({ types: [keep.memory.type] }).total, 1);

      const swept = cleanupExpired(m.store, { now: m.clock.now() });
      assert.deepEqual(swept.ids, [id]);
      assert.equal(m.svc.count(), 1);
      assert.equal(m.svc.list().total, 1);
      assert.equal(m.svc.get(id), undefined);
    } finally {
      await m.store.close();
    }
  });
});
