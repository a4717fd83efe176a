// memory.pipelineV2.queryExpansionEnabled: the engine's search asks the pipeline's model (the fake
// Ollama on 127.0.0.1) once per search for other wordings, searches each store with them too and
// lifts what the query as written is related to (never brings in what it is not); off by default;
// a failing or slow model leaves the query as written with a warning, and is not asked again for a while.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { MemoryEngine } from '../../../../src/engine/worker/engine';
import type { EngineEvent } from '../../../../src/engine/protocol';
import { ALTERNATE_SHARE } from '../../../../src/core/search/queryExpansion';
import { FakeOllama } from '../../../helpers/fakeOllama';
import { engineDirs } from '../../harness';

const MEMORIES = [
  'Package installs go through pnpm only; CI fails if a package-lock.json appears in a pull request.',
  'Branch names follow type/short-description, for example feat/export-csv.',
  'Postgres 16 is the production database; SQLite is only used for local unit tests.',
];
// Shares one word with the first memory ("installs"): related to it, below the floor as written (the hash embedder knows no synonyms).
const PARAPHRASE = 'Which tool installs our JavaScript libraries?';

async function openEngine(fake: FakeOllama, extra: Record<string, unknown> = {}) {
  const events: EngineEvent[] = [];
  const settings = {
    'embedding.provider': 'hash',
    'memory.pipelineV2.ollamaUrl': fake.url,
    'memory.pipelineV2.queryExpansionEnabled': true,
    'memory.pipelineV2.queryExpansionTimeoutMs': 10_000,
    ...extra,
  };
  const engine = await MemoryEngine.open({ ...engineDirs(), snapshotTickMs: 0, onEvent: (e) => events.push(e), settings });
  for (const content of MEMORIES) assert.equal((await engine.memories.create({ content })).status, 'created');
  const warnings = () => events.filter((e): e is Extract<EngineEvent, { type: 'warning' }> => e.type === 'warning').map((e) => e.message);
  return { engine, warnings };
}

test('query expansion lifts a memory worded differently, once per search, and brings in nothing unrelated', async () => {
  const fake = await FakeOllama.start({ models: ['qwen3:4b'] });
  const { engine, warnings } = await openEngine(fake, { 'memory.pipelineV2.queryExpansionEnabled': false });
  try {
    assert.deepEqual((await engine.search.search({ query: PARAPHRASE, limit: 5 })).hits, [], 'below the floor as written');
    await engine.reloadConfig({
      'embedding.provider': 'hash',
      'memory.pipelineV2.ollamaUrl': fake.url,
      'memory.pipelineV2.queryExpansionEnabled': true,
      'memory.pipelineV2.queryExpansionTimeoutMs': 10_000,
    });
    // The second wording matches another memory strongly, but the question as written has no evidence for it.
    fake.enqueue('generate', { reply: '{"queries":["pnpm package installs","branch names"]}' });
    const r = await engine.search.search({ query: PARAPHRASE, limit: 5 });
    assert.deepEqual(
      r.hits.map((h) => h.content),
      [MEMORIES[0]],
    );
    assert.equal(r.hits[0]!.evidence?.alternate, 'pnpm package installs', 'the hit says which wording found it');
    assert.equal(fake.count('generate'), 1, 'one model call for both stores');
    const asked = fake.requestsTo('generate')[0]!;
    assert.equal(asked.body.model, 'qwen3:4b', "the pipeline's model");
    assert.match(String(asked.body.prompt), /Query: Which tool installs our JavaScript libraries\?/);

    // The same memory asked by its own words: found as written, at full relevance, above the alternate's share.
    fake.enqueue('generate', { reply: '{"queries":["pnpm package installs"]}' });
    const direct = await engine.search.search({ query: 'pnpm package installs', limit: 5 });
    assert.equal(direct.hits[0]?.content, MEMORIES[0]);
    assert.equal(direct.hits[0]!.evidence?.alternate, undefined);
    assert.ok(
      Math.abs(r.hits[0]!.relevance - ALTERNATE_SHARE * direct.hits[0]!.relevance) < 1e-9,
      `${r.hits[0]!.relevance} = ${ALTERNATE_SHARE} × ${direct.hits[0]!.relevance}`,
    );
    for (let i = 1; i < r.hits.length; i++) assert.ok(r.hits[i]!.relevance <= r.hits[i - 1]!.relevance, 'relevance decreases');

    // The same query again: the cached wordings, no second call.
    assert.equal((await engine.search.search({ query: PARAPHRASE, limit: 5 })).hits[0]?.content, MEMORIES[0]);
    assert.equal(fake.count('generate'), 2);
    assert.deepEqual(warnings(), []);
  } finally {
    await engine.close();
    await fake.close();
  }
});

test('a failing model: the query as written, a warning, and no call again while paused', async () => {
  const fake = await FakeOllama.start({ models: ['qwen3:4b'] });
  const { engine, warnings } = await openEngine(fake);
  try {
    fake.enqueue('generate', { status: 500, body: { error: 'model crashed' } });
    const r = await engine.search.search({ query: 'which database runs in production', limit: 5 });
    assert.equal(r.hits[0]?.content, MEMORIES[2], 'the query as written still answers');
    assert.ok(
      warnings().some((w) => /query expansion skipped \(.*model crashed.*\); searched as written/.test(w)),
      warnings().join('\n'),
    );
    const n = fake.count('generate');
    const again = await engine.search.search({ query: 'branch names', limit: 5 });
    assert.equal(again.hits[0]?.content, MEMORIES[1]);
    assert.equal(fake.count('generate'), n, 'paused after the failure');
  } finally {
    await engine.close();
    await fake.close();
  }
});

test('a slow model: the search goes on at the deadline with a warning', async () => {
  const fake = await FakeOllama.start({ models: ['qwen3:4b'] });
  const { engine, warnings } = await openEngine(fake, { 'memory.pipelineV2.queryExpansionTimeoutMs': 300 });
  try {
    fake.enqueue('generate', { hang: true });
    const r = await engine.search.search({ query: 'which database runs in production', limit: 5 });
    assert.equal(r.hits[0]?.content, MEMORIES[2]);
    assert.ok(
      warnings().some((w) => /query expansion skipped \(.*300 ms\)/.test(w)),
      warnings().join('\n'),
    );
  } finally {
    await engine.close();
    await fake.close();
  }
});

test('queryExpansionEnabled off (the default): no model call', async () => {
  const fake = await FakeOllama.start({ models: ['qwen3:4b'] });
  const engine = await MemoryEngine.open({
    ...engineDirs(),
    snapshotTickMs: 0,
    settings: { 'embedding.provider': 'hash', 'memory.pipelineV2.ollamaUrl': fake.url },
  });
  try {
    await engine.memories.create({ content: MEMORIES[0]! });
    assert.equal((await engine.search.search({ query: 'pnpm' })).hits.length, 1);
    assert.equal(fake.count('generate'), 0);
  } finally {
    await engine.close();
    await fake.close();
  }
});
