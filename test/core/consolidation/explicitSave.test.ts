/**
 * A person's explicit save is never rewritten silently (docs/consolidation.md "On write"): a
 * close duplicate (≥ memory.auto_merge_threshold) of a memory a person saves on purpose is
 * stored as its own memory with a merge suggestion; only automatic writes (an agent's save,
 * a capture) are merged. Similarities are measured with the real hash embedder first.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tmpDir } from '../../helpers/tmp';
import { openWritePath } from '../../fixtures/writePath';
import { SmartStore } from '../../../src/core/consolidation/smartStore';
import { listSuggestions } from '../../../src/core/consolidation/records';
import { embeddingTextForInput } from '../../../src/core/memory/embedding';
import { cosine } from '../../../src/core/embed/vector';
import type { Embedder } from '../../../src/core/embed/types';
import type { CreateOrigin } from '../../../src/core/memory/lifetime';
import { BACKUP, BACKUP_14 } from '../../fixtures/closeDuplicates';

async function sim(e: Embedder, a: string, b: string): Promise<number> {
  const [x, y] = await e.embed([embeddingTextForInput({ content: a }), embeddingTextForInput({ content: b })], 'document');
  return cosine(x!, y!);
}

for (const origin of ['person', undefined] as const) {
  test(`an explicit save (origin ${origin ?? 'absent'}) of a close duplicate is stored as its own memory with a merge suggestion`, async () => {
    const w = await openWritePath({ dir: tmpDir('am-explicit-') });
    try {
      const similarity = await sim(w.embedder, BACKUP, BACKUP_14);
      assert.ok(similarity >= 0.92, `precondition: similarity ${similarity} ≥ 0.92 (auto-merge band)`);
      const smart = new SmartStore({ store: w.store, memory: w.svc, space: w.space });
      const first = await smart.save({ content: BACKUP, origin });
      assert.equal(first.action, 'stored');
      const second = await smart.save({ content: BACKUP_14, origin });
      assert.equal(second.action, 'stored', JSON.stringify(second));
      assert.notEqual(second.memory!.id, first.memory!.id);
      assert.equal(second.memory!.content, BACKUP_14, 'stored as the person wrote it');
      const older = w.svc.get(first.memory!.id)!;
      assert.equal(older.content, BACKUP, 'the older memory is not rewritten');
      assert.equal(older.version, 1);
      assert.equal(second.suggestions.length, 1, 'a merge suggestion for the close pair');
      const s = second.suggestions[0]!;
      assert.deepEqual([s.memoryAId, s.memoryBId, s.status], [first.memory!.id, second.memory!.id, 'pending']);
      assert.ok(Math.abs(s.similarity - similarity) < 1e-3);
      assert.deepEqual(listSuggestions(w.store, { status: 'pending' }), [s]);
      assert.equal(w.svc.count(), 2);
    } finally {
      await w.close();
    }
  });
}

for (const origin of ['agent', 'capture'] as const satisfies readonly CreateOrigin[]) {
  test(`an automatic write (origin ${origin}) of a close duplicate is merged into the existing memory`, async () => {
    const w = await openWritePath({ dir: tmpDir('am-explicit-') });
    try {
      const smart = new SmartStore({ store: w.store, memory: w.svc, space: w.space });
      const first = await smart.save({ content: BACKUP, origin: 'person' });
      const second = await smart.save({ content: BACKUP_14, origin });
      assert.equal(second.action, 'merged', JSON.stringify(second));
      assert.equal(second.memory!.id, first.memory!.id);
      assert.ok(second.merge!.similarity >= 0.92);
      assert.equal(w.svc.count(), 1);
    } finally {
      await w.close();
    }
  });
}
