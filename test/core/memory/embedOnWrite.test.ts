/**
 * Embed-on-write under embedder faults: an all-zero or NaN vector is an embedding failure (the
 * memory commits pending, nothing throws), and a hanging embedder (fake Ollama that never
 * answers) holds `create` only for the short write-path wait; the backfill embeds it later.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tmpDir } from '../../helpers/tmp';
import { FakeOllama } from '../../helpers/fakeOllama';
import { openWritePath } from '../../fixtures/writePath';
import { HashEmbedder } from '../../../src/core/embed/hashEmbedder';
import { OllamaEmbedder } from '../../../src/core/embed/ollama';
import { EmbeddingBackfill } from '../../../src/core/memory/backfill';
import { WRITE_EMBED_WAIT_MS } from '../../../src/core/memory/embedOnWrite';
import { settlesAtDeadline } from '../../helpers/deadline';
import type { MemoryRecord } from '../../../src/core/memory/types';

/** The hash embedder's space and size, but every vector is `value` in each component. */
class ConstantEmbedder extends HashEmbedder {
  constructor(private readonly value: number) {
    super({ dimension: 64 });
  }
  override async embed(texts: string[]): Promise<Float32Array[]> {
    return texts.map(() => new Float32Array(this.dimension).fill(this.value));
  }
}

function createdMemory(r: { result: { status: string } }): MemoryRecord {
  assert.equal(r.result.status, 'created');
  return (r.result as unknown as { memory: MemoryRecord }).memory;
}

for (const [name, value, reason] of [
  ['all-zero', 0, /all zeros/],
  ['NaN', Number.NaN, /holds NaN/],
  ['Infinity', Number.POSITIVE_INFINITY, /holds Infinity/],
] as const) {
  test(`an ${name} vector from the embedder stores the memory as pending instead of throwing`, async () => {
    const w = await openWritePath({ dir: tmpDir('am-ingest-'), embedder: new ConstantEmbedder(value) });
    try {
      const r = await w.ingest.create({ content: 'The nightly export writes CSV files to the shared drive.' });
      const m = createdMemory(r);
      assert.equal(r.embedding, 'pending');
      assert.match(r.embeddingError ?? '', reason);
      assert.equal(w.svc.get(m.id)!.embeddingStatus, 'pending');
      assert.equal(w.vectors.size, 0);
      // An update with new text degrades the same way.
      const u = await w.ingest.update(m.id, { content: 'The nightly export writes Parquet files to the shared drive.' });
      assert.equal(u.embedding, 'pending');
      assert.match(u.embeddingError ?? '', reason);
      // The backfill refuses the same vector with a clear error and keeps the memory pending.
      const step = await new EmbeddingBackfill(w.store, w.svc, w.space).runOnce();
      assert.equal(step.embedded, 0);
      assert.match(step.error ?? '', reason);
      assert.deepEqual(w.store.integrityCheck(), []);
    } finally {
      await w.close();
    }
  });
}

test('a hanging embedder holds create only for the short write-path wait; the memory commits pending, the backfill embeds it', async () => {
  const fake = await FakeOllama.start();
  const embedder = new OllamaEmbedder({ host: fake.url }); // the default 30 s request limit
  const w = await openWritePath({ dir: tmpDir('am-ingest-hang-'), embedder });
  try {
    fake.enqueue('embed', { hang: true });
    // create is still waiting a write-path wait's length after the request reached Ollama, and
    // returns once that wait (its timer, held by the test) ends — not at the 30 s request limit.
    const ended = await settlesAtDeadline({
      limitMs: WRITE_EMBED_WAIT_MS,
      start: () => w.ingest.create({ content: 'Release notes are drafted in docs/releases before tagging.' }),
      ready: () => fake.count('embed') === 1,
    });
    assert.ok('value' in ended, `create failed: ${String((ended as { error: unknown }).error)}`);
    const r = ended.value as Awaited<ReturnType<typeof w.ingest.create>>;
    const m = createdMemory(r);
    assert.equal(r.embedding, 'pending');
    assert.match(r.embeddingError ?? '', new RegExp(`did not answer within ${WRITE_EMBED_WAIT_MS} ms`));
    assert.ok(WRITE_EMBED_WAIT_MS <= 5_000, 'the write-path wait is a few seconds');
    assert.equal(w.svc.get(m.id)!.embeddingStatus, 'pending');
    // Ollama answers again: the background step embeds the memory.
    const step = await new EmbeddingBackfill(w.store, w.svc, w.space).runOnce();
    assert.equal(step.error, undefined);
    assert.equal(step.embedded, 1);
    assert.equal(w.svc.get(m.id)!.embeddingStatus, 'ready');
  } finally {
    await fake.close(); // ends the hanging request
    await w.close();
  }
});
