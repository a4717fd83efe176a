/** Undo of an accepted suggestion restores both memories (text, tags, vectors), the suggestion, and refuses after a later edit. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tmpDir } from '../../helpers/tmp';
import { openWritePath } from '../../fixtures/writePath';
import { SmartStore } from '../../../src/core/consolidation/smartStore';
import { getSuggestion } from '../../../src/core/consolidation/records';
import { embeddingTextForInput } from '../../../src/core/memory/embedding';

const POOL = 'Postgres connection pool size is 20 in production and 5 in staging.';
const POOL_MORE = 'Postgres connection pool size is 20 in production and 5 in staging. Timeouts are 30 seconds.';

const supersedes = (w: Awaited<ReturnType<typeof openWritePath>>, a: string, b: string) =>
  w.store.get<{ n: number }>(
    "SELECT count(*) AS n FROM memory_relationships WHERE relationship = 'SUPERSEDES' AND from_memory_id = ? AND to_memory_id = ?",
    [a, b],
  )!.n;

test('preview shows the merged text without writing; undo after accept brings both memories back as they were', async () => {
  const w = await openWritePath({ dir: tmpDir('am-unmerge-') });
  try {
    const smart = new SmartStore({ store: w.store, memory: w.svc, space: w.space });
    const a = (await smart.save({ content: POOL, tags: ['db'], importance: 0.4 })).memory!;
    const saved = await smart.save({ content: POOL_MORE, tags: ['timeouts'], importance: 0.8 });
    const b = saved.memory!;
    const sid = saved.suggestions[0]!.id;

    const preview = smart.previewAccept(sid);
    assert.equal(preview.merged.content, POOL_MORE);
    assert.equal(preview.a.id, a.id);
    assert.equal(preview.b.id, b.id);
    assert.equal(w.svc.get(a.id)!.version, 1, 'a preview writes nothing');
    assert.equal(getSuggestion(w.store, sid)!.status, 'pending');

    const acc = await smart.accept(sid);
    assert.equal(acc.memory.content, preview.merged.content, 'the preview is what accept writes');
    assert.equal(supersedes(w, a.id, b.id), 1);

    const undone = await smart.undoAccept(sid);
    assert.equal(undone.memory.content, POOL);
    assert.deepEqual(undone.memory.tags, ['db']);
    assert.equal(undone.memory.importance, 0.4);
    assert.deepEqual(undone.memory.mergedFrom, []);
    assert.equal(undone.memory.version, 3, 'the undo is a new version of A');
    assert.equal(undone.memory.embeddingStatus, 'ready');
    assert.equal(undone.restored.content, POOL_MORE);
    assert.equal(undone.restored.deletedAt, null);
    assert.equal(undone.restored.replacedBy, null);
    assert.equal(undone.restored.retentionStatus, 'active');
    assert.deepEqual(w.svc.get(b.id)!.tags, ['timeouts']);
    assert.equal(supersedes(w, a.id, b.id), 0);
    assert.equal(getSuggestion(w.store, sid)!.status, 'pending', 'the suggestion can be decided again');
    assert.deepEqual(
      w.svc.history(b.id).map((h) => h.event),
      ['created', 'merged_into', 'restored'],
    );

    // Both are found by vector search again.
    for (const m of [undone.memory, undone.restored]) {
      const q = (await w.embedder.embed([embeddingTextForInput(m)], 'document'))[0]!;
      assert.equal(w.vectors.search(q, 1)[0]!.rid, m.rid);
    }
    await assert.rejects(smart.undoAccept(sid), /not merged/);

    // Accept again, edit the survivor, then undo is refused and changes nothing.
    const again = await smart.accept(sid);
    w.svc.update(a.id, { content: 'Pool size is 25 now.', expectedVersion: again.memory.version });
    await assert.rejects(
      smart.undoAccept(sid),
      (e: Error & { code?: string }) => e.code === 'undo_refused' && /edited after the merge/.test(e.message),
    );
    assert.equal(w.svc.get(a.id)!.content, 'Pool size is 25 now.');
    assert.equal(w.svc.get(b.id), undefined, 'B stays merged');
  } finally {
    await w.close();
  }
});
