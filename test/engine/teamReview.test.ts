// @tier process
// Contradicting facts from different people through the real engine worker thread (docs/team.md
// "Contradicting facts"): ben's window, its pipeline on against the fake Ollama, connected to a
// throw-away PostgreSQL 15; ana's machine a store syncing to the same schema. Ana's memory
// contradicting ben's goes through the decision, is listed with the team conflicts (what the
// Suggestions view and `team conflicts` show) with both authors, counts in the status, and
// "keep theirs" retires ben's memory on both machines.
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import pg from 'pg';
import { engineDirs, startClient } from './harness';
import { FakeOllama } from '../helpers/fakeOllama';
import { startPgCluster, type PgCluster, pgSkip } from '../helpers/pgCluster';
import { openMemory } from '../helpers/memoryFixture';
import { until } from '../helpers/until';
import type { EngineClient } from '../../src/engine/client/engineClient';
import { syncOnce, type SyncContext } from '../../src/core/team/sync';
import { machineIdOf } from '../../src/core/team/localState';

const skip = pgSkip();
const MODEL = 'qwen3:4b';
const ANA = 'Staging deploys use blue-green releases behind the load balancer.';
const BEN = 'Staging deploys use rolling releases; blue-green releases behind the load balancer were retired.';
let cluster: PgCluster;
let fake: FakeOllama;
const clients: EngineClient[] = [];
const pgClients: pg.Client[] = [];

before(async () => {
  if (skip) return;
  cluster = await startPgCluster();
  fake = await FakeOllama.start({ models: [MODEL] });
});
after(async () => {
  for (const c of clients) await c.shutdown(5000).catch(() => undefined);
  await Promise.all(pgClients.map((c) => c.end().catch(() => undefined)));
  await fake?.close();
  cluster?.destroy();
});

test(
  "another person's contradicting memory is a team conflict with both authors; keeping theirs retires mine everywhere",
  { skip, timeout: 180_000 },
  async () => {
    const settings = {
      'memory.pipelineV2.enabled': true,
      'memory.pipelineV2.ollamaUrl': fake.url,
      'memory.pipelineV2.extractionModel': MODEL,
      'memory.pipelineV2.workerPollMs': 100,
    };
    const ben = startClient({ ...engineDirs(), allowDebug: true, settings });
    clients.push(ben);
    await ben.start();

    // Ben's own memory (its extraction, if the pipeline takes it, answered by the model's default: no facts).
    const mine = await ben.request('memory.create', { content: BEN });
    assert.equal(mine.status, 'created');
    const benId = (mine as { memory: { id: string } }).memory.id;
    await until('no pipeline job left', async () => {
      const st = await ben.request('pipeline.status', {});
      return !st.jobs.pending && !st.jobs.leased;
    });
    const connected = await ben.request('team.connect', {
      host: cluster.host,
      port: cluster.port,
      user: cluster.user,
      password: cluster.password,
      database: cluster.database,
      tls: 'disable',
      author: 'ben',
    });
    assert.ok(connected.status.connected);

    // Ana, on her machine, shares a memory that says otherwise.
    const { projectId } = await ben.request('diagnostics', {});
    const ana = await openMemory({ projectId });
    const client = new pg.Client({
      host: cluster.host,
      port: cluster.port,
      user: cluster.user,
      password: cluster.password,
      database: cluster.database,
    });
    await client.connect();
    pgClients.push(client);
    const ctx: SyncContext = {
      store: ana.store,
      client,
      schema: connected.status.connected ? connected.status.schema : '',
      projectId,
      machine: machineIdOf(ana.store, (fn) => ana.store.transaction(fn)),
      author: 'ana',
    };
    const anaMem = ana.svc.create({ content: ANA });
    assert.equal(anaMem.status, 'created');
    const anaId = (anaMem as { memory: { id: string } }).memory.id;
    await syncOnce(ctx);

    // Ben's window pulls it: the decision (UPDATE of ben's memory) waits as a conflict naming ana.
    fake.enqueue('generate', {
      reply: JSON.stringify({ action: 'UPDATE', targetId: benId, confidence: 0.9, reason: 'Ana says blue-green is used.' }),
    });
    await ben.request('team.sync', {});
    const [c] = await until('the contradiction listed', async () => {
      const list = await ben.request('team.conflicts', {});
      return list.length ? list : undefined;
    });
    assert.ok(c?.contradiction, JSON.stringify(c));
    assert.equal(c.serverAuthor, 'ana');
    assert.equal(c.memoryId, benId);
    assert.equal(c.local.content, BEN);
    assert.equal(c.current?.content, ANA);
    assert.equal(c.contradiction.theirMemoryId, anaId);
    assert.equal(c.contradiction.reason, 'Ana says blue-green is used.');
    const status = await ben.request('team.status', {});
    assert.ok(status.connected && status.conflicts === 1, JSON.stringify(status));
    assert.equal((await ben.request('memory.get', { id: benId }))?.content, BEN, 'nothing changed before ben decides');
    // Every read a memory view makes names who shared ana's memory: the tree grouped by type, by
    // tag (an untagged memory is in the "(untagged)" group), and the memory's document.
    const sharedBy = (items: { id: string; sharedBy?: { author: string } }[]) => items.find((m) => m.id === anaId)?.sharedBy?.author;
    assert.equal((await ben.request('memory.get', { id: anaId }))?.sharedBy?.author, 'ana');
    assert.equal(sharedBy((await ben.request('memory.list', { types: ['general'], limit: 100 })).items), 'ana');
    assert.equal(sharedBy((await ben.request('memory.listUntagged', { limit: 100 })).items), 'ana');

    // Keep theirs: ben's memory is retired (restorable), here and, after a sync, on ana's machine.
    assert.deepEqual(await ben.request('team.resolve', { id: c.id, keep: 'server' }), { resolved: true });
    assert.equal(await ben.request('memory.get', { id: benId }), null);
    assert.ok((await ben.request('memory.get', { id: benId, includeDeleted: true }))?.deletedAt);
    assert.deepEqual(await ben.request('team.conflicts', {}), []);
    await ben.request('team.sync', {});
    await syncOnce(ctx);
    assert.ok(ana.svc.get(benId, { includeDeleted: true })?.deletedAt, "ben's memory is deleted on ana's machine too");
    assert.equal(ana.svc.get(anaId)?.content, ANA);
    await ana.store.close();
  },
);
