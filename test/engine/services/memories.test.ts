// Manual promote goes through src/core/lifecycle/promote.ts: the TTL is gone and the history
// says `promoted` (not `updated`); promoting a permanent memory writes nothing.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { MemoryEngine } from '../../../src/engine/engine';
import type { EngineEvent } from '../../../src/engine/protocol';
import { engineDirs } from '../harness';

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
