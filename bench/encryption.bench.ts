/**
 * What encryption at rest costs (docs/encryption.md), plain and encrypted measured in the same run
 * over the same memories: durable create p50 (the writes alternate between the two stores, one per
 * macrotask, so both see the same machine), Store.open from the snapshot in a fresh process
 * (alternating, median of OPEN_RUNS each and of the ratio of each back-to-back pair), the
 * snapshot itself, and the bytes on disk.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import type { OpenResult } from './open.child';
import { Store } from '../src/core/store/store';
import { MemoryService } from '../src/core/memory/memoryService';
import { UserKeyring, userKey } from '../src/core/crypto/userKeys';
import { newKey } from '../src/core/crypto/aead';
import { formatRecoveryKey } from '../src/core/crypto/recoveryKey';
import { syntheticMemories } from './corpus';
import { median, peakRssMb, percentile, round } from './stats';

export interface EncryptionBenchResult {
  memories: number;
  plain_create_p50_ms: number;
  encrypted_create_p50_ms: number;
  plain_create_p99_ms: number;
  encrypted_create_p99_ms: number;
  /** (encrypted − plain) / plain, in percent. */
  create_p50_overhead_pct: number;
  plain_open_ms: number;
  encrypted_open_ms: number;
  open_overhead_pct: number;
  /** CPU time of the open (user + system): what encryption adds, less the machine's load. */
  plain_open_cpu_ms: number;
  encrypted_open_cpu_ms: number;
  open_cpu_overhead_pct: number;
  /** Median over the interleaved pairs of (encrypted / plain): each pair ran back to back, under the same load. */
  open_pair_ratio_wall: number;
  open_pair_ratio_cpu: number;
  open_runs: number;
  plain_snapshot_ms: number;
  encrypted_snapshot_ms: number;
  plain_snapshot_bytes: number;
  encrypted_snapshot_bytes: number;
  peak_rss_mb: number;
}

const progress = (s: string) => process.stderr.write(`  [encryption] ${s}\n`);
/** Opens of each store, alternating (AGENT_MEMORY_BENCH_OPEN_RUNS overrides: more on a busy machine). */
const OPEN_RUNS = Number(process.env.AGENT_MEMORY_BENCH_OPEN_RUNS) || 15;
const WRITES = 1000;

function openOnce(dir: string, recoveryKey: string | undefined): OpenResult {
  const r = spawnSync(process.execPath, ['--import', 'tsx', path.join(__dirname, 'open.child.ts'), dir], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, AGENT_MEMORY_RECOVERY_KEY: recoveryKey ?? '' },
  });
  if (r.status !== 0) throw new Error(`open child failed (exit ${r.status})`);
  return JSON.parse(r.stdout.trim().split('\n').pop()!) as OpenResult;
}

async function preload(
  dir: string,
  size: number,
  opts: Partial<Parameters<typeof Store.open>[0]>,
): Promise<{ store: Store; svc: MemoryService; snapshotMs: number }> {
  fs.rmSync(dir, { recursive: true, force: true });
  const store = await Store.open({ dir, ...opts });
  const svc = new MemoryService(store, { projectId: 'bench/project', enqueueExtraction: true });
  const batch: Parameters<MemoryService['create']>[0][] = [];
  for (const m of syntheticMemories(size, 1)) {
    batch.push({ ...m, allowNearDuplicate: true });
    if (batch.length === 2000) svc.createMany(batch.splice(0), { batchSize: 2000 });
  }
  if (batch.length) svc.createMany(batch.splice(0), { batchSize: 2000 });
  await store.compactFullTextIndex();
  const t = performance.now();
  await store.snapshot();
  return { store, svc, snapshotMs: performance.now() - t };
}

const pct = (a: number, b: number) => round(((a - b) / b) * 100, 1);

export async function runEncryptionBench(size: number, workDir: string): Promise<EncryptionBenchResult> {
  const user = userKey(newKey());
  const recoveryKey = formatRecoveryKey(user.key);
  const keys = new UserKeyring({ env: { AGENT_MEMORY_RECOVERY_KEY: recoveryKey } });
  const plainDir = path.join(workDir, `enc-plain-${size}`);
  const encDir = path.join(workDir, `enc-sealed-${size}`);
  const plain = await preload(plainDir, size, {});
  const enc = await preload(encDir, size, { keys, newStoreKey: () => user });
  if (!enc.store.fileCipher) throw new Error('the encrypted bench store is not encrypted');
  progress(`preloaded ${size} twice; snapshot plain ${Math.round(plain.snapshotMs)} ms, encrypted ${Math.round(enc.snapshotMs)} ms`);

  const samples = { plain: [] as number[], enc: [] as number[] };
  let i = 0;
  for (const m of syntheticMemories(WRITES, 99)) {
    for (const [which, svc] of [
      ['plain', plain.svc],
      ['enc', enc.svc],
    ] as const) {
      await new Promise((r) => setImmediate(r));
      const t0 = performance.now();
      const r = svc.create({ ...m, content: `${m.content} w${i}` });
      samples[which].push(performance.now() - t0);
      if (r.status !== 'created') throw new Error(`bench write was ${r.status}`);
    }
    i++;
  }
  progress(`${WRITES} durable creates into each store`);
  await plain.store.close();
  await enc.store.close();

  const opens = { plain: [] as OpenResult[], enc: [] as OpenResult[] };
  for (let k = 0; k < OPEN_RUNS; k++) {
    // Alternating which goes first, so neither always finds the other's pages in the cache.
    const pair = [() => opens.plain.push(openOnce(plainDir, undefined)), () => opens.enc.push(openOnce(encDir, recoveryKey))];
    for (const f of k % 2 ? pair.reverse() : pair) f();
  }
  const wall = (o: OpenResult[]) => o.map((x) => x.open_ms);
  const cpu = (o: OpenResult[]) => o.map((x) => x.open_cpu_ms);
  const pairRatio = (f: (x: OpenResult) => number) => round(median(opens.enc.map((e, k) => f(e) / f(opens.plain[k]!))), 3);
  progress(`open plain ${wall(opens.plain).map(Math.round).join(' / ')} ms, encrypted ${wall(opens.enc).map(Math.round).join(' / ')} ms`);
  const p = median(samples.plain);
  const e = median(samples.enc);
  const po = median(wall(opens.plain));
  const eo = median(wall(opens.enc));
  const pc = median(cpu(opens.plain));
  const ec = median(cpu(opens.enc));
  return {
    memories: size,
    plain_create_p50_ms: round(p),
    encrypted_create_p50_ms: round(e),
    plain_create_p99_ms: round(percentile(samples.plain, 99)),
    encrypted_create_p99_ms: round(percentile(samples.enc, 99)),
    create_p50_overhead_pct: pct(e, p),
    plain_open_ms: round(po, 1),
    encrypted_open_ms: round(eo, 1),
    open_overhead_pct: pct(eo, po),
    plain_open_cpu_ms: round(pc, 1),
    encrypted_open_cpu_ms: round(ec, 1),
    open_cpu_overhead_pct: pct(ec, pc),
    open_pair_ratio_wall: pairRatio((x) => x.open_ms),
    open_pair_ratio_cpu: pairRatio((x) => x.open_cpu_ms),
    open_runs: OPEN_RUNS,
    plain_snapshot_ms: round(plain.snapshotMs, 1),
    encrypted_snapshot_ms: round(enc.snapshotMs, 1),
    plain_snapshot_bytes: fs.statSync(path.join(plainDir, 'snapshot.sqlite')).size,
    encrypted_snapshot_bytes: fs.statSync(path.join(encDir, 'snapshot.sqlite')).size,
    peak_rss_mb: peakRssMb(),
  };
}
