/** Retention sweep: the six steps in order, windows, batch limit, shared embeddings and entities kept. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tmpDir } from '../../helpers/tmp';
import { openPipelineStore } from '../../fixtures/pipelineStore';
import { MemoryService } from '../../../src/core/memory/memoryService';
import { writeMemoryGraph } from '../../../src/core/graph/persist';
import { RETENTION_STEPS, runRetentionSweep } from '../../../src/core/retention/sweep';
import { enqueueMemoryJob } from '../../../src/core/jobs/enqueue';
import { HashEmbedder } from '../../../src/core/embed/hashEmbedder';
import { embedTextHash } from '../../../src/core/embed/cache';
import { embeddingText } from '../../../src/core/memory/embedding';

const DAY = 86_400_000;
const W = {
  tombstoneRetentionMs: 30 * DAY,
  historyRetentionMs: 180 * DAY,
  completedJobRetentionMs: 14 * DAY,
  deadJobRetentionMs: 30 * DAY,
};

test('six ordered steps purge only what is past its window', async () => {
  const store = await openPipelineStore(tmpDir('am-ret-'));
  let now = new Date('2026-01-01T00:00:00.000Z');
  const svc = new MemoryService(store, { projectId: 'p', now: () => now });
  const emb = new HashEmbedder({ dimension: 32 });
  const make = async (content: string) => {
    const text = embeddingText('', content);
    const [v] = await emb.embed([text], 'document');
    const r = svc.create(
      { content, allowNearDuplicate: true },
      { embedding: { space: emb.space, textHash: embedTextHash(text), vector: v! } },
    );
    assert.equal(r.status, 'created');
    return (r as { memory: { id: string } }).memory.id;
  };
  const old = await make('Old note about the retired FTP server configuration.');
  const keep = await make('Live note: the FTP server was replaced by SFTP.');
  const recent = await make('Recently deleted note about the staging proxy.');
  store.transaction((tx) => {
    writeMemoryGraph(tx, old, [{ source: 'FTP server', relationship: 'replaced by', target: 'SFTP', confidence: 0.9 }], now.toISOString());
    writeMemoryGraph(tx, keep, [{ source: 'FTP server', relationship: 'replaced by', target: 'SFTP', confidence: 0.9 }], now.toISOString());
    writeMemoryGraph(tx, recent, [{ source: 'staging proxy', relationship: 'is', target: 'deleted', confidence: 0.9 }], now.toISOString());
  });
  svc.delete(old); // deleted 2026-01-01
  // Jobs: completed long ago, dead long ago, completed recently.
  store.transaction((tx) => {
    for (const [id, status, at] of [
      ['j1', 'completed', '2025-12-01'],
      ['j2', 'dead', '2025-11-01'],
      ['j3', 'completed', '2026-02-05'],
    ] as const) {
      tx.run(
        `INSERT INTO memory_jobs (id, job_type, memory_id, status, completed_at, failed_at, created_at, updated_at) VALUES (?, 'extract', ?, ?, ?, ?, ?, ?)`,
        [
          id,
          `mem-${id}`,
          status,
          status === 'completed' ? `${at}T00:00:00.000Z` : null,
          status === 'dead' ? `${at}T00:00:00.000Z` : null,
          '2025-01-01T00:00:00.000Z',
          '2025-01-01T00:00:00.000Z',
        ],
      );
    }
    tx.run(
      `INSERT INTO memory_history (id, memory_id, event, created_at) VALUES ('h-ancient', NULL, 'created', '2025-01-01T00:00:00.000Z')`,
    );
  });
  now = new Date('2026-02-10T00:00:00.000Z');
  svc.delete(recent); // deleted 2026-02-10: inside the window
  const report = runRetentionSweep(store, W, now);
  assert.deepEqual(
    report.steps.map((s) => s.step),
    [...RETENTION_STEPS],
  );
  const removed = Object.fromEntries(report.steps.map((s) => [s.step, s.removed]));
  assert.deepEqual(removed, {
    graphLinks: 2,
    embeddings: 1,
    tombstones: 1,
    history: 1,
    completedJobs: 1,
    deadJobs: 1,
    events: 0, // the memories' events are younger than the history window
    deliveries: 0,
  });
  assert.equal(report.more, false);
  // The purged memory is gone (with its FTS row); the others and the shared graph remain.
  assert.equal(store.get('SELECT 1 AS x FROM memories WHERE id = ?', [old]), undefined);
  assert.ok(store.get('SELECT 1 AS x FROM memories WHERE id = ?', [recent]));
  assert.equal(Number(store.get<{ n: number }>('SELECT count(*) AS n FROM memories_fts_docsize')!.n), 2);
  assert.deepEqual(
    store
      .all<{ canonical_name: string; mentions: number }>('SELECT canonical_name, mentions FROM entities ORDER BY canonical_name')
      .map((e) => [e.canonical_name, Number(e.mentions)]),
    [
      ['deleted', 1],
      ['ftp server', 1],
      ['sftp', 1],
      ['staging proxy', 1],
    ],
  );
  assert.equal(Number(store.get<{ n: number }>('SELECT count(*) AS n FROM embeddings')!.n), 2);
  assert.deepEqual(
    store.all<{ id: string }>('SELECT id FROM memory_jobs ORDER BY id').map((r) => r.id),
    ['j3'],
  );
  assert.deepEqual(store.integrityCheck(), []);
  // A second sweep finds nothing.
  assert.ok(runRetentionSweep(store, W, now).steps.every((s) => s.removed === 0));
  await store.close();
});

test('each step is batch-limited; the rest is caught by the next sweep', async () => {
  const store = await openPipelineStore(tmpDir('am-ret2-'));
  store.transaction((tx) => {
    for (let i = 0; i < 7; i++) enqueueMemoryJob(tx, 'extract', `m${i}`, '2025-01-01T00:00:00.000Z');
    tx.run(`UPDATE memory_jobs SET status = 'completed', completed_at = '2025-01-02T00:00:00.000Z'`);
  });
  const now = new Date('2026-01-01T00:00:00.000Z');
  const r1 = runRetentionSweep(store, W, now, 5);
  assert.equal(r1.steps.find((s) => s.step === 'completedJobs')!.removed, 5);
  assert.equal(r1.more, true);
  const r2 = runRetentionSweep(store, W, now, 5);
  assert.equal(r2.steps.find((s) => s.step === 'completedJobs')!.removed, 2);
  assert.equal(r2.more, false);
  await store.close();
});
