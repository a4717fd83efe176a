// An engine that owns the store for one short answer (EngineInit.backgroundWork false: a Claude
// Code hook, docs/sessions.md "Claude Code") starts no background work: memories without a vector
// in the active space stay queued instead of loading the embedding model, a transcript logged with
// deferEmbedding stores its chunks without waiting for vectors; the next long-lived owner embeds
// both. Counted as work done by the embedder, not timed.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { MemoryEngine } from '../../src/engine/worker/engine';
import { HashEmbedder } from '../../src/core/embed/hashEmbedder';
import type { EmbedKind, Embedder } from '../../src/core/embed/types';
import type { ChooseEmbedder } from '../../src/engine/worker/runtime/embedders';
import { engineDirs } from './harness';
import { tmpDir } from '../helpers/tmp';

/** A hash embedder of `dim` dimensions that counts the document texts it embeds. */
class CountingEmbedder implements Embedder {
  documents = 0;
  private readonly inner: HashEmbedder;
  constructor(dim: number) {
    this.inner = new HashEmbedder({ dimension: dim });
  }
  get id() {
    return this.inner.id;
  }
  get space() {
    return this.inner.space;
  }
  get dimension() {
    return this.inner.dimension;
  }
  embed(texts: string[], kind: EmbedKind): Promise<Float32Array[]> {
    if (kind === 'document') this.documents += texts.length;
    return this.inner.embed(texts, kind);
  }
  available() {
    return this.inner.available();
  }
  dispose() {
    this.inner.dispose();
  }
}

const settle = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('a short-lived owner starts no background work; the next long-lived owner embeds what it left', async () => {
  const dirs = engineDirs();
  const made: CountingEmbedder[] = [];
  const choose: ChooseEmbedder = async (config) => {
    const dim = Number(/^dim-(\d+)$/.exec(config.embedding.model)?.[1] ?? 64);
    const embedder = new CountingEmbedder(dim);
    made.push(embedder);
    return { embedder, provider: 'hash', reason: `hash ${dim}-d`, degraded: false };
  };
  const at = (dim: number) => ({ 'embedding.provider': 'hash', 'embedding.model': `dim-${dim}` });
  const first = await MemoryEngine.open({ ...dirs, snapshotTickMs: 0, chooseEmbedder: choose, settings: at(64) });
  for (const content of ['Feature flags are evaluated on the server.', 'The nightly job compacts the audit log.'])
    assert.equal((await first.memories.create({ content })).status, 'created');
  await first.close();

  // A hook's engine in a new embedding space: both memories lack a vector there.
  const transcript = path.join(tmpDir('am-short-owner-'), 't.jsonl');
  fs.writeFileSync(
    transcript,
    `${JSON.stringify({ type: 'user', uuid: 'u1', message: { role: 'user', content: 'Why is the audit log so large?' } })}\n`,
  );
  const hook = await MemoryEngine.open({
    ...dirs,
    snapshotTickMs: 0,
    chooseEmbedder: choose,
    settings: at(96),
    runSchedules: false,
    backgroundWork: false,
  });
  const hookEmbedder = made.at(-1)!;
  try {
    const logged = await hook.sessions.logTranscript({ sessionId: 'one', path: transcript, agent: 'claude-code', deferEmbedding: true });
    assert.equal(logged.logged?.chunksAdded, 1);
    assert.equal(logged.logged?.chunksPending, 1, 'the chunk waits for its vector');
    const found = await hook.search.search({ query: 'audit log' });
    assert.ok(found.hits.length > 0, 'keyword search answers meanwhile');
    await settle(300);
    assert.equal(hookEmbedder.documents, 0, 'no memory and no chunk embedded by the short-lived owner');
  } finally {
    await hook.close();
  }

  // The next long-lived owner embeds the two memories and the chunk in the background.
  const owner = await MemoryEngine.open({ ...dirs, snapshotTickMs: 0, chooseEmbedder: choose, settings: at(96) });
  const ownerEmbedder = made.at(-1)!;
  try {
    for (let i = 0; i < 250 && ownerEmbedder.documents < 3; i++) await settle(20);
    assert.equal(ownerEmbedder.documents, 3, 'two memories and one chunk');
  } finally {
    await owner.close();
  }
});
