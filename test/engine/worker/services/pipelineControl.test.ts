/**
 * The pipeline controls through the real engine worker thread (EngineClient ↔ worker.ts):
 * pause/resume, a full-mode run against the fake Ollama that leaves proposals for review,
 * approve/reject, the pipeline's change list and undo, mode switching, diagnostics, document
 * ingest with progress, suggestions list/clear over the core records, and restricted mode.
 */
import { test, after } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { engineDirs, startClient } from '../../harness';
import { FakeOllama, closedPortUrl } from '../../../helpers/fakeOllama';
import type { EngineClient } from '../../../../src/engine/client/engineClient';
import type { EngineInit } from '../../../../src/engine/protocol';
import { Store } from '../../../../src/core/store/store';
import { documentProgress } from '../../../../src/core/documents/ingestProgress';
import { until } from '../../../helpers/until';

const MODEL = 'qwen3:4b';
const fakes: FakeOllama[] = [];
const clients: EngineClient[] = [];
after(async () => {
  for (const c of clients) await c.shutdown(5000).catch(() => undefined);
  for (const f of fakes) await f.close();
});

const extraction = (facts: unknown[]) => JSON.stringify({ facts, entities: [] });
const decision = (d: Record<string, unknown>) => JSON.stringify(d);

async function start(init: Partial<EngineInit> & { settings?: Record<string, unknown> } = {}, dirs = engineDirs()) {
  const client = startClient({ ...dirs, allowDebug: true, ...init });
  clients.push(client);
  await client.start();
  return { client, dirs };
}

async function fullModeEngine(extra: Partial<EngineInit> = {}) {
  const fake = await FakeOllama.start({ models: [MODEL] });
  fakes.push(fake);
  const settings = {
    'memory.pipelineV2.enabled': true,
    'memory.pipelineV2.allowUpdateDelete': true,
    'memory.pipelineV2.ollamaUrl': fake.url,
    'memory.pipelineV2.extractionModel': MODEL,
    'memory.pipelineV2.workerPollMs': 100,
  };
  const e = await start({ settings, ...extra });
  return { ...e, fake, settings };
}

test('pause holds the jobs; resume runs them; full-mode proposals wait for review; approve, reject, undo', async () => {
  const { client, fake } = await fullModeEngine({ pipelinePaused: true });
  let st = await client.request('pipeline.status', {});
  assert.equal(st.paused, true);
  assert.equal(st.mode, 'full');

  const b = await client.request('memory.create', { content: 'Feature flags for the billing module live in LaunchDarkly today.' });
  const c = await client.request('memory.create', { content: 'The response cache of the search service is enabled in production.' });
  const src = await client.request('memory.create', {
    content: 'Migration notes: billing flags moved away; the search cache was turned off.',
  });
  assert.ok(b.status === 'created' && c.status === 'created' && src.status === 'created');
  st = await client.request('pipeline.status', {});
  assert.equal(st.jobs.pending, 3, 'paused: nothing leased');
  assert.equal(fake.count('generate'), 0);

  fake.enqueue(
    'generate',
    { reply: extraction([]) },
    { reply: extraction([]) },
    {
      reply: extraction([
        { content: 'Feature flags for the billing module no longer live in LaunchDarkly today.', type: 'fact', confidence: 0.9 },
        { content: 'The response cache of the search service is disabled in production.', type: 'fact', confidence: 0.9 },
      ]),
    },
    { reply: decision({ action: 'DELETE', targetId: b.memory.id, confidence: 0.9, reason: 'Flags moved elsewhere.' }) },
    { reply: decision({ action: 'UPDATE', targetId: c.memory.id, confidence: 0.9, reason: 'Cache turned off.' }) },
  );
  const resumed = await client.request('pipeline.resume', {});
  assert.equal(resumed.paused, false);
  st = await until('three extraction jobs completed', () => client.request('pipeline.status', {}), {
    check: (s) => (s.jobs.completed ?? 0) === 3,
  });
  assert.equal(st.pendingReviews, 2);

  const reviews = await client.request('reviews.list', {});
  assert.equal(reviews.length, 2);
  const del = reviews.find((r) => r.action === 'DELETE')!;
  const upd = reviews.find((r) => r.action === 'UPDATE')!;
  assert.equal(del.targetId, b.memory.id);
  assert.equal(del.targetContent, 'Feature flags for the billing module live in LaunchDarkly today.');
  assert.equal(upd.targetId, c.memory.id);
  assert.match(upd.conflict ?? '', /antonyms/);

  const approved = await client.request('reviews.approve', { id: del.id });
  assert.equal(approved.status, 'deleted');
  assert.equal(await client.request('memory.get', { id: b.memory.id }), null, 'soft-deleted');
  assert.deepEqual(await client.request('reviews.reject', { id: upd.id }), { id: upd.id });
  assert.equal(
    (await client.request('memory.get', { id: c.memory.id }))!.content,
    'The response cache of the search service is enabled in production.',
  );
  assert.deepEqual(await client.request('reviews.list', {}), []);
  await assert.rejects(client.request('reviews.approve', { id: del.id }), /already approved/);
  await assert.rejects(client.request('reviews.reject', { id: 'nope' }), /No pipeline review with id nope/);

  const changes = await client.request('history.pipelineChanges', {});
  const change = changes.find((ch) => ch.memoryId === b.memory.id)!;
  assert.ok(change, JSON.stringify(changes));
  assert.equal(change.event, 'deleted');
  assert.equal(change.historyId, approved.historyId);
  assert.match(change.changedBy, /approved pipeline review/);

  const undone = await client.request('history.undo', { historyId: change.historyId });
  assert.equal(undone.undone, 'deleted');
  assert.equal(
    (await client.request('memory.get', { id: b.memory.id }))!.content,
    'Feature flags for the billing module live in LaunchDarkly today.',
  );
  await assert.rejects(client.request('history.undo', { historyId: 'missing' }), /No history entry with id missing/);
  await assert.rejects(
    client.request('history.undo', {} as never),
    (e: Error & { code?: string }) => e.code === 'invalid_input' && /historyId/.test(e.message),
  );

  // Paused again: a new memory's job stays pending.
  assert.equal((await client.request('pipeline.pause', {})).paused, true);
  await client.request('memory.create', { content: 'Deployments to staging happen from the main branch after review.' });
  st = await client.request('pipeline.status', {});
  assert.equal(st.jobs.pending, 1);
  assert.equal(st.state, 'idle');
  assert.match(st.detail, /Paused/);
  // A config reload does not undo the pause.
  await client.request('config.reload', {});
  assert.equal((await client.request('pipeline.status', {})).paused, true);
});

test('setMode writes the pipeline mode flags; bad modes are refused; diagnostics report health and the LLM', async () => {
  const fake = await FakeOllama.start({ models: [MODEL] });
  fakes.push(fake);
  const { client } = await start({ settings: { 'memory.pipelineV2.ollamaUrl': fake.url } });
  assert.equal((await client.request('pipeline.status', {})).mode, 'off');
  const r = await client.request('pipeline.setMode', { mode: 'full' });
  assert.deepEqual(r.settings, {
    'memory.pipelineV2.enabled': true,
    'memory.pipelineV2.shadowMode': false,
    'memory.pipelineV2.allowUpdateDelete': true,
    'memory.pipelineV2.mutationsFrozen': false,
  });
  assert.equal(r.status.mode, 'full');
  assert.equal((await client.request('pipeline.setMode', { mode: 'shadow' })).status.mode, 'shadow');
  assert.equal((await client.request('pipeline.setMode', { mode: 'controlled' })).status.mode, 'controlled');
  await assert.rejects(
    client.request('pipeline.setMode', { mode: 'turbo' as never }),
    (e: Error & { code?: string }) => e.code === 'invalid_input' && /off, shadow, controlled, full/.test(e.message),
  );

  await client.request('memory.create', { content: 'The database migrations run with knex before each deploy.' });
  const d = await client.request('pipeline.diagnostics', {});
  assert.equal(d.status.mode, 'controlled');
  assert.ok(d.health.score >= 0 && d.health.score <= 1);
  assert.equal(d.health.index.activeMemories, 1);
  assert.equal(d.health.index.consistent, true);
  assert.deepEqual(
    { reachable: d.llm.reachable, modelPresent: d.llm.modelPresent, model: d.llm.model, url: d.llm.url },
    { reachable: true, modelPresent: true, model: MODEL, url: fake.url },
  );
  assert.equal(d.embedder?.provider, 'hash');

  const down = await start({ settings: { 'memory.pipelineV2.ollamaUrl': await closedPortUrl() } });
  const d2 = await down.client.request('pipeline.diagnostics', {});
  assert.equal(d2.llm.reachable, false);
  assert.equal(d2.llm.modelPresent, false);
  assert.ok(d2.llm.error, 'says why');
});

test('documents.ingest: a workspace text file becomes document_chunk memories, with progress; bad paths are refused', async () => {
  const { client, dirs } = await start({
    settings: { 'memory.pipelineV2.documentChunkSize': 200, 'memory.pipelineV2.documentChunkOverlap': 20 },
  });
  const file = path.join(dirs.workspaceRoot!, 'ARCHITECTURE.md');
  const para = (i: number) =>
    `Section ${i}: the ingest service ${i} validates uploads, writes them to object storage and records checksum ${i * 7919} in the ledger.`;
  fs.writeFileSync(file, Array.from({ length: 6 }, (_, i) => para(i)).join('\n\n'));
  const progress: string[] = [];
  const r = await client.request(
    'documents.ingest',
    { path: file },
    { onProgress: (done, total, msg) => progress.push(`${done}/${total} ${msg ?? ''}`) },
  );
  assert.equal(r.status, 'done', JSON.stringify(r));
  assert.ok(r.chunkCount >= 2, `chunked: ${r.chunkCount}`);
  assert.equal(r.memoryIds.length, r.chunkCount);
  const chunk = (await client.request('memory.get', { id: r.memoryIds[0]! }))!;
  assert.equal(chunk.type, 'document_chunk');
  assert.match(chunk.content, /Section 0/);
  assert.ok(progress.length >= 1 && progress.at(-1)!.startsWith('100/100 Done'), progress.join(' | '));
  const hits = await client.request('search', { query: 'checksum ledger object storage' });
  assert.ok(
    hits.hits.some((h) => r.memoryIds.includes(h.memory.id)),
    'the chunks are searchable',
  );

  await assert.rejects(
    client.request('documents.ingest', { path: path.join(dirs.workspaceRoot!, 'missing.md') }),
    (e: Error & { code?: string }) => e.code === 'not_found',
  );
  await assert.rejects(
    client.request('documents.ingest', { path: 'relative.md' }),
    (e: Error & { code?: string }) => e.code === 'invalid_input' && /absolute/.test(e.message),
  );
  fs.writeFileSync(path.join(dirs.workspaceRoot!, 'empty.txt'), '  \n');
  await assert.rejects(client.request('documents.ingest', { path: path.join(dirs.workspaceRoot!, 'empty.txt') }), /is empty/);
  fs.writeFileSync(path.join(dirs.workspaceRoot!, 'blob.bin'), Buffer.from([1, 0, 2, 3]));
  await assert.rejects(client.request('documents.ingest', { path: path.join(dirs.workspaceRoot!, 'blob.bin') }), /binary/);
});

test('suggestions list and clear over the core records, through the worker', async () => {
  const { client } = await start({ settings: { 'memory.similarity_threshold': 0.99, 'memory.auto_merge_threshold': 1 } });
  const a = await client.request('memory.create', { content: 'The billing service sends invoices by email every Monday morning.' });
  const b = await client.request('memory.create', {
    content: 'Every Monday morning the billing service emails the invoices to customers.',
    allowNearDuplicate: true,
  });
  assert.ok(a.status === 'created' && b.status === 'created');
  assert.deepEqual(await client.request('suggestions.list', {}), []);
  await client.request('config.reload', {
    settings: { 'embedding.provider': 'hash', 'memory.similarity_threshold': 0.5, 'memory.auto_merge_threshold': 1 },
  });
  assert.ok((await client.request('suggestions.scan', {})).created >= 1);
  const list = await client.request('suggestions.list', {});
  const s = list.find((x) => [x.a.id, x.b.id].sort().join() === [a.memory.id, b.memory.id].sort().join())!;
  assert.ok(s, JSON.stringify(list));
  assert.equal(s.status, 'pending');
  assert.ok(s.similarity >= 0.5 && s.similarity < 1);
  const n = list.length;
  assert.deepEqual(await client.request('suggestions.clear', {}), { cleared: n });
  assert.deepEqual(await client.request('suggestions.list', {}), []);
  assert.equal((await client.request('suggestions.list', { status: 'rejected' })).length, n);
  await assert.rejects(client.request('suggestions.reject', { id: s.id }), /already rejected/);
});

test('restricted (untrusted workspace): read-only store, no pipeline, every write refused', async () => {
  const dirs = engineDirs();
  const first = await start({}, dirs);
  const m = await first.client.request('memory.create', { content: 'The API gateway rate-limits clients to 100 requests per second.' });
  assert.equal(m.status, 'created');
  await first.client.shutdown(5000);

  const { client } = await start({ restricted: true, settings: { 'memory.pipelineV2.enabled': true } }, dirs);
  const stats = await client.request('stats', {});
  assert.equal(stats.project.readOnly, true);
  assert.equal(stats.project.memories, 1);
  assert.equal(
    (await client.request('memory.get', { id: m.memory.id }))!.content,
    'The API gateway rate-limits clients to 100 requests per second.',
  );
  const st = await client.request('pipeline.status', {});
  assert.equal(st.restricted, true);
  assert.equal(st.state, 'off');
  assert.match(st.detail, /not trusted/);
  const refused = (e: Error & { code?: string }) => e.code === 'store_read_only' && /not trusted/.test(e.message);
  await assert.rejects(client.request('memory.create', { content: 'Something new that must not be written here at all.' }), refused);
  await assert.rejects(client.request('memory.delete', { id: m.memory.id }), refused);
  await assert.rejects(client.request('pipeline.pause', {}), refused);
  await assert.rejects(client.request('pipeline.setMode', { mode: 'full' }), refused);
  // A brand-new store in an untrusted workspace: created, but still refuses writes.
  const fresh = await start({ restricted: true });
  assert.equal((await fresh.client.request('stats', {})).project.memories, 0);
  await assert.rejects(fresh.client.request('memory.create', { content: 'Also refused in a new untrusted workspace store.' }), refused);
});

test('a config reload that changes the Ollama URL reaches the running pipeline (no restart needed)', async () => {
  const fake = await FakeOllama.start({ models: [MODEL] });
  fakes.push(fake);
  const { client } = await start({ settings: { 'memory.pipelineV2.ollamaUrl': await closedPortUrl() } });
  await client.request('config.reload', {
    settings: {
      'embedding.provider': 'hash',
      'memory.pipelineV2.enabled': true,
      'memory.pipelineV2.ollamaUrl': fake.url,
      'memory.pipelineV2.workerPollMs': 100,
    },
  });
  fake.enqueue('generate', { reply: extraction([]) });
  await client.request('memory.create', { content: 'The release train leaves every second Thursday at noon.' });
  const st = await until('the job completed against the new URL', () => client.request('pipeline.status', {}), {
    check: (s) => (s.jobs.completed ?? 0) === 1,
  });
  assert.equal(st.jobs.pending ?? 0, 0);
  assert.equal(fake.count('generate'), 1);
});

test('document ingest progress: stage sentences, then "Embedding chunk n of N" as the chunks are written', async () => {
  const store = await Store.open({ dir: path.join(engineDirs().storageDir, 'progress') });
  try {
    assert.deepEqual(documentProgress(store, 'd1', 'extracting', 0), { pct: 3, message: 'Reading the file' });
    const now = new Date().toISOString();
    store.transaction((tx) => {
      tx.run(
        `INSERT INTO documents (id, project_id, source_type, status, chunk_count, created_at, updated_at) VALUES ('d1', 'p', 'file', 'embedding', 4, ?, ?)`,
        [now, now],
      );
      tx.run(`INSERT INTO document_memories (document_id, chunk_index, memory_id, created_at) VALUES ('d1', 0, 'm1', ?)`, [now]);
    });
    assert.deepEqual(documentProgress(store, 'd1', 'embedding', 4), { pct: 31, message: 'Embedding chunk 2 of 4' });
    assert.deepEqual(documentProgress(store, 'd1', 'done', 4), { pct: 100, message: 'Done' });
  } finally {
    await store.close();
  }
});
