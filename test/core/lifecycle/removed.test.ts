/** Expired and deleted memories: listed with when and why, restorable (with a fresh lifetime), purged after the tombstone window. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cleanupExpired } from '../../../src/core/lifecycle/cleanup';
import { countRemoved, listRemoved } from '../../../src/core/lifecycle/removed';
import { runRetentionSweep } from '../../../src/core/retention/sweep';
import { openMemory } from '../../helpers/memoryFixture';

const DAY = 86_400_000;
const WINDOWS = {
  tombstoneRetentionMs: 30 * DAY,
  historyRetentionMs: 180 * DAY,
  completedJobRetentionMs: 14 * DAY,
  deadJobRetentionMs: 30 * DAY,
};

async function scenario() {
  const m = await openMemory();
  const make = (content: string, extra: object = {}) => {
    const r = m.svc.create({ content, ...extra });
    assert.equal(r.status, 'created', content);
    return r.status === 'created' ? r.memory : undefined!;
  };
  const kept = make('We deploy from the main branch only, never from feature branches.');
  const captured = make('The agent saw the integration tests take nine minutes on CI.', { origin: 'capture', ttlSeconds: 3600 });
  const deleted = make('The old staging proxy runs on port 8081 behind nginx.');
  m.svc.delete(deleted.id, { reason: 'obsolete' });
  m.clock.advance(2 * 3600_000);
  const swept = cleanupExpired(m.store, { now: m.clock.now() });
  assert.deepEqual(swept.ids, [captured.id]);
  const opts = { offset: 0, limit: 10, tombstoneRetentionMs: WINDOWS.tombstoneRetentionMs };
  return { m, kept, captured, deleted, opts };
}

test('removed: expired and deleted memories are listed, most recent first, with when, why, by whom and when they are purged', async () => {
  const { m, kept, captured, deleted, opts } = await scenario();
  try {
    const all = listRemoved(m.store, opts);
    assert.deepEqual(
      all.map((x) => [x.memory.id, x.reason, x.removedBy, x.detail]),
      [
        [captured.id, 'expired', 'lifecycle', 'expired'],
        [deleted.id, 'deleted', 'user', 'obsolete'],
      ],
    );
    assert.equal(all[0]!.removedAt, m.clock.now().toISOString());
    assert.equal(Date.parse(all[0]!.purgeAt) - Date.parse(all[0]!.removedAt), WINDOWS.tombstoneRetentionMs);
    assert.deepEqual(
      listRemoved(m.store, { ...opts, reason: 'expired' }).map((x) => x.memory.id),
      [captured.id],
    );
    assert.equal(countRemoved(m.store, { ...opts, reason: 'deleted' }), 1);
    assert.equal(countRemoved(m.store, opts), 2);
    assert.equal(listRemoved(m.store, { ...opts, offset: 1 }).length, 1);
    assert.ok(!all.some((x) => x.memory.id === kept.id));
  } finally {
    await m.store.close();
  }
});

test('removed: restoring an expired memory makes it live with a fresh lifetime, so the next sweep does not take it again', async () => {
  const { m, captured, opts } = await scenario();
  try {
    const back = m.svc.restore(captured.id);
    assert.equal(back.deletedAt, null);
    assert.equal(back.retentionStatus, 'active');
    assert.ok(Date.parse(back.expiresAt!) - m.clock.now().getTime() >= DAY, `fresh lifetime: ${back.expiresAt}`);
    assert.equal(m.svc.get(captured.id)?.id, captured.id, 'visible again');
    m.clock.advance(60_000);
    assert.equal(cleanupExpired(m.store, { now: m.clock.now() }).expired, 0);
    assert.deepEqual(
      listRemoved(m.store, { ...opts, reason: 'expired' }).map((x) => x.memory.id),
      [],
    );
    assert.equal(m.svc.history(captured.id).at(-1)?.event, 'restored');
  } finally {
    await m.store.close();
  }
});

test('removed: the retention sweep purges expired and deleted memories only after the tombstone window', async () => {
  const { m, kept, opts } = await scenario();
  try {
    m.clock.advance(29 * DAY);
    let report = runRetentionSweep(m.store, WINDOWS, m.clock.now());
    assert.equal(report.steps.find((s) => s.step === 'tombstones')!.removed, 0);
    assert.equal(countRemoved(m.store, opts), 2, 'still restorable on day 29');
    m.clock.advance(1 * DAY + 1);
    report = runRetentionSweep(m.store, WINDOWS, m.clock.now());
    assert.equal(report.steps.find((s) => s.step === 'tombstones')!.removed, 2);
    assert.equal(countRemoved(m.store, opts), 0);
    assert.ok(m.svc.get(kept.id), 'the permanent memory stays');
  } finally {
    await m.store.close();
  }
});
