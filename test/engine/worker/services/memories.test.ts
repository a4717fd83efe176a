// Manual promote goes through src/core/lifecycle/promote.ts: the TTL is gone and the history
// says `promoted` (not `updated`); promoting a permanent memory writes nothing.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { MemoryEngine } from '../../../../src/engine/worker/engine';
import type { EngineEvent } from '../../../../src/engine/protocol';
import { engineDirs } from '../../harness';

test('manual promote removes the TTL and records a promoted history event, in either store', async () => {
  const events: EngineEvent[] = [];
  const engine = await MemoryEngine.open({
    ...engineDirs(),
    snapshotTickMs: 0,
    onEvent: (e) => events.push(e),
    settings: { 'embedding.provider': 'hash' },
  });
  try {
    for (const scope of ['project', 'global'] as const) {
      const r = await engine.memories.create({ content: `Short-lived note about the ${scope} build cache.`, ttlSeconds: 3600, scope });
      assert.equal(r.status, 'created');
      if (r.status !== 'created') return;
      assert.ok(r.memory.expiresAt);
      const promoted = engine.memories.promote(r.memory.id);
      assert.equal(promoted.ttlSeconds, null);
      assert.equal(promoted.expiresAt, null);
      const history = engine.memories.history(r.memory.id);
      assert.deepEqual(
        history.map((h) => h.event),
        ['created', 'promoted'],
      );
      assert.equal(history[1]!.changedBy, 'user');
      assert.ok(
        events.some((e) => e.type === 'memory.changed' && e.kind === 'promoted' && e.store === scope && e.ids.includes(r.memory.id)),
      );
      engine.memories.promote(r.memory.id);
      assert.equal(engine.memories.history(r.memory.id).length, 2, 'already permanent: nothing written');
    }
  } finally {
    await engine.close();
  }
});

test("recently removed: a person's memory survives the sweep; an agent's capture expires into memory.listRemoved and memory.restore brings it back for a fresh lifetime", async () => {
  let now = new Date('2026-06-01T09:00:00.000Z');
  const engine = await MemoryEngine.open({
    ...engineDirs(),
    snapshotTickMs: 0,
    now: () => new Date(now),
    settings: { 'embedding.provider': 'hash' },
  });
  try {
    const mine = await engine.memories.create({ content: 'We release on Tuesdays after the QA sign-off.', origin: 'person' });
    const capture = await engine.memories.create({
      content: 'The agent saw the e2e suite take eleven minutes today.',
      origin: 'capture',
      scope: 'global',
    });
    const gone = await engine.memories.create({ content: 'The old wiki lives at wiki.internal.example.' });
    assert.ok(mine.status === 'created' && capture.status === 'created' && gone.status === 'created');
    if (mine.status !== 'created' || capture.status !== 'created' || gone.status !== 'created') return;
    assert.equal(mine.memory.expiresAt, null, 'what a person adds is permanent');
    assert.equal(capture.memory.ttlSeconds, 86400, 'an automatic capture is short-term (memory.default_ttl)');
    engine.memories.delete(gone.memory.id, 'moved to the handbook');
    now = new Date(now.getTime() + 2 * 86400_000);
    assert.deepEqual(engine.maintenance.sweepExpired(), [capture.memory.id]);
    assert.ok(engine.memories.get(mine.memory.id), 'the permanent memory survives the sweep');

    const all = engine.memories.listRemoved(undefined, 0, 10);
    assert.equal(all.total, 2);
    // How long a removed memory stays restorable (the delete dialog says it before anything is removed).
    assert.equal(all.restorableForMs, 30 * 86_400_000);
    assert.equal(
      engine.memories.listRemoved(undefined, 0, 1).restorableForMs,
      Date.parse(all.items[0]!.purgeAt) - Date.parse(all.items[0]!.removedAt),
    );
    assert.deepEqual(
      all.items.map((x) => [x.memory.id, x.reason]),
      [
        [capture.memory.id, 'expired'],
        [gone.memory.id, 'deleted'],
      ],
    );
    assert.equal(all.items[1]!.detail, 'moved to the handbook');
    assert.deepEqual(
      engine.memories.listRemoved('expired', 0, 10).items.map((x) => x.memory.id),
      [capture.memory.id],
    );
    assert.equal(engine.memories.listRemoved(undefined, 1, 1).items[0]!.memory.id, gone.memory.id, 'paged over both stores');

    const back = engine.memories.restore(capture.memory.id);
    assert.equal(back.deletedAt, null);
    assert.equal(back.expiresAt, new Date(now.getTime() + 86400_000).toISOString(), 'a fresh lifetime of the same length');
    assert.equal(engine.memories.get(capture.memory.id)?.id, capture.memory.id);
    assert.deepEqual(engine.maintenance.sweepExpired(), [], 'not expired again by the next sweep');
    assert.equal(engine.memories.listRemoved('expired', 0, 10).total, 0);
  } finally {
    await engine.close();
  }
});

test('memory.recordAccess: a deliberate use counts once an hour; unknown ids are ignored', async () => {
  let now = new Date('2026-06-01T09:00:00.000Z');
  const dirs = engineDirs();
  const engine = await MemoryEngine.open({
    ...dirs,
    snapshotTickMs: 0,
    now: () => new Date(now),
    settings: { 'embedding.provider': 'hash' },
  });
  let id: string | undefined;
  try {
    const r = await engine.memories.create({ content: 'The payments team owns the invoices service.' });
    assert.ok(r.status === 'created');
    if (r.status !== 'created') return;
    id = r.memory.id;
    assert.deepEqual(engine.memories.recordAccess([id, 'no-such-id']), { recorded: 1 });
    await new Promise((res) => setTimeout(res, 400)); // the scheduler flushes (ACCESS_FLUSH_MS)
    assert.equal(engine.memories.get(id)!.accessCount, 1);
    now = new Date(now.getTime() + 30 * 60_000);
    engine.memories.recordAccess([id]);
    await new Promise((res) => setTimeout(res, 400));
    assert.equal(engine.memories.get(id)!.accessCount, 1, 'a second open within the hour does not count');
    now = new Date(now.getTime() + 30 * 60_000);
    engine.memories.recordAccess([id]);
  } finally {
    await engine.close(); // flushes the last access
  }
  const again = await MemoryEngine.open({
    ...dirs,
    snapshotTickMs: 0,
    now: () => new Date(now),
    settings: { 'embedding.provider': 'hash' },
  });
  try {
    assert.equal(again.memories.get(id!)!.accessCount, 2);
  } finally {
    await again.close();
  }
});
