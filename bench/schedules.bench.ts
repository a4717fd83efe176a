/**
 * Schedules benchmark (docs/schedules.md): 10,000 schedules in a real store (sql.js, the op log
 * on disk) — cron in several zones, intervals and one-shots — then the due query (on the partial
 * index of next_run_at) at 500 moments of the next month, p50/p99, and run throughput: the
 * runner claiming, recording and rescheduling due runs (each run two durable transactions), with
 * a run body that does no recall, so the figure is the store's part of a run.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Store } from '../src/core/store/store';
import { ScheduleStore } from '../src/core/schedules/scheduleStore';
import { ScheduleRunner } from '../src/core/schedules/runner';
import type { ScheduleCadence } from '../src/core/schedules/types';
import { median, peakRssMb, percentile, round } from './stats';

export interface SchedulesBenchResult {
  schedules: number;
  create_p50_ms: number;
  create_p99_ms: number;
  due_query_p50_ms: number;
  due_query_p99_ms: number;
  due_query_samples: number;
  next_due_p50_ms: number;
  runs: number;
  run_throughput_per_s: number;
  run_p50_ms: number;
  peak_rss_mb: number;
}

const ZONES = ['UTC', 'Europe/Berlin', 'America/New_York', 'Asia/Tokyo', 'Australia/Sydney'];
const DUE_SAMPLES = 500;
const RUNS = 1000;
const progress = (s: string) => process.stderr.write(`  [schedules] ${s}\n`);

/** A deterministic mix: 60 % cron, 25 % intervals, 15 % one-shots within 30 days of `t0`. */
function cadence(i: number, t0: number): ScheduleCadence {
  const timezone = ZONES[i % ZONES.length]!;
  const k = i % 20;
  if (k < 12) return { kind: 'cron', expr: `${(i * 7) % 60} ${(i * 5) % 24} * * ${k < 6 ? '*' : '1-5'}`, timezone };
  if (k < 17)
    return { kind: 'interval', everySeconds: 3600 * (1 + (i % 24)), anchor: new Date(t0 + (i % 3600) * 1000).toISOString(), timezone };
  return { kind: 'once', at: new Date(t0 + 3_600_000 + ((i * 7919) % (30 * 86_400)) * 1000).toISOString(), timezone };
}

export async function runSchedulesBench(workDir: string, count = 10_000): Promise<SchedulesBenchResult> {
  const dir = path.join(workDir, `schedules-${count}`);
  fs.rmSync(dir, { recursive: true, force: true });
  const store = await Store.open({ dir });
  const t0 = Date.parse('2026-03-02T08:00:00.000Z');
  const clock = { t: t0 };
  const now = () => new Date(clock.t);
  const schedules = new ScheduleStore(store, { now });
  try {
    const creates: number[] = [];
    for (let i = 0; i < count; i++) {
      const t = performance.now();
      schedules.create({ goal: `Reminder ${i}: check the build of service ${i % 97}`, cadence: cadence(i, t0) });
      creates.push(performance.now() - t);
      if ((i + 1) % 2000 === 0) progress(`${i + 1} created`);
    }
    const due: number[] = [];
    const next: number[] = [];
    for (let i = 0; i < DUE_SAMPLES; i++) {
      const at = new Date(t0 + ((i * 104_729) % (30 * 86_400)) * 1000);
      let t = performance.now();
      schedules.due(at, 10);
      due.push(performance.now() - t);
      t = performance.now();
      schedules.nextDueAt();
      next.push(performance.now() - t);
    }
    // A day later: thousands are due. The runner claims, runs (no recall) and reschedules them.
    clock.t = t0 + 86_400_000;
    const runs: number[] = [];
    const runner = new ScheduleRunner({
      schedules,
      owner: 'bench (pid 1)',
      now,
      execute: async () => ({ status: 'succeeded', output: 'done', memoryIds: [], turnCount: 0, cost: 0 }),
      onRun: () => runs.push(performance.now()),
    });
    const start = performance.now();
    while (runs.length < RUNS) {
      const before = runs.length;
      await runner.runStep();
      if (runs.length === before) break;
    }
    const elapsed = performance.now() - start;
    const gaps = runs.map((t, i) => t - (i ? runs[i - 1]! : start));
    progress(`${runs.length} runs in ${Math.round(elapsed)} ms`);
    return {
      schedules: count,
      create_p50_ms: round(median(creates)),
      create_p99_ms: round(percentile(creates, 99)),
      due_query_p50_ms: round(median(due)),
      due_query_p99_ms: round(percentile(due, 99)),
      due_query_samples: DUE_SAMPLES,
      next_due_p50_ms: round(median(next)),
      runs: runs.length,
      run_throughput_per_s: round((runs.length / elapsed) * 1000, 1),
      run_p50_ms: round(median(gaps)),
      peak_rss_mb: peakRssMb(),
    };
  } finally {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
