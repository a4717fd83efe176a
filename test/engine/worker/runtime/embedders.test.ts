// Changing `embedding.*` on a configuration reload re-embeds in the background with progress
// events; search keeps the old space until the new one is complete, then uses the new one.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { MemoryEngine } from '../../../../src/engine/worker/engine';
import type { EngineEvent } from '../../../../src/engine/protocol';
import { HashEmbedder } from '../../../../src/core/embed/hashEmbedder';
import type { EmbedKind, Embedder } from '../../../../src/core/embed/types';
import type { ChooseEmbedder } from '../../../../src/engine/worker/runtime/embedders';
import { engineDirs } from '../../harness';

/** Delegates to a hash embedder, but document embeddings wait until `open()` (queries do not). */
class GatedEmbedder implements Embedder {
  private release!: () => void;
  private readonly gate = new Promise<void>((r) => (this.release = r));
  /** Query embeddings asked of this embedder (a search in its space). */
  queries = 0;
  constructor(private readonly inner: HashEmbedder) {}
  get id() {
    return this.inner.id;
  }
  get space() {
    return this.inner.space;
  }
  get dimension() {
    return this.inner.dimension;
  }
  async embed(texts: string[], kind: EmbedKind): Promise<Float32Array[]> {
    if (kind === 'document') await this.gate;
    else this.queries++;
    return this.inner.embed(texts, kind);
  }
  available() {
    return this.inner.available();
  }
  dispose() {
    this.inner.dispose();
  }
  open() {
    this.release();
  }
}

test('a new embedding.model on reload re-embeds in the background; search keeps the old space until the switch', async () => {
  const gated = new Map<string, GatedEmbedder>();
  // embedding.model "dim-N" → an N-dimensional hash embedder (its own embedding space); later ones are gated.
  const choose: ChooseEmbedder = async (config) => {
    const dim = Number(/^dim-(\d+)$/.exec(config.embedding.model)?.[1] ?? 64);
    const inner = new HashEmbedder({ dimension: dim });
    const embedder = dim === 64 ? inner : new GatedEmbedder(inner);
    if (embedder instanceof GatedEmbedder) gated.set(embedder.space, embedder);
    return { embedder, provider: 'hash', reason: `hash ${dim}-d`, degraded: false };
  };
  const events: EngineEvent[] = [];
  const settings = { 'embedding.provider': 'hash', 'embedding.model': 'dim-64' };
  const engine = await MemoryEngine.open({
    ...engineDirs(),
    snapshotTickMs: 0,
    chooseEmbedder: choose,
    onEvent: (e) => events.push(e),
    settings,
  });
  const progress = () => events.filter((e): e is Extract<EngineEvent, { type: 'embeddings.progress' }> => e.type === 'embeddings.progress');
  try {
    for (const content of [
      'Feature flags are evaluated on the server.',
      'The nightly job compacts the audit log.',
      'Billing runs on the first of the month.',
    ]) {
      assert.equal((await engine.memories.create({ content })).status, 'created');
    }
    const oldSpace = engine.embedderInfo!.space;
    await engine.reloadConfig({ ...settings, 'embedding.model': 'dim-96' });
    for (let i = 0; i < 500 && gated.size === 0; i++) await new Promise((r) => setTimeout(r, 20));
    const next = [...gated.values()][0]!;
    assert.notEqual(next.space, oldSpace);
    for (let i = 0; i < 500 && !progress().some((p) => p.state === 'running'); i++) await new Promise((r) => setTimeout(r, 20));
    assert.ok(
      progress().some((p) => p.state === 'running' && p.store === 'project' && p.total === 3),
      JSON.stringify(progress()),
    );

    // Mid-switch: the old space answers, writes keep working.
    assert.equal(engine.embedderInfo!.space, oldSpace);
    const during = await engine.search.search({ query: 'audit log compaction', limit: 1 });
    assert.ok((during.hits[0]?.legs.vector ?? 0) > 0, 'the vector leg still runs…');
    assert.equal(next.queries, 0, '…in the old space: the new embedder is not asked');
    assert.equal((await engine.memories.create({ content: 'Support tickets are answered within one business day.' })).status, 'created');
    assert.ok(!progress().some((p) => p.state === 'switched' && p.store === 'project'));

    next.open();
    await engine.whenEmbedderSwitched();
    assert.ok(
      progress().some((p) => p.state === 'switched' && p.store === 'project' && p.space === next.space),
      JSON.stringify(progress()),
    );
    assert.equal(engine.embedderInfo!.space, next.space);
    const after = await engine.search.search({ query: 'support tickets business day', limit: 1 });
    assert.match(after.hits[0]!.content, /Support tickets/, 'a write made during the switch is in the new space too');
    assert.ok((after.hits[0]!.legs.vector ?? 0) > 0);
    assert.ok(next.queries > 0, 'search now embeds the query in the new space');
    assert.equal(engine.diagnostics.stats().project.pendingEmbeddings, 0);
  } finally {
    await engine.close();
  }
});
