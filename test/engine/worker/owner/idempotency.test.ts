// A create retried with its idempotency key (after the store's owner died) is answered as the
// original create and never applied twice — also when the smart store merged it into an
// existing memory (docs/consolidation.md auto-merge on write).
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { MemoryEngine } from '../../../../src/engine/worker/engine';
import { idempotentCreate } from '../../../../src/engine/worker/owner/idempotency';
import { IDEMPOTENCY_KEY, IDEMPOTENCY_RETRY, asRetry, type CreateMemoryResult } from '../../../../src/engine/protocol';
import { engineDirs } from '../../harness';

// Auto-merge anything the hash embedder finds somewhat similar: two sentences about the same port merge.
const MERGE_EAGERLY = { 'embedding.provider': 'hash', 'memory.similarity_threshold': 0.3, 'memory.auto_merge_threshold': 0.3 };

/** The memory a create answered with (created, duplicate or merged). */
function memoryOf(r: CreateMemoryResult) {
  assert.ok(r.status !== 'skipped', JSON.stringify(r));
  return r.memory;
}

async function openEngine(settings: Record<string, unknown>) {
  return MemoryEngine.open({ ...engineDirs(), snapshotTickMs: 0, settings });
}

test('a retried create that was merged into an existing memory returns the same merge and merges nothing twice', async () => {
  const engine = await openEngine(MERGE_EAGERLY);
  try {
    const first = await idempotentCreate(engine, { content: 'The billing service listens on port 8443 behind the nginx proxy.' });
    assert.equal(first.status, 'created');
    const input = {
      content: 'The billing service port is 8443; requests arrive through nginx with TLS termination.',
      origin: 'agent' as const, // an agent's save merges; a person's explicit save is stored apart (explicitSave.test.ts)
      metadata: { [IDEMPOTENCY_KEY]: 'key-merged-1' },
    };
    const original = await idempotentCreate(engine, input);
    assert.equal(original.action, 'merged', JSON.stringify(original));
    assert.equal(memoryOf(original).id, memoryOf(first).id, 'merged into the first memory');
    const survivorAfterMerge = engine.memories.get(memoryOf(first).id)!;

    const retried = await idempotentCreate(engine, asRetry(input));
    assert.equal(retried.status, original.status);
    assert.equal(retried.action, 'merged');
    assert.equal(memoryOf(retried).id, memoryOf(original).id, 'the same surviving memory');
    assert.match(retried.warnings.join(' '), new RegExp(`merged into ${memoryOf(first).id}`));

    const survivor = engine.memories.get(memoryOf(first).id)!;
    assert.equal(survivor.version, survivorAfterMerge.version, 'the retry did not merge again');
    assert.equal(survivor.content, survivorAfterMerge.content);
    assert.equal(survivor.mergedFrom.length, 1, 'one absorbed write, not two');
    const history = engine.memories.history(memoryOf(first).id);
    assert.equal(history.filter((h) => h.event === 'merged').length, 1);
    assert.equal(engine.memories.list({ scope: 'project' }).total, 1, 'still one live memory');
  } finally {
    await engine.close();
  }
});

test('a retried plain create is answered as created with the same memory', async () => {
  const engine = await openEngine({ 'embedding.provider': 'hash' });
  try {
    const input = { content: 'Deployments are frozen on Fridays after 15:00 UTC.', metadata: { [IDEMPOTENCY_KEY]: 'key-plain-1' } };
    const original = await idempotentCreate(engine, asRetry(input)); // marked, but never sent before: stored
    assert.ok(!(IDEMPOTENCY_RETRY in (memoryOf(original).metadata ?? {})), 'the retry mark is not stored');
    const retried = await idempotentCreate(engine, asRetry(input));
    const unmarked = await idempotentCreate(engine, input); // a retry without the mark: the content-hash gate knows it
    assert.equal(unmarked.status, 'created');
    assert.equal(memoryOf(unmarked).id, memoryOf(original).id);
    assert.equal(original.status, 'created');
    assert.equal(retried.status, 'created');
    assert.equal(memoryOf(retried).id, memoryOf(original).id);
    assert.equal(engine.memories.list({ scope: 'project' }).total, 1);
    const other = await idempotentCreate(engine, { content: input.content, metadata: { [IDEMPOTENCY_KEY]: 'key-plain-2' } });
    assert.equal(other.status, 'duplicate', 'the same text under another key is an ordinary duplicate');
  } finally {
    await engine.close();
  }
});
