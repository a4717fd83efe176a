// MemoryEngine hosted directly (no thread): configuration precedence, snapshot policy,
// global scope, export/import, suggestions, graph, a second window on the same store.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import { MemoryEngine, storeFolderName } from '../../../src/engine/worker/engine';
import { EngineError } from '../../../src/engine/errors';
import { Store } from '../../../src/core/store/store';
import type { EngineEvent } from '../../../src/engine/protocol';
import { engineDirs } from '../harness';
import { FakeOllama } from '../../helpers/fakeOllama';
import { until } from '../../helpers/until';

const HASH = { 'embedding.provider': 'hash' };

async function open(dirs = engineDirs(), extra: Partial<Parameters<typeof MemoryEngine.open>[0]> = {}) {
  const events: EngineEvent[] = [];
  // The hash embedder: deterministic and light (the built-in model has its own test below).
  const engine = await MemoryEngine.open({
    ...dirs,
    snapshotTickMs: 0,
    onEvent: (e) => events.push(e),
    ...extra,
    settings: { ...HASH, ...extra.settings },
  });
  return { engine, events, dirs };
}

async function created(p: ReturnType<MemoryEngine['memories']['create']>) {
  const r = await p;
  assert.equal(r.status, 'created', JSON.stringify(r));
  if (r.status !== 'created') throw new Error('not created');
  return r.memory;
}

test('settings win over agent.yaml, which wins over the defaults; bad values are reported and ignored', async () => {
  const dirs = engineDirs();
  fs.writeFileSync(path.join(dirs.workspaceRoot!, 'agent.yaml'), 'search:\n  default_limit: 5\n  max_limit: 50\n');
  const a = await open(dirs);
  assert.equal(a.engine.config.search.default_limit, 5);
  assert.equal(a.engine.config.search.max_limit, 50);
  const summary = await a.engine.reloadConfig({ 'search.default_limit': 7, 'search.max_limit': 'lots' });
  assert.equal(a.engine.config.search.default_limit, 7, 'the setting wins');
  assert.equal(a.engine.config.search.max_limit, 50, 'an invalid setting keeps the agent.yaml value');
  assert.deepEqual(summary.overridden, ['search.default_limit']);
  assert.ok(summary.issues.some((i) => i.key === 'search.max_limit' && i.source === 'VS Code settings'));
  assert.ok(
    a.events.some((e) => e.type === 'warning' && e.message.includes('search.max_limit')),
    'the issue is a warning event',
  );
  assert.match(summary.file ?? '', /agent\.yaml$/);
  await a.engine.close();
});

test('snapshots when idle and on shutdown; nothing when nothing changed', async () => {
  const { engine, events, dirs } = await open(undefined, { settings: { 'store.snapshotIdleMs': 1000 } });
  // A new store's migrations are in the log only: the first idle check snapshots them.
  assert.deepEqual(await engine.maintenance.maybeSnapshot(Date.now() + 60_000), ['project', 'global']);
  assert.deepEqual(await engine.maintenance.maybeSnapshot(Date.now() + 120_000), [], 'nothing changed since: no snapshot');
  await created(engine.memories.create({ content: 'Integration tests need the docker daemon running locally.' }));
  assert.deepEqual(await engine.maintenance.maybeSnapshot(Date.now()), [], 'not idle yet right after a write');
  assert.deepEqual(await engine.maintenance.maybeSnapshot(Date.now() + 5_000), ['project'], 'idle beyond store.snapshotIdleMs');
  assert.ok(events.some((e) => e.type === 'snapshot' && e.store === 'project'));
  await created(engine.memories.create({ content: 'Global: always run prettier before committing code.', scope: 'global' }));
  assert.equal(await engine.close(), true);
  const globalDir = path.join(dirs.globalStorageDir, 'global');
  const store = await Store.open({ dir: globalDir });
  assert.equal(store.stats().replayedRecords, 0, 'shutdown snapshot covers the global write');
  await store.close({ snapshot: false });
});

test('global memories live in the global store, are listed after project ones, and can move between stores', async () => {
  const { engine } = await open();
  const p = await created(engine.memories.create({ content: 'The API gateway times out after 29 seconds.', type: 'fact' }));
  const g = await created(
    engine.memories.create({ content: 'I prefer tabs over spaces in every project.', scope: 'global', type: 'preference' }),
  );
  const all = engine.memories.list({ limit: 10 });
  assert.deepEqual(
    all.items.map((i) => i.id),
    [p.id, g.id],
  );
  assert.equal(all.total, 2);
  assert.deepEqual(
    engine.memories.list({ offset: 1, limit: 1 }).items.map((i) => i.id),
    [g.id],
    'paging continues into the global store',
  );
  assert.deepEqual(
    engine.memories.list({ scope: 'global' }).items.map((i) => i.id),
    [g.id],
  );
  assert.deepEqual(engine.memories.typeCounts(), { fact: 1, preference: 1 });
  const stats = engine.diagnostics.stats();
  assert.equal(stats.project.memories, 1);
  assert.equal(stats.global.memories, 1);
  // What start-up reads to serve the stores, without counting: the same as the stats say.
  for (const name of ['project', 'global'] as const) {
    assert.deepEqual(engine.diagnostics.location(name), { dir: stats[name].dir, readOnly: false });
  }
  assert.notEqual(stats.project.dir, stats.global.dir);
  const moved = await engine.memories.update(p.id, { scope: 'global' });
  assert.equal(moved.scope, 'global');
  assert.equal(engine.memories.get(p.id), null, 'the project copy is tombstoned');
  assert.equal(engine.memories.get(moved.id)?.content, p.content);
  assert.equal(engine.diagnostics.stats().global.memories, 2);
  await engine.close();
});

test('export then import into a fresh project restores the memories; bad files are refused clearly', async () => {
  const a = await open();
  await created(a.engine.memories.create({ content: 'Use the <script> tag sparingly & escape "quotes".', tags: ['html'] }));
  await created(a.engine.memories.create({ content: 'Release branches are cut every second Thursday.', scope: 'global' }));
  const file = path.join(a.dirs.storageDir, '..', 'export.json');
  const out = a.engine.transfer.exportTo(file);
  assert.equal(out.count, 2);
  await a.engine.close();

  const b = await open();
  const progress: number[] = [];
  const r = await b.engine.transfer.importFile(file, { signal: new AbortController().signal, progress: (done) => progress.push(done) });
  assert.deepEqual({ ...r, errors: r.errors.length }, { format: 'json', total: 2, created: 2, duplicates: 0, skipped: 0, errors: 0 });
  assert.equal(b.engine.diagnostics.stats().global.memories, 1, 'the global memory went back to the global store');
  assert.deepEqual(progress, [2]);
  assert.equal(
    (await b.engine.search.search({ query: 'script tag' })).hits[0]?.content,
    'Use the <script> tag sparingly & escape "quotes".',
  );
  const again = await b.engine.transfer.importFile(file);
  assert.equal(again.duplicates, 2, 'importing twice creates nothing new');

  const bad = path.join(b.dirs.storageDir, '..', 'bad.json');
  fs.writeFileSync(bad, '{ not json');
  await assert.rejects(
    () => b.engine.transfer.importFile(bad),
    (e: unknown) => e instanceof EngineError && e.code === 'invalid_input' && /not valid JSON/.test(e.message),
  );
  fs.writeFileSync(bad, JSON.stringify({ hello: 1 }));
  await assert.rejects(() => b.engine.transfer.importFile(bad), /neither an Agent Memory export/);
  fs.writeFileSync(bad, JSON.stringify([{ content: 'The CI cache key includes the lockfile hash.' }, 42, { title: 'no content' }]));
  const mixed = await b.engine.transfer.importFile(bad);
  assert.equal(mixed.created, 1);
  assert.deepEqual(
    mixed.errors.map((e) => e.index),
    [1, 2],
    'bad items are reported by index, the good one is kept',
  );
  await assert.rejects(() => b.engine.transfer.importFile('relative.json'), /must be absolute/);
  await b.engine.close();
});

test('import can be cancelled between batches; what was imported stays', async () => {
  const { engine, dirs } = await open();
  const file = path.join(dirs.storageDir, '..', 'many.json');
  fs.writeFileSync(
    file,
    JSON.stringify(
      Array.from({ length: 450 }, (_, i) => ({ content: `Imported fact number ${i}: service ${randomUUID()} owns queue ${i}.` })),
    ),
  );
  const ac = new AbortController();
  await assert.rejects(
    () =>
      engine.transfer.importFile(file, {
        signal: ac.signal,
        progress: (done) => {
          if (done >= 200) ac.abort();
        },
      }),
    (e: unknown) => e instanceof EngineError && e.code === 'cancelled',
  );
  assert.equal(engine.diagnostics.stats().project.memories, 200, 'the first batch was committed');
  await engine.close();
});

test('consolidation suggestions: list, accept merges with a SUPERSEDES link, reject and clear', async () => {
  const dirs = engineDirs();
  const a = await open(dirs);
  const m1 = await created(a.engine.memories.create({ content: 'Redis runs on port 6379 in development.', tags: ['redis'] }));
  const m2 = await created(a.engine.memories.create({ content: 'In dev, the cache (Redis) listens on 6379.', tags: ['cache'] }));
  const m3 = await created(a.engine.memories.create({ content: 'Postgres 16 is required for the pgvector migration.' }));
  const projectId = a.engine.projectId;
  await a.engine.close();
  const store = await Store.open({ dir: path.join(dirs.storageDir, 'projects', storeFolderName(projectId)) });
  store.transaction((tx) => {
    for (const [id, x, y, sim] of [
      ['s1', m1.id, m2.id, 0.88],
      ['s2', m1.id, m3.id, 0.76],
    ] as const) {
      tx.run(
        `INSERT INTO consolidation_suggestions (id, memory_a_id, memory_b_id, similarity, status, project_id, created_at) VALUES (?, ?, ?, ?, 'pending', ?, ?)`,
        [id, x, y, sim, projectId, new Date().toISOString()],
      );
    }
  });
  await store.close();

  const b = await open(dirs);
  assert.deepEqual(
    b.engine.suggestions.list().map((s) => s.id),
    ['s1', 's2'],
  );
  assert.equal(b.engine.diagnostics.stats().suggestionsPending, 2);
  const merged = await b.engine.suggestions.accept('s1');
  assert.equal(merged.id, m1.id, 'memory a survives');
  assert.match(merged.content, /Redis runs on port 6379 in development/);
  assert.match(merged.content, /cache \(Redis\) listens on 6379/, 'smart_merge keeps what only b said');
  assert.deepEqual([...merged.tags].sort(), ['cache', 'redis']);
  assert.equal(b.engine.memories.get(m2.id), null, 'the absorbed memory is tombstoned');
  const graph = b.engine.graph.memories({ centerId: m1.id });
  assert.ok(graph.nodes.some((n) => n.id === m1.id));
  await assert.rejects(b.engine.suggestions.accept('s1'));
  assert.equal(b.engine.suggestions.clear(), 1);
  assert.deepEqual(b.engine.suggestions.list(), []);
  assert.throws(
    () => b.engine.suggestions.reject('nope'),
    (e: unknown) => (e as { code?: string }).code === 'not_found' && /No consolidation suggestion/.test((e as Error).message),
  );
  await b.engine.close();
});

test('graph: relationships, shared entities and shared tags become edges; unknown centre is not_found', async () => {
  const dirs = engineDirs();
  const { engine } = await open(dirs);
  const a = await created(engine.memories.create({ content: 'Auth tokens expire after 15 minutes.', tags: ['auth'] }));
  const b = await created(engine.memories.create({ content: 'Refresh tokens are rotated on every use.', tags: ['auth'] }));
  const c = await created(engine.memories.create({ content: 'The design system uses an 8px spacing grid.', tags: ['ui'] }));
  const g = engine.graph.memories({});
  assert.equal(g.nodes.length, 3);
  assert.deepEqual(
    g.edges.map((e) => [e.from, e.to, e.kind]),
    [[a.id, b.id, 'shared_tag:auth']],
  );
  assert.throws(
    () => engine.graph.memories({ centerId: 'missing' }),
    (e: unknown) => e instanceof EngineError && e.code === 'not_found',
  );
  const projectId = engine.projectId;
  await engine.close();
  // What the pipeline's graph writer leaves: an entity both b and c mention.
  const store = await Store.open({ dir: path.join(dirs.storageDir, 'projects', storeFolderName(projectId)) });
  const iso = new Date().toISOString();
  store.transaction((tx) => {
    tx.run(
      `INSERT INTO entities (id, name, canonical_name, entity_type, mentions, created_at, updated_at) VALUES ('e1', 'Design Tokens', 'design tokens', 'concept', 2, ?, ?)`,
      [iso, iso],
    );
    for (const m of [b.id, c.id])
      tx.run(
        `INSERT INTO memory_entity_mentions (memory_id, entity_id, mention_text, confidence, created_at) VALUES (?, 'e1', 'tokens', 0.9, ?)`,
        [m, iso],
      );
  });
  await store.close();
  const again = await open(dirs);
  const kinds = again.engine.graph.memories({}).edges.map((e) => [e.from, e.to, e.kind]);
  assert.deepEqual(kinds, [
    [a.id, b.id, 'shared_tag:auth'],
    [b.id, c.id, 'entity:Design Tokens'],
  ]);
  await again.engine.close();
});

test('a second engine on the same store (another window) opens read-only: reads work, writes are refused with a reason', async () => {
  const dirs = engineDirs();
  const owner = await open(dirs);
  await created(owner.engine.memories.create({ content: 'Only the owning window may write to the store.' }));
  const second = await open(dirs, { ownerId: 'other-window' });
  assert.ok(second.engine.startupWarnings.some((w) => /read-only/.test(w)));
  assert.equal((await second.engine.search.search({ query: 'owning window' })).hits.length, 1);
  await assert.rejects(
    second.engine.memories.create({ content: 'This write must be refused by the engine.' }),
    (e: unknown) => e instanceof EngineError && e.code === 'store_read_only',
  );
  await second.engine.close();
  await owner.engine.close();
});

test('search filters by type and tags and keeps HTML as plain text', async () => {
  const { engine } = await open();
  await created(
    engine.memories.create({ content: 'Never call <img src=x onerror=alert(1)> in templates.', type: 'code_pattern', tags: ['security'] }),
  );
  await created(engine.memories.create({ content: 'Templates are rendered on the server side only.', type: 'decision' }));
  assert.equal((await engine.search.search({ query: 'templates' })).hits.length, 2);
  assert.deepEqual(
    (await engine.search.search({ query: 'templates', types: ['decision'] })).hits.map((h) => h.memory.type),
    ['decision'],
  );
  assert.deepEqual(
    (await engine.search.search({ query: 'templates', tags: ['Security'] })).hits.map((h) => h.memory.type),
    ['code_pattern'],
  );
  assert.equal((await engine.search.search({ query: '"' })).hits.length, 0, 'nothing searchable → no hits, no error');
  assert.match((await engine.search.search({ query: 'onerror' })).hits[0]!.content, /<img src=x onerror=alert\(1\)>/);
  await engine.close();
});

test('a query that names the day a memory was written shows the date boost among its legs', async () => {
  const { engine } = await open();
  await created(engine.memories.create({ content: 'The staging cluster was rebuilt from scratch.' }));
  const today = new Date().toLocaleDateString('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' }); // e.g. 23 November 2026
  const dated = (await engine.search.search({ query: `staging cluster rebuilt on ${today}` })).hits[0]!;
  assert.ok((dated.legs.date ?? 0) > 0, `date leg present: ${JSON.stringify(dated.legs)}`);
  const plain = (await engine.search.search({ query: 'staging cluster rebuilt' })).hits[0]!;
  assert.equal(plain.legs.date, undefined, 'no date named, no date leg');
  await engine.close();
});

test('hits say what their relevance is made of, and it never rises down the list', async () => {
  const { engine } = await open();
  for (const content of [
    'We use pnpm, never npm: the lockfile is pnpm-lock.yaml.',
    'Use the staging cluster for load tests, never production.',
    'Use tabs in Makefiles and two spaces everywhere else.',
    'The pnpm store lives on the shared volume of the build agents.',
  ])
    await created(engine.memories.create({ content }));
  const r = await engine.search.search({ query: 'where does the pnpm store live' });
  assert.ok(r.hits.length >= 2, JSON.stringify(r.hits.map((h) => h.content)));
  assert.match(r.hits[0]!.content, /pnpm store lives/);
  for (let i = 1; i < r.hits.length; i++) assert.ok(r.hits[i - 1]!.relevance >= r.hits[i]!.relevance, `relevance rises at ${i}`);
  for (const h of r.hits) {
    assert.ok(h.evidence, 'the breakdown travels with the hit (hover, --json)');
    assert.ok(h.evidence.keyword >= 0 && h.evidence.keyword <= 1 && h.evidence.vector >= 0 && h.evidence.vector <= 1);
  }
  assert.ok(r.hits[0]!.evidence!.keyword > 0.5, `most of the question matched: ${r.hits[0]!.evidence!.keyword}`);
  await engine.close();
});

test('default configuration: auto picks the built-in model (no Ollama here); hybrid search finds by meaning through the vector leg', async () => {
  const dirs = engineDirs();
  const engine = await MemoryEngine.open({ ...dirs, snapshotTickMs: 0 });
  try {
    assert.equal(engine.embedderInfo?.provider, 'builtin', engine.embedderInfo?.reason);
    const m = await created(engine.memories.create({ content: 'The nightly backup job copies the Postgres database to cold storage.' }));
    await created(engine.memories.create({ content: 'Buttons use the primary brand colour on hover.' }));
    const r = await engine.search.search({ query: 'where do we archive our data every night?', limit: 1 });
    assert.ok(r.legsUsed.includes('vector'));
    assert.equal(r.hits[0]?.memory.id, m.id);
    assert.ok((r.hits[0]?.legs.vector ?? 0) > 0);
    assert.equal(engine.diagnostics.stats().project.pendingEmbeddings, 0, 'embedded on write');
  } finally {
    await engine.close();
  }
});

test('lifecycle: hits handed to an agent count as accesses (once an hour), browsing does not; expired short-term memories are swept', async () => {
  const dirs = engineDirs();
  let now = new Date('2026-05-01T10:00:00.000Z');
  const clock = () => new Date(now);
  const a = await open(dirs, { now: clock });
  const kept = await created(
    a.engine.memories.create({ content: 'The payments service owns the invoices table.', importance: 0.5, origin: 'capture' }),
  );
  const brief = await created(
    a.engine.memories.create({ content: 'Temporary: the demo environment is frozen this week.', ttlSeconds: 120 }),
  );
  assert.equal(
    (await a.engine.search.search({ query: 'payments invoices table', limit: 1, recordAccess: true })).hits[0]?.memory.id,
    kept.id,
  );
  await a.engine.search.search({ query: 'invoices', limit: 1 }); // the search panel: not an access
  await a.engine.search.search({ query: 'who owns the invoices table', limit: 1, recordAccess: true }); // same hour: not counted again
  // The engine's scheduler writes the queued accesses within a moment (ACCESS_FLUSH_MS).
  for (let i = 0; i < 100 && a.engine.memories.get(kept.id)!.accessCount === 0; i++) await new Promise((r) => setTimeout(r, 50));
  assert.equal(a.engine.memories.get(kept.id)!.accessCount, 1, 'written by the scheduler, once for both agent searches of the hour');
  now = new Date(now.getTime() + 61 * 60_000); // the 120 s memory is past its TTL; an hour has passed
  await a.engine.search.search({ query: 'who owns the invoices table', limit: 1, recordAccess: true });
  assert.deepEqual(a.engine.maintenance.sweepExpired(), [brief.id]);
  assert.ok(a.events.some((e) => e.type === 'memory.changed' && e.kind === 'expired' && e.ids.includes(brief.id)));
  assert.equal(a.engine.memories.get(brief.id), null);
  await a.engine.close(); // flushes the queued accesses
  const b = await open(dirs, { now: clock });
  const after = b.engine.memories.get(kept.id)!;
  assert.equal(after.accessCount, 2, 'two agent searches an hour apart; the browsing one and the one inside the hour do not count');
  assert.ok(after.expiresAt! > kept.expiresAt!, 'each access extends the TTL');
  await b.engine.close();
});

test('pipeline: off by default; enabled, a new memory is extracted through Ollama (fake, 127.0.0.1) into fact memories', async () => {
  const off = await open();
  assert.equal(off.engine.pipelines.status().state, 'off');
  await off.engine.close();

  const fake = await FakeOllama.start({ models: ['qwen3:4b'] });
  try {
    fake.enqueue('generate', {
      reply: JSON.stringify({
        facts: [{ content: 'The API server runs on Fastify, not Express.', type: 'decision', confidence: 0.9 }],
        entities: [],
      }),
    });
    const { engine, events } = await open(undefined, {
      settings: { 'memory.pipelineV2.enabled': true, 'memory.pipelineV2.ollamaUrl': fake.url, 'memory.pipelineV2.workerPollMs': 100 },
    });
    try {
      assert.equal(engine.pipelines.status().mode, 'controlled');
      const src = await created(
        engine.memories.create({ content: 'We moved the API server from Express to Fastify because Express was too slow for us.' }),
      );
      // Wait (no time bound asserted) until the worker has processed the job.
      for (let i = 0; i < 200 && !engine.pipelines.status().jobs.completed; i++) await new Promise((r) => setTimeout(r, 50));
      assert.equal(engine.pipelines.status().jobs.completed, 1, JSON.stringify(engine.pipelines.status()));
      const facts = engine.memories.list({ types: ['decision'] }).items;
      assert.deepEqual(
        facts.map((f) => f.preview),
        ['The API server runs on Fastify, not Express.'],
      );
      assert.ok(facts[0]!.id !== src.id);
      assert.ok(events.some((e) => e.type === 'pipeline.state'));
      assert.equal(engine.pipelines.status().state, 'idle');
    } finally {
      await engine.close();
    }
  } finally {
    await fake.close();
  }
});

test('a different embedding model at the next start embeds the existing memories again in the background', async () => {
  const dirs = engineDirs();
  const a = await open(dirs); // hash embedder
  const m = await created(a.engine.memories.create({ content: 'Feature flags are evaluated on the server, never in the browser.' }));
  assert.equal(a.engine.maintenance.reembed(), 0, 'nothing is missing in the active space');
  await a.engine.close();
  const b = await MemoryEngine.open({ ...dirs, snapshotTickMs: 0, settings: { 'embedding.provider': 'builtin' } });
  try {
    assert.equal(b.embedderInfo?.provider, 'builtin');
    assert.ok(
      b.startupWarnings.some((w) => /1 memory has no vector from builtin/.test(w)),
      b.startupWarnings.join('\n'),
    );
    for (let i = 0; i < 200 && b.diagnostics.stats().project.pendingEmbeddings > 0; i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal(b.diagnostics.stats().project.pendingEmbeddings, 0, 'the backfill embedded it');
    // No word in common with the memory (cosine 0.60 under USE-lite, above its relevance floor):
    // only the new vector space can find it.
    const r = await b.search.search({ query: 'are toggles checked on the backend or in the client?', limit: 1 });
    assert.equal(r.hits[0]?.memory.id, m.id);
    assert.ok((r.hits[0]?.legs.vector ?? 0) > 0, 'found through the new space');
  } finally {
    await b.close();
  }
});

test('dedup scanner: pairs above memory.similarity_threshold become suggestions; listed with both memories', async () => {
  // No suggestions at write time (thresholds at the top), then a lower threshold for the scan.
  const { engine } = await open(undefined, { settings: { 'memory.similarity_threshold': 0.99, 'memory.auto_merge_threshold': 1 } });
  try {
    await created(engine.memories.create({ content: 'The billing service sends invoices by email every Monday morning.' }));
    await created(
      engine.memories.create({
        content: 'Every Monday morning the billing service emails the invoices to customers.',
        allowNearDuplicate: true,
      }),
    );
    await created(engine.memories.create({ content: 'The design system uses an 8px spacing grid.' }));
    assert.deepEqual(engine.suggestions.list(), []);
    await engine.reloadConfig({ 'embedding.provider': 'hash', 'memory.similarity_threshold': 0.5, 'memory.auto_merge_threshold': 1 });
    assert.ok((await engine.suggestions.scan()) >= 1);
    const list = engine.suggestions.list();
    assert.ok(list.length >= 1);
    assert.ok(list.every((s) => s.similarity >= 0.5 && s.a.id !== s.b.id));
    assert.ok(
      list.some((s) => /billing/.test(s.a.preview) && /billing/.test(s.b.preview)),
      JSON.stringify(list.map((s) => [s.a.preview, s.b.preview, s.similarity])),
    );
  } finally {
    await engine.close();
  }
});

test('memory.normalize_project_id off: the workspace folder path is the project id (on: the VCS-agnostic id)', async () => {
  const dirs = engineDirs();
  const git = path.join(dirs.workspaceRoot!, '.git');
  fs.mkdirSync(git);
  fs.writeFileSync(path.join(git, 'HEAD'), 'ref: refs/heads/main\n');
  fs.writeFileSync(path.join(git, 'config'), '[remote "origin"]\n\turl = https://github.com/acme/app.git\n');
  const on = await open(dirs);
  assert.equal(on.engine.project.kind, 'git-remote', JSON.stringify(on.engine.project));
  await on.engine.close();
  const off = await open(dirs, { settings: { 'memory.normalize_project_id': false } });
  try {
    assert.equal(off.engine.projectId, path.resolve(dirs.workspaceRoot!));
    assert.equal(off.engine.project.kind, 'path');
  } finally {
    await off.engine.close();
  }
});

/** An engine on the built-in embedder, and the log lines it has said so far. */
async function builtinEngine(extra: Partial<Parameters<typeof MemoryEngine.open>[0]> = {}) {
  const events: EngineEvent[] = [];
  const logs = () => events.flatMap((e) => (e.type === 'log' ? [e.message] : []));
  const engine = await MemoryEngine.open({
    ...engineDirs(),
    snapshotTickMs: 0,
    settings: { 'embedding.provider': 'builtin' },
    onEvent: (e) => events.push(e),
    ...extra,
  });
  return { engine, logs };
}

test('the built-in model loads when first needed, not at open nor for a search with no vector to compare; the log says so', async () => {
  const { engine, logs } = await builtinEngine();
  try {
    assert.equal(engine.embedderInfo?.provider, 'builtin');
    assert.match(engine.embedderInfo?.reason ?? '', /loaded when first needed/);
    assert.deepEqual(logs(), [], 'nothing loaded while the engine opened');
    const empty = await engine.search.search({ query: 'which package manager do we use', limit: 3 });
    assert.deepEqual(logs(), [], 'an empty store: nothing to compare the query with, so it is not embedded');
    assert.ok(empty.legsUsed.includes('vector'), 'the vector leg is still on');
    await engine.memories.create({ content: 'Package installs go through pnpm only.', ttlSeconds: null });
    const r = await engine.search.search({ query: 'which package manager do we use', limit: 3 });
    assert.equal(r.hits[0]?.memory.preview, 'Package installs go through pnpm only.');
    assert.equal(logs().length, 1, logs().join('\n'));
    assert.match(logs()[0]!, /^built-in embedding model loaded in \d+ ms$/);
  } finally {
    await engine.close();
  }
});

test("modelThread 'engine' (the CLI): the built-in model loads on the engine's thread when first needed, and the log says so", async () => {
  const { engine, logs } = await builtinEngine({ modelThread: 'engine' });
  try {
    assert.equal(engine.embedderInfo?.provider, 'builtin');
    assert.deepEqual(logs(), [], 'nothing loaded while the engine opened');
    await engine.memories.create({ content: 'Package installs go through pnpm only.', ttlSeconds: null });
    const r = await engine.search.search({ query: 'which package manager do we use', limit: 3 });
    assert.ok(r.legsUsed.includes('vector'), JSON.stringify(r.legsUsed));
    assert.equal(r.hits[0]?.memory.preview, 'Package installs go through pnpm only.');
    assert.equal(logs().filter((l) => l.startsWith('built-in embedding model loaded')).length, 1, logs().join('\n'));
    assert.match(
      logs().find((l) => l.startsWith('built-in embedding model loaded'))!,
      /^built-in embedding model loaded in \d+ ms on the engine's thread$/,
    );
  } finally {
    await engine.close();
  }
});

test('a search waiting while the engine opens (prepare) has the built-in model loaded meanwhile, and the log says so', async () => {
  const events: EngineEvent[] = [];
  const logs = () => events.flatMap((e) => (e.type === 'log' ? [e.message] : []));
  let want!: () => void;
  const embedderWanted = new Promise<void>((resolve) => (want = resolve));
  want(); // as the worker does when a PrepareMessage arrives before the stores are open
  const engine = await MemoryEngine.open({
    ...engineDirs(),
    snapshotTickMs: 0,
    settings: { 'embedding.provider': 'builtin' },
    onEvent: (e) => events.push(e),
    embedderWanted,
  });
  try {
    assert.deepEqual(
      logs(),
      ['loading the embedder (builtin) while the store opens: a request that needs it is waiting'],
      'the load started during open',
    );
    // No search yet: the model finishes loading on its own.
    await until('the model loaded with no search asked', () => logs().some((l) => /^built-in embedding model loaded in \d+ ms$/.test(l)), {
      timeoutMs: 60_000,
    });
    const r = await engine.search.search({ query: 'which package manager do we use', limit: 3 });
    assert.ok(r.legsUsed.includes('vector'), JSON.stringify(r.legsUsed));
    assert.equal(logs().filter((l) => l.startsWith('built-in embedding model loaded')).length, 1, 'loaded once');
  } finally {
    await engine.close();
  }
});
