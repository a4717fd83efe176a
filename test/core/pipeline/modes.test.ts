/**
 * The same scripted run through the MemoryPipeline host object (real setTimeout loop, config
 * read live) in each mode: off, shadow, mutationsFrozen, controlled, full. Prints the figures.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { FakeOllama } from '../../helpers/fakeOllama';
import { tmpDir } from '../../helpers/tmp';
import { openPipelineStore } from '../../fixtures/pipelineStore';
import { MemoryService } from '../../../src/core/memory/memoryService';
import { OllamaProvider } from '../../../src/core/llm/ollamaProvider';
import { HashEmbedder } from '../../../src/core/embed/hashEmbedder';
import { MemoryPipeline } from '../../../src/core/pipeline/pipeline';
import { defaultConfig } from '../../../src/core/config/tree';
import { jobCounts, listJobs } from '../../../src/core/jobs/queue';
import type { PipelineV2Config } from '../../../src/core/config/types';
import type { Store } from '../../../src/core/store/store';
import { driveTasks } from '../../helpers/driveTasks';
import { eventsSince } from '../../../src/core/changes/events';
import { until } from '../../helpers/until';

const fakes: FakeOllama[] = [];
after(async () => {
  for (const f of fakes) await f.close();
});

const X = 'The web client bundles its assets with webpack version four.';
const Y = 'Feature flags for the billing module are stored in LaunchDarkly.';
const SOURCE = 'Migration notes: the web client moved to Vite, billing flags moved to Unleash, release tags are now signed.';
const FACTS = [
  { content: 'The web client bundles its assets with Vite instead of webpack version four.', type: 'decision', confidence: 0.9 }, // UPDATE X
  { content: 'Feature flags for the billing module moved from LaunchDarkly to Unleash.', type: 'fact', confidence: 0.9 }, // DELETE Y
  { content: 'Release tags are signed with the team GPG key.', type: 'procedural', confidence: 0.9 }, // ADD, no candidates
  { content: 'Maybe the cache should be warmer someday.', type: 'fact', confidence: 0.3 }, // ADD below the confidence gate
  { content: 'The web client bundles assets with webpack version four.', type: 'fact', confidence: 0.9 }, // NONE
];

async function scriptedRun(flags: Partial<PipelineV2Config>) {
  const fake = await FakeOllama.start({ models: ['qwen3:4b'] });
  fakes.push(fake);
  const store = await openPipelineStore(tmpDir('am-modes-'));
  const cfg: PipelineV2Config = { ...defaultConfig().memory.pipelineV2, graphEnabled: true, workerPollMs: 20, ...flags };
  const user = new MemoryService(store, { projectId: 'p', enqueueExtraction: true });
  const pipeline = new MemoryPipeline({
    store,
    memory: user,
    projectId: 'p',
    llm: new OllamaProvider({ host: fake.url, timeoutMs: 5000 }),
    embedder: new HashEmbedder({ dimension: 64 }),
    config: () => cfg,
  });
  pipeline.start();
  const driven = driveTasks(pipeline.tasks());
  fake.enqueue('generate', { reply: '{"facts":[],"entities":[]}' }, { reply: '{"facts":[],"entities":[]}' });
  const x = user.create({ content: X });
  const y = user.create({ content: Y });
  assert.ok(x.status === 'created' && y.status === 'created');
  if (pipeline.mode !== 'off')
    await until('the first two jobs', () => jobCounts(store).completed === 2, { timeoutMs: 15_000, intervalMs: 10 });
  fake.enqueue(
    'generate',
    {
      reply: JSON.stringify({
        facts: FACTS,
        entities: [{ source: 'web client', relationship: 'bundled by', target: 'Vite', confidence: 0.9 }],
      }),
    },
    { reply: JSON.stringify({ action: 'UPDATE', targetId: x.memory.id, confidence: 0.9, reason: 'The bundler is now Vite.' }) },
    { reply: JSON.stringify({ action: 'DELETE', targetId: y.memory.id, confidence: 0.9, reason: 'Flags are no longer in LaunchDarkly.' }) },
    { reply: JSON.stringify({ action: 'NONE', confidence: 0.9, reason: 'Already stored.' }) },
  );
  const src = user.create({ content: SOURCE });
  assert.equal(src.status, 'created');
  if (pipeline.mode !== 'off') await until('the source job', () => jobCounts(store).completed === 3, { timeoutMs: 15_000, intervalMs: 10 });
  await pipeline.stop();
  await driven.stop();
  assert.equal(jobCounts(store).leased, 0, 'a clean stop leaves nothing leased');
  const job = listJobs(store).find((j) => j.memoryId === src.memory.id)!;
  const figures = {
    mode: pipeline.mode,
    jobStatus: job.status,
    llmCalls: fake.count('generate'),
    outcomes: (job.result as { outcomes?: Record<string, number> } | null)?.outcomes ?? {},
    liveMemories: count(store, 'SELECT count(*) AS n FROM memories WHERE deleted_at IS NULL'),
    entities: count(store, 'SELECT count(*) AS n FROM entities'),
    auditRows: count(store, `SELECT count(*) AS n FROM memory_history WHERE event = 'pipeline_proposal'`),
    xContent: user.get(x.memory.id)!.content,
    yDeleted: !!user.get(y.memory.id, { includeDeleted: true })!.deletedAt,
    // The change feed (docs/changes.md): what the pipeline wrote is there, by pipeline-v2.
    changes: eventsSince(store, 0, 100)
      .events.filter((e) => e.actor === 'pipeline-v2')
      .map((e) => e.type),
  };
  await store.close();
  return figures;
}

function count(store: Store, sql: string): number {
  return Number(store.get<{ n: number }>(sql)!.n);
}

const table: Record<string, unknown>[] = [];
after(() => console.log('pipeline modes, one scripted run each:\n' + table.map((r) => JSON.stringify(r)).join('\n')));

test('off: nothing is processed; the job waits', async () => {
  const f = await scriptedRun({ enabled: false });
  table.push({ flags: 'enabled=false', ...f, xContent: undefined });
  assert.equal(f.mode, 'off');
  assert.equal(f.jobStatus, 'pending');
  assert.equal(f.llmCalls, 0);
  assert.equal(f.liveMemories, 3);
});

test('shadow: 5 proposals audited, no writes, no graph', async () => {
  const f = await scriptedRun({ enabled: true, shadowMode: true });
  table.push({ flags: 'shadowMode', ...f, xContent: undefined });
  assert.equal(f.mode, 'shadow');
  assert.deepEqual(f.outcomes, { shadow: 5 });
  assert.equal(f.auditRows, 5);
  assert.deepEqual(f.changes, [], 'proposals are no changes: nothing in the feed');
  assert.equal(f.liveMemories, 3);
  assert.equal(f.entities, 0);
  assert.equal(f.xContent, X);
  assert.equal(f.yDeleted, false);
});

test('mutationsFrozen wins over allowUpdateDelete: shadow', async () => {
  const f = await scriptedRun({ enabled: true, allowUpdateDelete: true, mutationsFrozen: true });
  table.push({ flags: 'mutationsFrozen+allowUpdateDelete', ...f, xContent: undefined });
  assert.equal(f.mode, 'shadow');
  assert.deepEqual(f.outcomes, { shadow: 5 });
  assert.equal(f.liveMemories, 3);
});

test('controlled: ADD applied through the gates, NONE recorded, UPDATE/DELETE blocked', async () => {
  const f = await scriptedRun({ enabled: true });
  table.push({ flags: 'enabled', ...f, xContent: undefined });
  assert.equal(f.mode, 'controlled');
  assert.deepEqual(f.outcomes, { blocked: 2, created: 1, skipped: 1, recorded: 1 });
  assert.equal(
    f.llmCalls,
    2 + 1 + 3,
    'two empty extractions, one extraction, three decisions (the two facts without candidates need none)',
  );
  assert.equal(f.liveMemories, 4);
  assert.equal(f.entities, 2);
  assert.equal(f.xContent, X);
  assert.equal(f.yDeleted, false);
});

test('full: UPDATE and DELETE applied as well', async () => {
  const f = await scriptedRun({ enabled: true, allowUpdateDelete: true });
  table.push({ flags: 'enabled+allowUpdateDelete', ...f, xContent: undefined });
  assert.equal(f.mode, 'full');
  assert.deepEqual(f.outcomes, { updated: 1, deleted: 1, created: 1, skipped: 1, recorded: 1 });
  assert.deepEqual([...f.changes].sort(), ['memory.created', 'memory.deleted', 'memory.updated']);
  assert.equal(f.liveMemories, 3);
  assert.equal(f.xContent, FACTS[0]!.content);
  assert.equal(f.yDeleted, true);
});

test('reconfigure at run time: turning the pipeline on processes the waiting jobs; documents go through the document worker', async () => {
  const fake = await FakeOllama.start({ models: ['qwen3:4b'] });
  fakes.push(fake);
  const store = await openPipelineStore(tmpDir('am-reconf-'));
  const cfg: PipelineV2Config = { ...defaultConfig().memory.pipelineV2, workerPollMs: 20, documentWorkerIntervalMs: 1000 };
  const user = new MemoryService(store, { projectId: 'p', enqueueExtraction: true });
  const pipeline = new MemoryPipeline({
    store,
    memory: user,
    projectId: 'p',
    llm: new OllamaProvider({ host: fake.url, timeoutMs: 5000 }),
    config: () => cfg,
  });
  pipeline.start();
  const driven = driveTasks(pipeline.tasks());
  user.create({ content: 'The search index is rebuilt every night at two.' });
  assert.equal(pipeline.status().running, false);
  assert.equal(pipeline.status().jobs.pending, 1);
  fake.enqueue('generate', {
    reply: JSON.stringify({
      facts: [{ content: 'The search index is rebuilt nightly at 02:00.', type: 'fact', confidence: 0.9 }],
      entities: [],
    }),
  });
  cfg.enabled = true;
  await pipeline.reconfigure();
  await until('the waiting job', () => jobCounts(store).completed === 1, { timeoutMs: 15_000, intervalMs: 10 });
  const doc = pipeline.ingestDocument({
    sourceType: 'text',
    title: 'Ops',
    content: 'Backups run hourly and are kept for thirty days in the cold bucket.',
  });
  await until('the document job', () => jobCounts(store).completed === 2, { timeoutMs: 15_000, intervalMs: 10 });
  assert.equal(store.get<{ status: string }>('SELECT status FROM documents WHERE id = ?', [doc.id])!.status, 'done');
  const s = pipeline.status();
  assert.equal(s.mode, 'controlled');
  assert.equal(s.jobsProcessed, 2);
  cfg.enabled = false;
  await pipeline.reconfigure();
  assert.equal(pipeline.status().running, false);
  await pipeline.stop();
  await driven.stop();
  await store.close();
});
