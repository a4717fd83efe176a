/**
 * Pipeline v2 throughput and its effect on the raw write path, in one run:
 *  - jobs/s: extract jobs drained by the real worker (lease → extraction → decisions →
 *    controlled writes → graph → complete) against a fake Ollama on 127.0.0.1 that answers
 *    instantly (HTTP + JSON + SQLite costs only, no model time);
 *  - create latency p50/p99 of the durable write path with the pipeline idle, then while the
 *    pipeline is busy draining the queue in the same process.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { FakeOllama } from '../test/helpers/fakeOllama';
import { Store } from '../src/core/store/store';
import { MemoryService } from '../src/core/memory/memoryService';
import { OllamaProvider } from '../src/core/llm/ollamaProvider';
import { HashEmbedder } from '../src/core/embed/hashEmbedder';
import { MemoryPipeline } from '../src/core/pipeline/pipeline';
import { defaultConfig } from '../src/core/config/tree';
import { jobCounts } from '../src/core/jobs/queue';
import { percentile, round } from './stats';
import { TaskDriver } from '../src/engine/worker/scheduler';

const WORDS =
  'alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa quebec romeo sierra tango uniform victor whiskey xray yankee zulu'.split(
    ' ',
  );

function note(i: number, tag: string): string {
  const w: string[] = [];
  let x = (i * 2654435761) >>> 0;
  for (let k = 0; k < 14; k++) {
    x = (x * 1103515245 + 12345) >>> 0;
    w.push(WORDS[x % WORDS.length]!);
  }
  return `${tag} note ${i}: service ${w[0]} talks to ${w[1]} via ${w.slice(2).join(' ')}.`;
}

/** Instant model: extraction derives two facts from the note; decisions answer NONE. */
function reply(body: { prompt?: string }): string {
  const prompt = String(body?.prompt ?? '');
  if (prompt.includes('Existing memories:')) return JSON.stringify({ action: 'ADD', confidence: 0.9, reason: 'New detail.' });
  const m = /Note:\n"""\n([\s\S]*?)\n"""/.exec(prompt);
  const text = m?.[1] ?? 'nothing';
  const words = text.split(/\s+/);
  return JSON.stringify({
    facts: [
      { content: `Fact A from ${text.slice(0, 60)}`, type: 'fact', confidence: 0.9 },
      {
        content: `The ${words[3] ?? 'x'} service depends on ${words[6] ?? 'y'} (${words[1]} ${words[2]})`,
        type: 'semantic',
        confidence: 0.8,
      },
    ],
    entities: [{ source: `${words[4] ?? 'a'} service`, relationship: 'talks to', target: words[6] ?? 'b', confidence: 0.8 }],
  });
}

export async function runPipelineBench(workDir: string): Promise<Record<string, number>> {
  const N = Number(process.env.PIPELINE_BENCH_N ?? 150);
  const fake = await FakeOllama.start({ models: ['qwen3:4b'], reply });
  const dir = path.join(workDir, 'pipeline-bench');
  fs.rmSync(dir, { recursive: true, force: true }); // a fresh store per run: the notes repeat across runs
  const store = await Store.open({ dir });
  try {
    const user = new MemoryService(store, { projectId: 'bench', enqueueExtraction: true });
    const base = defaultConfig().memory.pipelineV2;
    const cfg = { ...base, enabled: true, graphEnabled: true, workerPollMs: 100 };
    const pipeline = new MemoryPipeline({
      store,
      memory: user,
      projectId: 'bench',
      llm: new OllamaProvider({ host: fake.url, timeoutMs: 10_000 }),
      embedder: new HashEmbedder({ dimension: 128 }),
      config: () => cfg,
    });

    const timeCreate = (i: number, tag: string): number => {
      const t = performance.now();
      const r = user.create({ content: note(i, tag), allowNearDuplicate: true });
      if (r.status !== 'created') throw new Error(`bench create ${i}: ${r.status}`);
      return performance.now() - t;
    };
    // 1. Idle: the pipeline is not running (after a short warm-up).
    for (let i = 0; i < 20; i++) timeCreate(i, 'warmup');
    const idle: number[] = [];
    for (let i = 0; i < N; i++) idle.push(timeCreate(i, 'idle'));

    // 2. Busy: the worker drains the idle batch while more creates arrive (yielding between them).
    const t0 = performance.now();
    pipeline.extractWorker.start();
    const driver = new TaskDriver();
    driver.drive([pipeline.extractWorker], (task, e) => console.error(`${task.name}: ${String(e)}`));
    const busy: number[] = [];
    for (let i = 0; i < N; i++) {
      busy.push(timeCreate(i, 'busy'));
      await new Promise((r) => setImmediate(r));
    }
    while (jobCounts(store).pending + jobCounts(store).leased > 0) await new Promise((r) => setTimeout(r, 5));
    const seconds = (performance.now() - t0) / 1000;
    await pipeline.stop();
    await driver.stop();
    const counts = jobCounts(store);
    const facts = Number(store.get<{ n: number }>(`SELECT count(*) AS n FROM memories WHERE who = 'pipeline-v2'`)!.n);
    return {
      pipeline_jobs: counts.completed,
      pipeline_jobs_dead: counts.dead,
      pipeline_jobs_per_s: round(counts.completed / seconds, 1),
      pipeline_facts_created: facts,
      pipeline_llm_requests: fake.count('generate'),
      create_idle_p50_ms: round(percentile(idle, 50)),
      create_idle_p99_ms: round(percentile(idle, 99)),
      create_busy_p50_ms: round(percentile(busy, 50)),
      create_busy_p99_ms: round(percentile(busy, 99)),
    };
  } finally {
    await store.close({ snapshot: false });
    await fake.close();
  }
}
