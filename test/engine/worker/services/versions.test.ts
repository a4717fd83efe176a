// A memory's versions come back from its history, and restoring one writes its text and fields
// back as a NEW version that the history records ("restored version N"); the optimistic version
// check refuses a restore over a change made meanwhile; the protocol checks the version param.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { MemoryEngine } from '../../../../src/engine/worker/engine';
import { createHandlers } from '../../../../src/engine/worker/handlers';
import { EngineError } from '../../../../src/engine/errors';
import { engineDirs } from '../../harness';

async function openEngine(): Promise<MemoryEngine> {
  return MemoryEngine.open({ ...engineDirs(), snapshotTickMs: 0, settings: { 'embedding.provider': 'hash' } });
}

test('versions list every change with its fields; restore writes an old version back as a new one', async () => {
  const engine = await openEngine();
  try {
    const r = await engine.memories.create({
      content: 'Deploys go out on Tuesdays after the standup.',
      title: 'Deploy day',
      tags: ['ops'],
    });
    assert.equal(r.status, 'created');
    if (r.status !== 'created') return;
    const id = r.memory.id;
    await engine.memories.update(id, {
      content: 'Deploys go out on Thursdays, never on Fridays.',
      tags: ['ops', 'release'],
      expectedVersion: 1,
    });
    await engine.memories.update(id, { title: 'When we deploy', importance: 0.9, expectedVersion: 2 });

    const versions = engine.versions.versions(id);
    assert.deepEqual(
      versions.map((v) => [v.version, v.event]),
      [
        [1, 'created'],
        [2, 'updated'],
        [3, 'updated'],
      ],
    );
    assert.equal(versions[0]!.content, 'Deploys go out on Tuesdays after the standup.');
    assert.equal(versions[0]!.title, 'Deploy day');
    assert.deepEqual(versions[0]!.tags, ['ops']);
    assert.deepEqual(versions[1]!.changed.sort(), ['content', 'tags']);
    assert.equal(versions[1]!.changedBy, 'user');
    assert.equal(versions[2]!.title, 'When we deploy');
    assert.equal(versions[2]!.importance, 0.9);

    const restored = await engine.versions.restoreVersion(id, 1);
    assert.equal(restored.version, 4);
    assert.equal(restored.content, 'Deploys go out on Tuesdays after the standup.');
    assert.equal(restored.title, 'Deploy day');
    assert.deepEqual(restored.tags, ['ops']);
    assert.equal(restored.importance, versions[0]!.importance);
    const last = engine.memories.history(id).at(-1)!;
    assert.equal(last.event, 'updated');
    assert.equal(last.reason, 'restored version 1');
    assert.equal(last.oldContent, 'Deploys go out on Thursdays, never on Fridays.');
    assert.equal(engine.versions.versions(id).length, 4, 'the restore is a version of its own');

    // The search finds the restored text (the update went through the write path).
    const hits = await engine.search.search({ query: 'Tuesdays standup', limit: 5 });
    assert.ok(hits.hits.some((h) => h.memory.id === id));

    // Restoring the version that is already current writes nothing.
    const same = await engine.versions.restoreVersion(id, 4);
    assert.equal(same.version, 4);
  } finally {
    await engine.close();
  }
});

test('restore refuses a stale expected version, an unknown version and a deleted memory, with clear errors', async () => {
  const engine = await openEngine();
  try {
    const r = await engine.memories.create({ content: 'The cache lives in /var/cache/app on the build hosts.' });
    if (r.status !== 'created') throw new Error('not created');
    const id = r.memory.id;
    await engine.memories.update(id, { content: 'The cache lives in /srv/cache on the build hosts.' });
    await assert.rejects(engine.versions.restoreVersion(id, 1, 1), (e: EngineError) => e.code === 'version_conflict');
    await assert.rejects(
      engine.versions.restoreVersion(id, 9),
      (e: EngineError) => e.code === 'invalid_input' && /no version 9/.test(e.message),
    );
    engine.memories.delete(id);
    await assert.rejects(engine.versions.restoreVersion(id, 1), (e: EngineError) => e.code === 'not_found');
    // A deleted memory still has its timeline (it can be restored first).
    const versions = engine.versions.versions(id);
    assert.equal(versions.at(-1)!.event, 'deleted');
    assert.equal(versions.at(-1)!.deleted, true);

    const h = createHandlers({ allowDebug: false, exit: () => undefined });
    const call = (p: unknown) => Promise.resolve().then(() => h['memory.restoreVersion'](engine, p as never, {} as never));
    await assert.rejects(
      call({ id, version: 0 }),
      (e: EngineError) => e.code === 'invalid_input' && /version: must be a whole number/.test(e.message),
    );
    await assert.rejects(call({ id, version: '2' }), (e: EngineError) => e.code === 'invalid_input');
    await assert.rejects(call({ id, version: 1, expectedVersion: -1 }), (e: EngineError) => /expectedVersion/.test(e.message));
  } finally {
    await engine.close();
  }
});

test('a memory whose older history was swept still lists its current version', async () => {
  const engine = await openEngine();
  try {
    const r = await engine.memories.create({ content: 'Use pnpm, not npm, in this repository.' });
    if (r.status !== 'created') throw new Error('not created');
    await engine.memories.update(r.memory.id, { title: 'Package manager' });
    // What a retention sweep leaves: no history rows at all.
    const rt = (
      engine as unknown as {
        ctx: { stores: { runtime(n: string): { store: { transaction(f: (tx: { run(s: string): void }) => void): void } } } };
      }
    ).ctx.stores.runtime('project');
    rt.store.transaction((tx) => tx.run('DELETE FROM memory_history'));
    const versions = engine.versions.versions(r.memory.id);
    assert.equal(versions.length, 1);
    assert.equal(versions[0]!.version, 2);
    assert.equal(versions[0]!.event, 'current');
    assert.equal(versions[0]!.title, 'Package manager');
  } finally {
    await engine.close();
  }
});
