/**
 * Pipeline v2 end to end through the fake Ollama HTTP server (real `ollama` client, real
 * store): each mode on a scripted run, malformed model output, provider failures, and that
 * nothing is lost — pending work completes once the server is back.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { FakeOllama } from '../../helpers/fakeOllama';
import { tmpDir } from '../../helpers/tmp';
import { openPipelineStore } from '../../fixtures/pipelineStore';
import { MemoryService } from '../../../src/core/memory/memoryService';
import { OllamaProvider } from '../../../src/core/llm/ollamaProvider';
import { HashEmbedder } from '../../../src/core/embed/hashEmbedder';
import { JobWorker } from '../../../src/core/jobs/worker';
import { listJobs, jobCounts } from '../../../src/core/jobs/queue';
import { createExtractHandler, type ExtractSettings } from '../../../src/core/pipeline/extractJob';
import { createFtsCandidateFinder } from '../../../src/core/pipeline/ftsCandidates';
import { listPendingReviews, approveReview, rejectReview } from '../../../src/core/pipeline/reviews';
import { undoHistory } from '../../../src/core/pipeline/undo';
import { listEntities } from '../../../src/core/graph/read';
import { MemoryPipeline } from '../../../src/core/pipeline/pipeline';
import { defaultConfig } from '../../../src/core/config';
import type { PipelineV2Config } from '../../../src/core/config/types';
import { driveTasks } from '../../helpers/driveTasks';
import { settlesAtDeadline } from '../../helpers/deadline';
import { until } from '../../helpers/until';

const PROJECT = 'github.com/acme/app';
const MODEL = 'qwen3:4b';
const fakes: FakeOllama[] = [];
after(async () => {
  for (const f of fakes) await f.close();
});

const extraction = (facts: unknown[], entities: unknown[] = []) => JSON.stringify({ facts, entities });
const decision = (d: Record<string, unknown>) => JSON.stringify(d);

async function setup(settings: Partial<ExtractSettings> = {}, opts: { timeoutMs?: number } = {}) {
  const fake = await FakeOllama.start({ models: [`${MODEL}`, 'nomic-embed-text:latest'] });
  fakes.push(fake);
  const store = await openPipelineStore(tmpDir('am-pipe-'));
  let t = Date.parse('2026-03-01T12:00:00.000Z');
  const now = () => new Date((t += 1000));
  const user = new MemoryService(store, { projectId: PROJECT, enqueueExtraction: true, now });
  const memory = user; // one memory API per store: the pipeline's writes opt out of extraction per call
  const llm = new OllamaProvider({ host: fake.url, model: MODEL, timeoutMs: opts.timeoutMs ?? 5000 });
  const embedder = new HashEmbedder({ dimension: 64 });
  const s: ExtractSettings = {
    mode: 'controlled',
    graphEnabled: false,
    minFactConfidenceForWrite: 0.7,
    extractionTimeoutMs: opts.timeoutMs ?? 5000,
    ...settings,
  };
  const handler = createExtractHandler({
    store,
    memory,
    llm,
    embedder,
    findCandidates: createFtsCandidateFinder(store, { projectId: PROJECT }),
    settings: () => s,
    now,
  });
  const events: string[] = [];
  const worker = new JobWorker(store, { handlers: { extract: handler }, maxRetries: 3, now, onEvent: (e) => events.push(e.type) });
  return { fake, store, user, memory, llm, worker, settings: s, events };
}

function proposals(store: import('../../../src/core/store/store').Store) {
  return store
    .all<{ metadata_json: string; new_content: string }>(
      `SELECT metadata_json, new_content FROM memory_history WHERE event = 'pipeline_proposal' ORDER BY rowid`,
    )
    .map((r) => ({ ...(JSON.parse(r.metadata_json) as Record<string, any>), fact: r.new_content }) as Record<string, any>);
}

test('controlled mode: facts become memories with pipeline stamps; every proposal audited; no re-learning loop', async () => {
  const { fake, store, user, memory, worker } = await setup({ graphEnabled: true });
  const src = user.create({
    content: 'We switched the API server from Express to Fastify because Express was slow. Tests run with pnpm test.',
  });
  assert.equal(src.status, 'created');
  fake.enqueue('generate', {
    reply:
      '<think>let me see</think>```json\n' +
      extraction(
        [
          { content: 'The API server uses Fastify.', type: 'decision', confidence: 0.9 },
          { content: 'Tests are run with pnpm test.', type: 'procedural', confidence: 0.85 },
          { content: 'Maybe something about caching layers.', type: 'guess', confidence: 0.4 },
          { content: 'short', type: 'fact', confidence: 0.9 },
        ],
        [{ source: 'API server', relationship: 'uses', target: 'Fastify', confidence: 0.9 }],
      ) +
      '\n```',
  });
  const r = await worker.drain();
  assert.deepEqual(r, { ok: 1, failed: 0 });
  const job = listJobs(store, { type: 'extract' })[0]!;
  assert.equal(job.status, 'completed');
  const res = job.result as any;
  assert.equal(res.facts, 3, 'the <10-char fact is rejected');
  assert.ok(
    res.warnings.some((w: string) => /unknown type "guess"/.test(w)),
    'unknown type coerced with a warning',
  );
  assert.ok(res.warnings.some((w: string) => /shorter than 10/.test(w)));
  // No candidates other than the source itself → ADD without a decision LLM call.
  assert.equal(fake.count('generate'), 1, 'only the extraction call: no candidates means no decision call');
  assert.deepEqual(res.outcomes, { created: 2, skipped: 1 });
  const created = res.createdIds.map((id: string) => memory.get(id)!);
  assert.equal(created.length, 2);
  for (const m of created) {
    assert.equal(m.who, 'pipeline-v2');
    assert.equal(m.why, 'extracted-fact');
    assert.equal(m.extractionModel, MODEL);
    assert.equal(m.embeddingStatus, 'ready', 'the vector computed before the transaction was stored with it');
  }
  assert.equal(created.find((m: any) => /Fastify/.test(m.content)).type, 'decision');
  const audit = proposals(store);
  assert.equal(audit.length, 3, 'one audit row per proposal, whatever the outcome');
  assert.deepEqual(audit.map((a) => a.outcome).sort(), ['created', 'created', 'skipped']);
  assert.equal(audit.find((a) => a.outcome === 'skipped')!.outcomeReason, 'low_fact_confidence');
  for (const a of audit) {
    assert.equal(a.sourceMemoryId, src.status === 'created' ? src.memory.id : '');
    assert.equal(a.extractionModel, MODEL);
    assert.equal(a.factCount, 3);
    assert.equal(a.entityCount, 1);
  }
  // Undo of a created fact from its history row: the fact is soft-deleted.
  const createdOutcome = audit.find((a) => a.outcome === 'created')!;
  const undone = undoHistory(store, memory, createdOutcome.appliedHistoryId);
  assert.equal(undone.undone, 'created');
  assert.ok(memory.get(createdOutcome.resultMemoryId, { includeDeleted: true })!.deletedAt);
  // Derived facts enqueue no extraction of their own.
  assert.equal(listJobs(store, { type: 'extract' }).length, 1);
  assert.equal(jobCounts(store).pending, 0);
  // Graph written for the source memory.
  assert.deepEqual(
    listEntities(store)
      .map((e) => e.canonicalName)
      .sort(),
    ['api server', 'fastify'],
  );
  await store.close();
});

test('decisions: candidates → LLM; hallucinated target ids and empty reasons are dropped with warnings; NONE recorded; UPDATE/DELETE blocked in controlled mode', async () => {
  const { fake, store, user, worker } = await setup();
  const existing = user.create({ content: 'The deployment pipeline uses GitHub Actions runners for every build.' });
  assert.equal(existing.status, 'created');
  // The existing memory's own extraction job: nothing to learn.
  fake.enqueue('generate', { reply: extraction([]) });
  await worker.drain();
  const src = user.create({
    content: 'Deployment note: builds now use self-hosted GitHub Actions runners; the deployment pipeline is unchanged otherwise.',
  });
  assert.equal(src.status, 'created');
  const id = existing.status === 'created' ? existing.memory.id : '';
  fake.enqueue(
    'generate',
    {
      reply: extraction([
        { content: 'The deployment pipeline uses self-hosted GitHub Actions runners.', type: 'fact', confidence: 0.9 },
        { content: 'Every build of the deployment pipeline uses GitHub Actions.', type: 'fact', confidence: 0.9 },
        { content: 'GitHub Actions runners build the deployment pipeline.', type: 'fact', confidence: 0.9 },
        { content: 'The deployment pipeline uses GitHub Actions runners for every build.', type: 'fact', confidence: 0.9 },
      ]),
    },
    { reply: decision({ action: 'UPDATE', targetId: id, confidence: 0.9, reason: 'Runners are now self-hosted.' }) },
    { reply: decision({ action: 'DELETE', targetId: 'mem-that-does-not-exist', confidence: 0.9, reason: 'obsolete' }) },
    { reply: decision({ action: 'NONE', confidence: 0.9, reason: '   ' }) },
    { reply: '```\n' + decision({ action: 'NONE', confidence: 0.95, reason: 'Already stored.' }) + '\n```' },
  );
  await worker.drain();
  const job = listJobs(store, { type: 'extract' }).find((j) => j.memoryId === (src.status === 'created' ? src.memory.id : ''))!;
  const res = job.result as any;
  assert.equal(job.status, 'completed');
  assert.equal(res.llmCalls, 5);
  assert.ok(res.warnings.some((w: string) => /hallucinated/.test(w)));
  assert.ok(res.warnings.some((w: string) => /empty reason/.test(w)));
  assert.deepEqual(res.outcomes, { blocked: 1, recorded: 1 });
  const audit = proposals(store).filter((a) => a.sourceMemoryId === job.memoryId);
  const blocked = audit.find((a) => a.outcome === 'blocked')!;
  assert.equal(blocked.outcomeReason, 'destructive_mutations_not_allowed');
  assert.equal(blocked.targetId, id);
  // The decision prompt listed the real candidate with its id.
  const prompt = fake.requestsTo('generate')[2]!.body.prompt as string;
  assert.match(prompt, new RegExp(`id=${id}`));
  assert.equal(
    store.get<{ content: string }>('SELECT content FROM memories WHERE id = ?', [id])!.content,
    'The deployment pipeline uses GitHub Actions runners for every build.',
  );
  await store.close();
});

test('shadow mode: proposals audited, nothing written to memories or the graph', async () => {
  const { fake, store, user, worker } = await setup({ mode: 'shadow', graphEnabled: true });
  user.create({ content: 'Our staging database runs PostgreSQL 16 on a managed instance.' });
  const before = store.get<{ n: number }>('SELECT count(*) AS n FROM memories')!.n;
  fake.enqueue('generate', {
    reply: extraction(
      [{ content: 'The staging database runs PostgreSQL 16.', type: 'fact', confidence: 0.95 }],
      [{ source: 'staging database', relationship: 'runs', target: 'PostgreSQL 16', confidence: 0.9 }],
    ),
  });
  await worker.drain();
  assert.equal(store.get<{ n: number }>('SELECT count(*) AS n FROM memories')!.n, before);
  assert.equal(store.get<{ n: number }>('SELECT count(*) AS n FROM entities')!.n, 0);
  const audit = proposals(store);
  assert.equal(audit.length, 1);
  assert.equal(audit[0]!.outcome, 'shadow');
  assert.equal(audit[0]!.action, 'ADD');
  assert.equal(audit[0]!.mode, 'shadow');
  await store.close();
});

test('full mode: UPDATE supersedes (old version in history, undo restores it), DELETE tombstones, contradictions wait for review', async () => {
  const { fake, store, user, memory, worker } = await setup({ mode: 'full', graphEnabled: true });
  const a = user.create({ content: 'The web client bundles its assets with webpack version four.' });
  const b = user.create({ content: 'Feature flags for the billing module live in LaunchDarkly today.' });
  const c = user.create({ content: 'The response cache of the search service is enabled in production.' });
  assert.ok(a.status === 'created' && b.status === 'created' && c.status === 'created');
  fake.enqueue('generate', { reply: extraction([]) }, { reply: extraction([]) }, { reply: extraction([]) });
  await worker.drain();
  const src = user.create({ content: 'Frontend migration notes: webpack replaced by Vite; billing flags moved; search cache turned off.' });
  assert.equal(src.status, 'created');
  fake.enqueue(
    'generate',
    {
      reply: extraction([
        { content: 'The web client bundles its assets with Vite instead of webpack version four.', type: 'decision', confidence: 0.9 },
        { content: 'Feature flags for the billing module no longer live in LaunchDarkly today.', type: 'fact', confidence: 0.9 },
        { content: 'The response cache of the search service is disabled in production.', type: 'fact', confidence: 0.9 },
      ]),
    },
    { reply: decision({ action: 'UPDATE', targetId: a.memory.id, confidence: 0.9, reason: 'Bundler changed to Vite.' }) },
    { reply: decision({ action: 'DELETE', targetId: b.memory.id, confidence: 0.9, reason: 'Flags moved elsewhere.' }) },
    { reply: decision({ action: 'UPDATE', targetId: c.memory.id, confidence: 0.9, reason: 'Cache turned off.' }) },
  );
  await worker.drain();
  const job = listJobs(store, { type: 'extract' }).find((j) => j.memoryId === src.memory.id)!;
  const res = job.result as any;
  // b: "no longer" vs no negation → contradiction → review; c: enabled/disabled → review.
  // a: no negation or antonym → applied.
  assert.deepEqual(res.outcomes, { updated: 1, review: 2 }, JSON.stringify(res));
  const updated = memory.get(a.memory.id)!;
  assert.equal(updated.content, 'The web client bundles its assets with Vite instead of webpack version four.');
  assert.equal(updated.version, 2);
  assert.equal(updated.embeddingStatus, 'ready', 're-embedded with the new text');
  const hist = memory.history(a.memory.id);
  const upd = hist.find((h) => h.event === 'updated')!;
  assert.equal(upd.oldContent, 'The web client bundles its assets with webpack version four.');
  // FTS follows the new text.
  const fts = store.all<{ id: string }>(
    `SELECT m.id FROM memories_fts JOIN memories m ON m.rid = memories_fts.docid WHERE memories_fts MATCH 'vite'`,
  );
  assert.ok(
    fts.some((r) => r.id === a.memory.id),
    'the updated memory is found by its new word',
  );

  // Review queue: two pending, untouched targets.
  const reviews = listPendingReviews(store);
  assert.equal(reviews.length, 2);
  assert.equal(memory.get(b.memory.id)!.deletedAt, null);
  const del = reviews.find((r) => r.action === 'DELETE')!;
  const cache = reviews.find((r) => r.targetId === c.memory.id)!;
  assert.match(cache.conflict ?? '', /antonyms/);
  const approved = approveReview(store, memory, del.id, { who: 'alice' });
  assert.equal(approved.status, 'deleted');
  assert.ok(memory.get(b.memory.id, { includeDeleted: true })!.deletedAt, 'soft-deleted, tombstone kept');
  rejectReview(store, cache.id, { who: 'alice' });
  assert.equal(memory.get(c.memory.id)!.content, 'The response cache of the search service is enabled in production.');
  assert.equal(listPendingReviews(store).length, 0);

  // Undo both applied mutations from their history rows.
  undoHistory(store, memory, approved.historyId!, { who: 'alice' });
  assert.equal(memory.get(b.memory.id)!.deletedAt, null);
  const undone = undoHistory(store, memory, upd.id, { who: 'alice' });
  assert.equal(undone.memory.content, 'The web client bundles its assets with webpack version four.');
  assert.equal(undone.memory.version, 3, 'undo is a new version; the superseded one stays in history');
  assert.throws(
    () => undoHistory(store, memory, upd.id),
    (e: Error) => /^The memory ".+" changed after this entry/.test(e.message) && !e.message.includes(a.memory.id),
  );
  await store.close();
});

test('malformed and truncated model output: warnings, no facts, job completes, raw memory kept', async () => {
  const { fake, store, user, worker } = await setup();
  const a = user.create({ content: 'The nightly export job writes parquet files to the archive bucket.' });
  const b = user.create({ content: 'Release notes are drafted in the docs folder before every tag.' });
  fake.enqueue(
    'generate',
    { reply: '{"facts":[{"content":"The nightly export job wri' },
    { reply: '<think>I should answer but I ran out of tokens' },
  );
  await worker.drain();
  const jobs = listJobs(store, { type: 'extract' });
  assert.equal(jobs.length, 2);
  for (const j of jobs) {
    assert.equal(j.status, 'completed');
    assert.equal((j.result as any).facts, 0);
    assert.ok((j.result as any).warnings.length >= 1);
  }
  assert.match((jobs[0]!.result as any).warnings.join(' '), /not valid JSON/);
  assert.match((jobs[1]!.result as any).warnings.join(' '), /empty answer/);
  assert.ok(a.status === 'created' && b.status === 'created');
  assert.equal(store.get<{ n: number }>('SELECT count(*) AS n FROM memories WHERE deleted_at IS NULL')!.n, 2);
  await store.close();
});

test('HTTP 500 and hangs past the timeout count as attempts, then dead; error names status and body', async () => {
  const { fake, store, user, worker } = await setup({}, { timeoutMs: 300 });
  user.create({ content: 'The payments service retries webhooks three times with backoff.' });
  fake.enqueue(
    'generate',
    { status: 500, body: { error: 'model runner crashed: out of memory' } },
    { hang: true },
    { status: 500, body: 'boom' },
  );
  assert.equal(await worker.tick(), 'failed');
  let j = listJobs(store)[0]!;
  assert.equal(j.status, 'pending');
  assert.equal(j.attempts, 1);
  assert.match(j.lastError!, /HTTP 500/);
  assert.match(j.lastError!, /out of memory/);
  assert.equal(await worker.tick(), 'failed');
  j = listJobs(store)[0]!;
  assert.match(j.lastError!, /did not answer .* within 300 ms/);
  assert.equal(await worker.tick(), 'failed');
  j = listJobs(store)[0]!;
  assert.equal(j.status, 'dead', 'dead after workerMaxRetries attempts');
  assert.equal(j.attempts, 3);
  assert.equal(await worker.tick(), 'none');
  await store.close();
});

test('connection refused: jobs wait without spending attempts; after the server is back everything completes', async () => {
  const { fake, store, user, memory } = await setup();
  const url = fake.url;
  await fake.close();
  for (const c of ['The CI cache key includes the lockfile hash.', 'Docker images are pushed to the internal registry.'])
    user.create({ content: c });
  // A provider pointing at the now-closed port.
  const handlerDeps = () => {
    const llm = new OllamaProvider({ host: url, model: MODEL, timeoutMs: 2000 });
    return createExtractHandler({
      store,
      memory,
      llm,
      findCandidates: createFtsCandidateFinder(store),
      now: () => new Date(),
      settings: () => ({ mode: 'controlled', graphEnabled: false, minFactConfidenceForWrite: 0.7, extractionTimeoutMs: 2000 }),
    });
  };
  const down = new JobWorker(store, { handlers: { extract: handlerDeps() }, maxRetries: 3 });
  for (let i = 0; i < 5; i++) assert.equal(await down.tick(), 'failed');
  assert.ok(down.consecutiveFailures >= 5, 'the worker backs off');
  for (const j of listJobs(store)) {
    assert.equal(j.status, 'pending');
    assert.equal(j.attempts, 0, 'an unreachable server spends no attempts');
  }
  assert.match(listJobs(store)[0]!.lastError!, /not reachable/);
  // The server comes back on the same port.
  const port = Number(new URL(url).port);
  const back = await FakeOllamaOnPort(port);
  back.enqueue(
    'generate',
    { reply: extraction([{ content: 'The CI cache key includes the lockfile hash.x', type: 'fact', confidence: 0.9 }]) },
    { reply: extraction([]) },
  );
  const up = new JobWorker(store, { handlers: { extract: handlerDeps() }, maxRetries: 3 });
  const r = await up.drain();
  assert.deepEqual(r, { ok: 2, failed: 0 });
  assert.deepEqual(jobCounts(store), { pending: 0, leased: 0, completed: 2, dead: 0, cancelled: 0 });
  await store.close();
});

// Restart a fake on a given port (the "server comes back" case).
async function FakeOllamaOnPort(port: number): Promise<FakeOllama> {
  const http = await import('node:http');
  // FakeOllama.start picks a random port; listen a proxy on the old port forwarding to a new fake.
  const fake = await FakeOllama.start({ models: [MODEL] });
  fakes.push(fake);
  const proxy = http.createServer((req, res) => {
    const p = http.request({ host: '127.0.0.1', port: fake.port, path: req.url, method: req.method, headers: req.headers }, (pr) => {
      res.writeHead(pr.statusCode ?? 500, pr.headers);
      pr.pipe(res);
    });
    req.pipe(p);
  });
  await new Promise<void>((resolve) => proxy.listen(port, '127.0.0.1', resolve));
  after(() => new Promise<void>((resolve) => proxy.close(() => resolve())));
  return fake;
}

test('a failing graph write is non-fatal: the facts stay, the job completes with a warning', async () => {
  const { fake, store, user, worker } = await setup({ graphEnabled: true });
  // Break the graph tables so the separate graph transaction fails.
  store.transaction((tx) => tx.run('DROP TABLE memory_relation_provenance'));
  user.create({ content: 'The mobile app talks to the gateway over gRPC with TLS.' });
  fake.enqueue('generate', {
    reply: extraction(
      [{ content: 'The mobile app uses gRPC to reach the gateway.', type: 'fact', confidence: 0.9 }],
      [{ source: 'mobile app', relationship: 'uses', target: 'gRPC', confidence: 0.9 }],
    ),
  });
  await worker.drain();
  const job = listJobs(store)[0]!;
  assert.equal(job.status, 'completed');
  const res = job.result as any;
  assert.deepEqual(res.outcomes, { created: 1 });
  assert.ok(res.warnings.some((w: string) => /graph write failed \(facts kept\)/.test(w)));
  assert.equal(store.get<{ n: number }>('SELECT count(*) AS n FROM entities')!.n, 0, 'the graph transaction rolled back as a whole');
  assert.equal(store.get<{ n: number }>(`SELECT count(*) AS n FROM memories WHERE who = 'pipeline-v2'`)!.n, 1);
  await store.close();
});

test('headers then silence from the model: the job is aborted at the limit and retried, the queue behind it moves on, status says waiting for the model', async () => {
  const fake = await FakeOllama.start({ models: [MODEL], reply: '{"facts":[],"entities":[]}' });
  fakes.push(fake);
  const store = await openPipelineStore(tmpDir('am-pipe-stall-'));
  const cfg: PipelineV2Config = {
    ...defaultConfig().memory.pipelineV2,
    enabled: true,
    workerPollMs: 20,
    extractionTimeout: 800,
    workerMaxRetries: 3,
  };
  const user = new MemoryService(store, { projectId: PROJECT, enqueueExtraction: true });
  const pipeline = new MemoryPipeline({
    store,
    memory: user,
    projectId: PROJECT,
    llm: new OllamaProvider({ host: fake.url, model: MODEL, timeoutMs: 800 }),
    config: () => cfg,
  });
  const stalled = user.create({ content: 'The billing export runs at midnight and writes to the finance bucket.' });
  const next = user.create({ content: 'Feature flags are read from config/flags.yaml at startup.' });
  assert.ok(stalled.status === 'created' && next.status === 'created');
  fake.enqueue('generate', { reply: '{"facts":[],"entities":[]}', hangAfterHeaders: true });
  const t0 = Date.now();
  let driven: ReturnType<typeof driveTasks> | undefined;
  try {
    const jobOf = (id: string) => listJobs(store).find((j) => j.memoryId === id)!;
    let sawWaiting: string | undefined;
    // The stalled call ends at its deadline and by nothing else: its 800 ms timer is held, so
    // a deadline's length after the call reached the server no job has completed; once the
    // test fires it, the job fails, the queue moves on and the retry completes.
    const ended = await settlesAtDeadline({
      limitMs: 800,
      ready: () => fake.count('generate') === 1,
      start: async () => {
        pipeline.start();
        driven = driveTasks(pipeline.tasks());
        const done = () => {
          const s = pipeline.status();
          if (s.waitingForModel) sawWaiting ??= s.waitingSince;
          return jobCounts(store).completed >= 2;
        };
        await until('both jobs to complete', done, { intervalMs: 10 });
      },
    });
    assert.ok('value' in ended, `the jobs did not complete: ${JSON.stringify(listJobs(store))}`);
    const a = jobOf(stalled.memory.id);
    const b = jobOf(next.memory.id);
    assert.equal(a.attempts, 2, 'the stalled job was retried once');
    assert.match(a.lastError ?? '', /did not answer \/api\/generate within 800 ms/);
    assert.equal(b.attempts, 1);
    assert.equal(fake.count('generate'), 3, 'three calls to the model: the stalled one, the next job, one retry');
    const completedAt = (id: string) => String(store.get<{ c: string }>('SELECT completed_at AS c FROM memory_jobs WHERE id = ?', [id])!.c);
    assert.ok(completedAt(b.id) <= completedAt(a.id), 'the job behind the stalled one did not wait for its retry');
    assert.ok(sawWaiting, 'the status said waiting for the model after the stalled call');
    assert.ok(Date.parse(sawWaiting!) >= t0 - 1000);
    assert.equal(pipeline.status().waitingForModel, false, 'a successful call clears it');
  } finally {
    await pipeline.stop({ graceMs: 1000 });
    await driven?.stop();
    await store.close();
  }
});
