// One store's runtime, with and without an embedder: the same smart store rules and the same
// hybrid search (keyword leg only without vectors); embedder switch, dedup scan, snapshot/close
// and reopen from the saved index.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { tmpDir } from '../../../helpers/tmp';
import { Store } from '../../../../src/core/store/store';
import { HashEmbedder } from '../../../../src/core/embed/hashEmbedder';
import { embeddingTextForInput } from '../../../../src/core/memory/embedding';
import { loadEngineConfig } from '../../../../src/engine/worker/config';
import { liveOllama } from '../../../../src/core/llm/liveOllama';
import { StoreRuntime } from '../../../../src/engine/worker/runtime/storeRuntime';
import type { Embedder } from '../../../../src/core/embed/types';

async function runtime(store: Store, projectId: string, embedder?: Embedder, settings: Record<string, unknown> = {}) {
  const { config } = await loadEngineConfig(undefined, settings);
  const warnings: string[] = [];
  const rt = await StoreRuntime.open({
    name: 'project',
    store,
    projectId,
    config,
    llm: liveOllama(() => config.memory.pipelineV2),
    restricted: false,
    ...(embedder ? { embedder } : {}),
    onWarning: (m) => warnings.push(m),
  });
  return { rt, warnings };
}

test('without an embedder: the hybrid search runs its keyword leg with the shared filters', async () => {
  const store = await Store.open({ dir: tmpDir('am-rt-') });
  const { rt } = await runtime(store, 'p1');
  const other = await runtime(store, 'other');
  try {
    assert.equal(rt.hasVectors, false);
    await rt.create({ content: 'Webhooks are verified with an HMAC signature header.', type: 'fact', tags: ['security'] });
    await rt.create({ content: 'Webhook retries stop after five attempts.', type: 'decision' });
    const all = await rt.search({ query: 'webhooks', limit: 10 });
    assert.equal(all.results.length, 2, 'the porter tokenizer matches webhook and webhooks');
    assert.deepEqual(all.legs, { keyword: true, vector: false });
    assert.ok(
      all.results.every((h) => h.matchType === 'keyword'),
      'found by the keyword leg',
    );
    assert.equal(all.results[0]!.textScore, 1, 'normalized keyword scores (min_score compares like with like)');
    assert.deepEqual(
      (await rt.search({ query: 'webhooks', limit: 10, types: ['decision'] })).results.map((h) => h.memory.type),
      ['decision'],
    );
    assert.deepEqual(
      (await rt.search({ query: 'webhooks', limit: 10, tags: ['Security'] })).results.map((h) => h.memory.type),
      ['fact'],
    );
    assert.deepEqual((await other.rt.search({ query: 'webhook', limit: 10 })).results, [], 'another project sees nothing');
    assert.deepEqual((await rt.search({ query: '"', limit: 10 })).results, []);
  } finally {
    await rt.close();
    await other.rt.close();
    await store.close();
  }
});

test('without an embedder: writes are stored pending, exact duplicates found, and a suggestion merges like with vectors', async () => {
  const store = await Store.open({ dir: tmpDir('am-rt-') });
  const { rt } = await runtime(store, 'p1');
  try {
    const a = await rt.create({ content: 'Redis runs on port 6379 in development.', tags: ['redis'] });
    const b = await rt.create({ content: 'In dev, the cache (Redis) listens on 6379.', tags: ['cache'] });
    const c = await rt.create({ content: 'Postgres 16 is required for the pgvector migration.' });
    assert.equal(a.status, 'created');
    assert.equal(a.embedding, 'pending', 'no vector space: stored with its embedding pending');
    assert.equal((await rt.create({ content: 'Redis runs on port 6379 in development.' })).status, 'duplicate');
    if (a.status !== 'created' || b.status !== 'created' || c.status !== 'created') throw new Error('not created');
    const now = new Date().toISOString();
    store.transaction((tx) => {
      for (const [id, x, y] of [
        ['s1', a.memory.id, b.memory.id],
        ['s2', b.memory.id, c.memory.id],
      ] as const) {
        tx.run(
          `INSERT INTO consolidation_suggestions (id, memory_a_id, memory_b_id, similarity, status, project_id, created_at)
            VALUES (?, ?, ?, 0.9, 'pending', 'p1', ?)`,
          [id, x, y, now],
        );
      }
    });
    const r = await rt.accept('s1');
    assert.equal(r.memory.id, a.memory.id, 'the older memory survives');
    assert.match(r.memory.content, /listens on 6379/);
    assert.equal(rt.memory.get(b.memory.id), undefined, 'the absorbed memory is tombstoned');
    const rel = store.get(`SELECT relationship FROM memory_relationships WHERE from_memory_id = ? AND to_memory_id = ?`, [
      a.memory.id,
      b.memory.id,
    ]);
    assert.equal(rel?.relationship, 'SUPERSEDES');
    const s2 = store.get(`SELECT status FROM consolidation_suggestions WHERE id = 's2'`);
    assert.equal(s2?.status, 'rejected', 'other suggestions about the absorbed memory are closed');
    assert.throws(
      () => rt.reject('s1'),
      (e: unknown) => (e as { code?: string }).code === 'suggestion_resolved',
    );
    assert.ok(rt.memory.history(a.memory.id).some((h) => h.reason?.includes('accepted suggestion s1')));
  } finally {
    await rt.close();
    await store.close();
  }
});

test('with vectors: smart store, embedder switch with progress, dedup scan, snapshot + close, reopen from the saved index', async () => {
  const dir = tmpDir('am-rt-');
  let store = await Store.open({ dir });
  const first = new HashEmbedder({ dimension: 128 });
  const settings = { 'memory.similarity_threshold': 0.99, 'memory.auto_merge_threshold': 1 };
  let { rt } = await runtime(store, 'github.com/acme/app', first, settings);
  const a = await rt.create({ content: 'Postgres connection pool size is 20 in production and 5 in staging.' });
  const b = await rt.create({ content: 'The webview bundle is built separately with its own esbuild config.' });
  assert.equal(a.action, 'stored');
  assert.equal(b.action, 'stored');
  if (a.status !== 'created' || b.status !== 'created') throw new Error('not created');
  assert.equal(rt.space!.vectors.size, 2);

  const second = new HashEmbedder({ dimension: 256 });
  const seen: number[] = [];
  const r = await rt.switchEmbedder(second, (p) => seen.push(p.done));
  assert.equal(r.status, 'switched');
  assert.equal(rt.activeEmbedder, second);
  assert.equal(rt.space!.vectors.space, second.space);
  assert.equal(rt.space!.vectors.size, 2);
  assert.equal(seen.at(-1), 2);
  const found = await rt.search({ query: 'esbuild webview bundle', limit: 1 });
  assert.equal(found.legs.vector, true, 'the search follows the new space');
  assert.equal(found.results[0]?.memory.id, b.memory.id);
  assert.equal(await rt.dedupScan(), 0, 'nothing above the threshold');
  await rt.snapshot();
  await rt.close();
  await store.close();

  store = await Store.open({ dir });
  ({ rt } = await runtime(store, 'github.com/acme/app', second));
  try {
    assert.equal(rt.space!.vectors.stats().openedFrom, 'file');
    assert.equal(rt.space!.vectors.state, 'ready');
    const q = (
      await second.embed(
        [embeddingTextForInput({ content: 'Postgres connection pool size is 20 in production and 5 in staging.' })],
        'document',
      )
    )[0]!;
    assert.equal(rt.space!.vectors.search(q, 1)[0]!.rid, a.memory.rid);
  } finally {
    await rt.close();
    await store.close();
  }
});

test("decision candidates of the pipeline come from the runtime's hybrid search (scores and legs of recall)", async () => {
  const store = await Store.open({ dir: tmpDir('am-rt-') });
  const { rt } = await runtime(store, 'p1', new HashEmbedder({ dimension: 128 }));
  try {
    const m = await rt.create({ content: `Rate limits are enforced per API key ${randomUUID()}.` });
    await rt.create({ content: 'The release train leaves every second Tuesday.' });
    assert.equal(m.status, 'created');
    const recall = await rt.search({ query: 'rate limits per key', limit: 5, noRerank: true });
    assert.equal(recall.legs.vector, true);
    const candidates = await rt.findCandidates('rate limits per key', 5);
    assert.deepEqual(
      candidates.map((c) => c.id),
      recall.results.map((r) => r.memory.id),
    );
    assert.deepEqual(
      candidates.map((c) => c.score),
      recall.results.map((r) => r.finalScore),
      'fused hybrid scores, not a full-text-only score',
    );
    assert.match(candidates[0]!.content, /Rate limits are enforced/, 'full content, not the preview');
  } finally {
    await rt.close();
    await store.close();
  }
});

test('one memory API per store: the pipeline, its reviews, undo and documents use the runtime memory service', async () => {
  const store = await Store.open({ dir: tmpDir('am-rt-') });
  const { rt } = await runtime(store, 'p1', undefined, { 'memory.pipelineV2.enabled': true });
  try {
    assert.ok(rt.pipeline, 'a writable store runs a pipeline');
    assert.equal(rt.pipeline.memory, rt.memory, 'the pipeline was given the runtime memory service, not a second one');
  } finally {
    await rt.close();
    await store.close();
  }
});

/** The .ts files under `dir`. */
function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return sources(p);
    return p.endsWith('.ts') ? [p] : [];
  });
}

// A second `new MemoryService` in src/ would be a second write path with its own settings (lifetimes, clock, extraction)
// for the same store (ARCHITECTURE.md "The one write path").
test('only the store runtime constructs a MemoryService', () => {
  const root = path.resolve(__dirname, '../../../..');
  const builders = sources(path.join(root, 'src'))
    .filter((f) => /new MemoryService\(/.test(fs.readFileSync(f, 'utf8')))
    .map((f) => path.relative(root, f).split(path.sep).join('/'));
  assert.deepEqual(builders, ['src/engine/worker/runtime/storeRuntime.ts']);
});
