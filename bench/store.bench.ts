/**
 * Store benchmark at one size (run as a child of bench/index.ts so peak RSS is per size):
 * durable create latency through the full write path, the naive export-per-write
 * baseline in the same run, open time (snapshot only, and snapshot + log tail), disk size.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import initSqlJs from 'sql.js';
import type { OpenResult } from './open.child';
import { Store } from '../src/core/store/store';
import { MemoryService } from '../src/core/memory/memoryService';
import { syntheticMemories } from './corpus';
import { mean, median, peakRssMb, percentile, round } from './stats';

export interface StoreBenchResult {
  memories: number;
  preload_ms: number;
  fts_compact_ms: number;
  create_p50_ms: number;
  create_p99_ms: number;
  create_mean_ms: number;
  create_throughput_per_s: number;
  create_samples: number;
  naive_export_per_write_p50_ms: number;
  naive_samples: number;
  speedup_vs_naive_p50: number;
  snapshot_ms: number;
  /** Store.open from the snapshot alone, in a fresh process (the engine's start); median of OPEN_RUNS. */
  open_ms_snapshot: number;
  /** The same open in the bench's own process, right after it closed the store. */
  open_ms_snapshot_same_process: number;
  open_ms_with_log_tail: number;
  log_tail_records: number;
  snapshot_bytes: number;
  disk_bytes: number;
  peak_rss_mb: number;
}

function dirSize(dir: string): number {
  let n = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    n += e.isDirectory() ? dirSize(p) : fs.statSync(p).size;
  }
  return n;
}

const progress = (s: string) => process.stderr.write(`  [store] ${s}\n`);

const OPEN_RUNS = 3;

/** Median Store.open time over OPEN_RUNS fresh processes (bench/open.child.ts); checks the replayed count. */
function openInFreshProcess(dir: string, expectReplayed: number): { ms: number; replayed: number } {
  const times: number[] = [];
  let replayed = 0;
  for (let i = 0; i < OPEN_RUNS; i++) {
    const r = spawnSync(process.execPath, ['--import', 'tsx', path.join(__dirname, 'open.child.ts'), dir], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    if (r.status !== 0) throw new Error(`open child failed (exit ${r.status})`);
    const o = JSON.parse(r.stdout.trim().split('\n').pop()!) as OpenResult;
    if (o.replayed_records < expectReplayed)
      throw new Error(`open child replayed ${o.replayed_records} records, expected at least ${expectReplayed}`);
    times.push(o.open_ms);
    replayed = o.replayed_records;
  }
  progress(`open in a fresh process (${replayed} log records): ${times.map((t) => Math.round(t)).join(' / ')} ms`);
  return { ms: round(median(times), 1), replayed };
}

export async function runStoreBench(size: number, workDir: string): Promise<StoreBenchResult> {
  const dir = path.join(workDir, `store-${size}`);
  fs.rmSync(dir, { recursive: true, force: true });
  const projectId = 'bench/project';

  // Preload in batched transactions (the import path), then snapshot.
  let t = performance.now();
  let store = await Store.open({ dir });
  let svc = new MemoryService(store, { projectId, enqueueExtraction: true });
  const batch: Parameters<MemoryService['create']>[0][] = [];
  for (const m of syntheticMemories(size, 1)) {
    batch.push({ ...m, allowNearDuplicate: true });
    if (batch.length === 2000) svc.createMany(batch.splice(0), { batchSize: 2000 });
  }
  if (batch.length) svc.createMany(batch.splice(0), { batchSize: 2000 });
  const preloadMs = performance.now() - t;
  progress(`preloaded ${size} in ${Math.round(preloadMs)} ms`);
  // What the engine does when idle after an import: merge the full-text index's segments.
  t = performance.now();
  const segmentsLeft = (await store.compactFullTextIndex()).memories_fts;
  const compactMs = performance.now() - t;
  progress(`full-text index compacted to ${segmentsLeft} segments in ${Math.round(compactMs)} ms`);
  t = performance.now();
  await store.snapshot();
  const snapshotMs = performance.now() - t;
  await store.close({ snapshot: false });

  const openSnapshot = openInFreshProcess(dir, 0);
  t = performance.now();
  store = await Store.open({ dir });
  const openSnapshotSameProcessMs = performance.now() - t;
  svc = new MemoryService(store, { projectId, enqueueExtraction: true });

  // Durable creates through the whole write path (validation, exact + near-duplicate
  // checks, insert + FTS + tags + history + job, log append + fdatasync).
  const samples: number[] = [];
  const writes = 1000;
  const tAll = performance.now();
  let i = 0;
  for (const m of syntheticMemories(writes, 99)) {
    // One write per macrotask, as the engine serves requests: background work the store
    // schedules (full-text segment merges) runs between writes, outside the timed create.
    await new Promise((r) => setImmediate(r));
    const t0 = performance.now();
    const r = svc.create({ ...m, content: `${m.content} w${i++}` });
    samples.push(performance.now() - t0);
    if (r.status !== 'created') throw new Error(`bench write was ${r.status}`);
  }
  const totalMs = performance.now() - tAll;
  progress(`${writes} durable creates in ${Math.round(totalMs)} ms`);

  await store.close({ snapshot: false });
  const diskBytes = dirSize(dir);
  const openLog = openInFreshProcess(dir, writes);
  // Fold the log tail into the snapshot the naive baseline below starts from.
  store = await Store.open({ dir });
  await store.close();
  const snapshotBytes = fs.statSync(path.join(dir, 'snapshot.sqlite')).size;

  // Naive baseline in the same run: one insert, then export the whole database and write
  // it durably (temp + fsync + rename), per write.
  const SQL = await initSqlJs();
  const db = new SQL.Database(fs.readFileSync(path.join(dir, 'snapshot.sqlite')));
  const naive: number[] = [];
  const naiveWrites = size >= 100_000 ? 10 : 30;
  const naiveFile = path.join(dir, 'naive.sqlite');
  let k = 0;
  for (const m of syntheticMemories(naiveWrites, 7)) {
    const t0 = performance.now();
    const now = new Date().toISOString();
    db.run(
      `INSERT INTO memories (id, project_id, content, normalized_content, content_hash, doc_hash, title, tags, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [`naive-${k}`, projectId, m.content, m.content.toLowerCase(), `naive-hash-${k++}`, 'x', m.title, JSON.stringify(m.tags), now, now],
    );
    const bytes = db.export();
    const fd = fs.openSync(`${naiveFile}.tmp`, 'w');
    fs.writeSync(fd, bytes);
    fs.fsyncSync(fd);
    fs.closeSync(fd);
    fs.renameSync(`${naiveFile}.tmp`, naiveFile);
    naive.push(performance.now() - t0);
  }
  db.close();
  fs.rmSync(naiveFile, { force: true });

  const p50 = median(samples);
  const naiveP50 = median(naive);
  return {
    memories: size,
    preload_ms: round(preloadMs, 0),
    fts_compact_ms: round(compactMs, 0),
    create_p50_ms: round(p50),
    create_p99_ms: round(percentile(samples, 99)),
    create_mean_ms: round(mean(samples)),
    create_throughput_per_s: round(writes / (totalMs / 1000), 1),
    create_samples: samples.length,
    naive_export_per_write_p50_ms: round(naiveP50),
    naive_samples: naive.length,
    speedup_vs_naive_p50: round(naiveP50 / p50, 1),
    snapshot_ms: round(snapshotMs, 1),
    open_ms_snapshot: openSnapshot.ms,
    open_ms_snapshot_same_process: round(openSnapshotSameProcessMs, 1),
    open_ms_with_log_tail: openLog.ms,
    log_tail_records: openLog.replayed,
    snapshot_bytes: snapshotBytes,
    disk_bytes: diskBytes,
    peak_rss_mb: peakRssMb(),
  };
}
