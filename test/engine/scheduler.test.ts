// The scheduler owns the engine's periodic jobs: the expiry sweep (memory.cleanup_interval) of
// both stores and the snapshot policy tick; a reload restarts them with the new intervals;
// close stops them. setInterval is mocked: the test moves time, not the wall clock.
import { test, mock } from 'node:test';
import * as assert from 'node:assert/strict';
import { MemoryEngine } from '../../src/engine/engine';
import type { EngineEvent } from '../../src/engine/protocol';
import { engineDirs } from './harness';

test('expiry sweep of both stores every memory.cleanup_interval, snapshot tick, new interval after a reload', async (t) => {
  mock.timers.enable({ apis: ['setInterval'] });
  t.after(() => mock.timers.reset());
  let now = Date.now();
  const events: EngineEvent[] = [];
  const settings = { 'embedding.provider': 'hash', 'memory.cleanup_interval': 10_000, 'store.snapshotIdleMs': 1000 };
  const engine = await MemoryEngine.open({
    ...engineDirs(),
    snapshotTickMs: 1000,
    now: () => new Date(now),
    onEvent: (e) => events.push(e),
    settings,
  });
  try {
    const ids: string[] = [];
    for (const scope of ['project', 'global'] as const) {
      const r = await engine.memories.create({ content: `A short-lived ${scope} note about today's standup.`, ttlSeconds: 60, scope });
      assert.equal(r.status, 'created');
      if (r.status === 'created') ids.push(r.memory.id);
    }
    const deleted = () =>
      events.filter((e) => e.type === 'memory.changed' && e.kind === 'expired').flatMap((e) => (e.type === 'memory.changed' ? e.ids : []));
    now += 120_000; // both have expired
    mock.timers.tick(9_000);
    assert.deepEqual(deleted(), [], 'not before memory.cleanup_interval');
    mock.timers.tick(1_000);
    assert.deepEqual(deleted().sort(), [...ids].sort(), 'the sweep ran over both stores');
    await new Promise((r) => setTimeout(r, 1100)); // the stores are idle for store.snapshotIdleMs (real time)…
    mock.timers.tick(1000); // …when the snapshot tick comes
    for (let i = 0; i < 100 && !events.some((e) => e.type === 'snapshot'); i++) await new Promise((r) => setTimeout(r, 20));
    assert.ok(
      events.some((e) => e.type === 'snapshot'),
      'the snapshot policy ticked (idle store with writes)',
    );

    await engine.reloadConfig({ ...settings, 'memory.cleanup_interval': 30_000 });
    const r = await engine.memories.create({ content: 'Another short-lived note about the release checklist.', ttlSeconds: 60 });
    assert.equal(r.status, 'created');
    now += 120_000;
    mock.timers.tick(10_000);
    assert.equal(deleted().length, 2, 'the old 10 s interval is gone after the reload');
    mock.timers.tick(20_000);
    assert.equal(deleted().length, 3, 'the new 30 s interval runs');
  } finally {
    await engine.close();
  }
  const before = events.length;
  mock.timers.tick(60_000);
  assert.equal(events.length, before, 'close stopped every timer');
});
