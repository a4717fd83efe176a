// @tier durability
/** The job queue under kill -9: a lease held by a killed worker process is reaped, and the job finishes after restart. */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { tmpDir } from '../../helpers/tmp';
import { openPipelineStore } from '../../fixtures/pipelineStore';
import { FakeOllama } from '../../helpers/fakeOllama';
import { MemoryService } from '../../../src/core/memory/memoryService';
import { getJob, reapStaleLeases } from '../../../src/core/jobs/queue';
import { JobWorker } from '../../../src/core/jobs/worker';
import { OllamaProvider } from '../../../src/core/llm/ollamaProvider';
import { createExtractHandler } from '../../../src/core/pipeline/extractJob';
import { createFtsCandidateFinder } from '../../../src/core/pipeline/ftsCandidates';
import { driveTasks } from '../../helpers/driveTasks';

const fakes: FakeOllama[] = [];
after(async () => {
  for (const f of fakes) await f.close();
});

test('kill -9 while a worker holds a lease: the lease is reaped and the job finishes after restart', { timeout: 60_000 }, async () => {
  const dir = tmpDir('am-jobcrash-');
  let store = await openPipelineStore(dir);
  const svc = new MemoryService(store, { projectId: 'p', enqueueExtraction: true });
  const created = svc.create({ content: 'The build server caches node modules between pipeline runs.' });
  assert.equal(created.status, 'created');
  await store.close();

  const child = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(__dirname, '..', '..', 'fixtures', 'pipeline-crash-worker.ts'), dir],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const leased = await new Promise<string>((resolve, reject) => {
    let buf = '';
    child.stdout.on('data', (d: Buffer) => {
      buf += d.toString();
      const m = /LEASED (\S+) 1\n/.exec(buf);
      if (m) resolve(m[1]!);
    });
    child.on('exit', (code) => reject(new Error(`child exited early (${code}): ${stderr}`)));
  });
  child.kill('SIGKILL');
  await new Promise((r) => child.once('exit', r));

  store = await openPipelineStore(dir);
  const held = getJob(store, leased)!;
  assert.equal(held.status, 'leased', 'the lease survived the crash on disk');
  assert.equal(held.leasedBy, 'doomed-worker');
  // The 60 s reaper with leaseTimeoutMs: not yet stale, then stale.
  assert.equal(reapStaleLeases(store, 300_000, new Date()), 0);
  assert.equal(reapStaleLeases(store, 300_000, new Date(Date.now() + 301_000)), 1);
  assert.equal(getJob(store, leased)!.status, 'pending');
  assert.equal(getJob(store, leased)!.attempts, 1, 'the crashed attempt counts');

  // Restart: a real worker over the fake Ollama finishes it.
  const fake = await FakeOllama.start({ models: ['qwen3:4b'] });
  fakes.push(fake);
  fake.enqueue('generate', {
    reply: JSON.stringify({
      facts: [{ content: 'Node modules are cached between pipeline runs.', type: 'fact', confidence: 0.9 }],
      entities: [],
    }),
  });
  const memory = new MemoryService(store, { projectId: 'p', enqueueExtraction: false });
  const worker = new JobWorker(store, {
    pollMs: 20,
    handlers: {
      extract: createExtractHandler({
        store,
        memory,
        llm: new OllamaProvider({ host: fake.url, timeoutMs: 5000 }),
        findCandidates: createFtsCandidateFinder(store),
        now: () => new Date(),
        settings: () => ({ mode: 'controlled', graphEnabled: false, minFactConfidenceForWrite: 0.7, extractionTimeoutMs: 5000 }),
      }),
    },
  });
  worker.start();
  const driven = driveTasks([worker]);
  while (getJob(store, leased)!.status !== 'completed') await new Promise((r) => setTimeout(r, 10));
  await worker.stop();
  await driven.stop();
  assert.equal((getJob(store, leased)!.result as any).outcomes.created, 1);
  assert.equal(getJob(store, leased)!.attempts, 2);
  await store.close();
});
