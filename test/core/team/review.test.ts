// @tier process
// Contradicting facts from different people (docs/team.md "Contradicting facts"): two machines
// syncing through a real PostgreSQL 15, the pipeline's decision through the fake Ollama HTTP
// server. A memory someone else shared goes through the decision against this person's own
// memories; an UPDATE/DELETE of theirs waits as a review showing both authors; accepting retires
// one's own memory on both machines, rejecting keeps both everywhere.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { startPgCluster, type PgCluster, pgSkip } from '../../helpers/pgCluster';
import { openMemory } from '../../helpers/memoryFixture';
import { FakeOllama } from '../../helpers/fakeOllama';
import type { CreateResult, MemoryRecord } from '../../../src/core/memory/types';
import { ensureServerSchema, projectSchema } from '../../../src/core/team/serverSchema';
import { syncOnce, type SyncContext } from '../../../src/core/team/sync';
import { machineIdOf } from '../../../src/core/team/localState';
import { TEAM_REVIEW_JOB } from '../../../src/core/team/apply';
import { createTeamReviewHandler, openContradictions, settleContradiction, type TeamReviewSettings } from '../../../src/core/team/review';
import { OllamaProvider } from '../../../src/core/llm/ollamaProvider';
import { JobWorker } from '../../../src/core/jobs/worker';
import { listJobs } from '../../../src/core/jobs/queue';
import { createFtsCandidateFinder } from '../../../src/core/pipeline/ftsCandidates';
import { listPendingReviews } from '../../../src/core/pipeline/reviews';

const skip = pgSkip();
const PROJECT = 'github.com/acme/app';
const MODEL = 'qwen3:4b';
let cluster: PgCluster;
let fake: FakeOllama;
const clients: pg.Client[] = [];
let schemaN = 0;

before(async () => {
  if (skip) return;
  cluster = await startPgCluster();
  fake = await FakeOllama.start({ models: [MODEL] });
});
after(async () => {
  await Promise.all(clients.map((c) => c.end().catch(() => undefined)));
  await fake?.close();
  cluster?.destroy();
});

function created(r: CreateResult): MemoryRecord {
  assert.equal(r.status, 'created', JSON.stringify(r));
  return (r as { memory: MemoryRecord }).memory;
}

/** One person's machine: its store, its sync (pipeline on unless said), and its pipeline worker with the team decision job. */
async function machine(schema: string, author: string, opts: { pipelineOn?: boolean; mode?: TeamReviewSettings['mode'] } = {}) {
  const m = await openMemory({ projectId: PROJECT });
  const client = new pg.Client({
    host: cluster.host,
    port: cluster.port,
    user: cluster.user,
    password: cluster.password,
    database: cluster.database,
  });
  await client.connect();
  clients.push(client);
  await ensureServerSchema(client, schema, PROJECT);
  const ctx: SyncContext = {
    store: m.store,
    client,
    schema,
    projectId: PROJECT,
    machine: machineIdOf(m.store, (fn) => m.store.transaction(fn)),
    author,
    reviewPulled: opts.pipelineOn ?? true,
    now: m.clock.now,
  };
  const handler = createTeamReviewHandler({
    store: m.store,
    memory: m.svc,
    llm: new OllamaProvider({ host: fake.url, model: MODEL, timeoutMs: 5000 }),
    findCandidates: createFtsCandidateFinder(m.store, { projectId: PROJECT }),
    settings: () => ({ mode: opts.mode ?? 'controlled', extractionTimeoutMs: 5000 }),
    now: m.clock.now,
  });
  const worker = new JobWorker(m.store, { handlers: { [TEAM_REVIEW_JOB]: handler }, maxRetries: 3, now: m.clock.now });
  return { ...m, ctx, worker, sync: () => syncOnce(ctx) };
}

const live = (m: { store: import('../../../src/core/store/store').Store }) =>
  m.store.all<{ content: string }>('SELECT content FROM memories WHERE deleted_at IS NULL ORDER BY content').map((r) => String(r.content));

const decision = (d: Record<string, unknown>) => ({ reply: JSON.stringify(d) });

const ANA = 'Staging deploys use blue-green releases behind the load balancer.';
const BEN = 'Staging deploys use rolling releases; blue-green releases behind the load balancer were retired.';

test(
  'a contradicting memory from someone else goes through the decision and waits as a review with both authors; accept and reject reach both machines',
  { skip },
  async () => {
    const schema = `${projectSchema(PROJECT)}_${++schemaN}`;
    const ana = await machine(schema, 'ana');
    const ben = await machine(schema, 'ben');
    const anaMem = created(ana.svc.create({ content: ANA }));
    const benMem = created(ben.svc.create({ content: BEN }));
    await ana.sync();
    await ben.sync(); // pushes ben's, pulls ana's: ben has a memory of his own, so ana's is queued for the decision
    await ana.sync(); // and the other way round

    // Each machine queued one decision, about the other person's memory, in the pull's transaction.
    for (const [m, theirs, from, me] of [
      [ben, anaMem, 'ana', 'ben'],
      [ana, benMem, 'ben', 'ana'],
    ] as const) {
      const jobs = listJobs(m.store, { type: TEAM_REVIEW_JOB });
      assert.equal(jobs.length, 1);
      assert.equal(jobs[0]!.memoryId, theirs.id);
      assert.deepEqual(jobs[0]!.payload, { author: from, machine: (m === ben ? ana : ben).ctx.machine, me });
    }

    // Ben's machine: the model says ana's memory updates ben's. It is not applied: a review.
    fake.reset();
    fake.enqueue('generate', decision({ action: 'UPDATE', targetId: benMem.id, confidence: 0.9, reason: 'Ana says blue-green is used.' }));
    assert.deepEqual(await ben.worker.drain(), { ok: 1, failed: 0 });
    const prompt = String((fake.requestsTo('generate')[0]!.body as { prompt: string }).prompt);
    assert.ok(prompt.includes(ANA), 'the fact decided on is the memory ana shared');
    assert.ok(prompt.includes(`id=${benMem.id}`), "ben's own memory is the candidate");
    assert.ok(!prompt.includes(`id=${anaMem.id}`), 'the memory itself is not its own candidate');
    assert.equal(ben.svc.get(benMem.id)!.content, BEN, "ben's memory is unchanged until someone decides");
    const [onBen] = openContradictions(ben.store);
    assert.ok(onBen);
    assert.equal(onBen.author, 'ana');
    assert.equal(onBen.me, 'ben');
    assert.equal(onBen.memoryId, benMem.id);
    assert.equal(onBen.mine?.content, BEN);
    assert.equal(onBen.theirMemoryId, anaMem.id);
    assert.equal(onBen.theirs?.content, ANA);
    assert.match(onBen.reason, /Ana says/);
    assert.equal(listPendingReviews(ben.store).length, 1);

    // Ana's machine: the model says ben's memory deletes ana's: a review on ana's side, rejected there.
    fake.enqueue(
      'generate',
      decision({ action: 'DELETE', targetId: anaMem.id, confidence: 0.9, reason: 'Ben says blue-green was retired.' }),
    );
    assert.deepEqual(await ana.worker.drain(), { ok: 1, failed: 0 });
    const [onAna] = openContradictions(ana.store);
    assert.equal(onAna?.author, 'ben');
    assert.equal(onAna?.memoryId, anaMem.id);
    assert.deepEqual(settleContradiction(ana.store, ana.svc, onAna!.id, 'mine'), { status: 'kept', memoryId: anaMem.id });
    assert.equal(openContradictions(ana.store).length, 0);
    await ana.sync();
    await ben.sync();
    assert.deepEqual(live(ana), [BEN, ANA].sort(), 'rejected: both memories stay on ana’s machine');
    assert.deepEqual(live(ben), [BEN, ANA].sort(), 'and on ben’s');

    // Ben accepts: his memory is retired (soft delete) for ana's, on both machines after a sync.
    assert.deepEqual(settleContradiction(ben.store, ben.svc, onBen.id, 'theirs'), { status: 'deleted', memoryId: benMem.id });
    await ben.sync();
    await ana.sync();
    assert.deepEqual(live(ben), [ANA]);
    assert.deepEqual(live(ana), [ANA]);
    const gone = ana.svc.get(benMem.id, { includeDeleted: true })!;
    assert.ok(gone.deletedAt, "ben's memory is deleted on ana's machine too, and restorable");
    assert.equal(openContradictions(ben.store).length, 0);
    // Ben's acceptance reached ana as a change of ben's own memory: no decision is queued for a delete.
    assert.equal(listJobs(ana.store, { type: TEAM_REVIEW_JOB, status: 'pending' }).length, 0);
  },
);

test('ADD and NONE keep both memories; shadow mode only records; the pipeline off or a new member queues nothing', { skip }, async () => {
  const schema = `${projectSchema(PROJECT)}_${++schemaN}`;
  const ana = await machine(schema, 'ana');
  const ben = await machine(schema, 'ben', { mode: 'shadow' });
  const off = await machine(schema, 'cy', { pipelineOn: false });
  const newcomer = await machine(schema, 'dee');
  created(off.svc.create({ content: 'Cy keeps the changelog in the docs folder.' }));
  const benMem = created(ben.svc.create({ content: BEN }));
  created(ana.svc.create({ content: ANA }));
  await ana.sync();
  await ben.sync();
  await off.sync();
  await newcomer.sync();
  assert.equal(listJobs(off.store, { type: TEAM_REVIEW_JOB }).length, 0, 'pipeline off: nothing queued');
  assert.equal(listJobs(newcomer.store, { type: TEAM_REVIEW_JOB }).length, 0, 'no memory of their own: nothing to contradict');
  assert.equal(live(newcomer).length, 3);

  // Shadow mode: the model's UPDATE is recorded in the audit, no review.
  fake.reset();
  fake.enqueue('generate', decision({ action: 'UPDATE', targetId: benMem.id, confidence: 0.9, reason: 'Ana says blue-green is used.' }));
  assert.deepEqual(await ben.worker.drain(), { ok: 1, failed: 0 });
  assert.equal(openContradictions(ben.store).length, 0);
  const audit = ben.store.get<{ metadata_json: string }>("SELECT metadata_json FROM memory_history WHERE event = 'pipeline_proposal'");
  assert.equal(JSON.parse(String(audit!.metadata_json)).outcome, 'shadow');

  // NONE on ana's machine (ben's memory pulled): both stay, nothing to review.
  await ana.sync();
  fake.enqueue('generate', decision({ action: 'NONE', confidence: 0.9, reason: 'Already covered.' }));
  // Two decisions: ben's memory (NONE) and cy's (the model's default answer is no decision: dropped with a warning).
  assert.deepEqual(await ana.worker.drain(), { ok: 2, failed: 0 });
  assert.equal(openContradictions(ana.store).length, 0);
  assert.equal(live(ana).length, 3);
});
