/**
 * Team memory benchmark (docs/team.md) against a real PostgreSQL 15 on this machine, the
 * throw-away cluster of the tests (test/helpers/pgCluster.ts, fsync off like any test cluster):
 *   - push throughput: a store of 2,000 memories uploaded by its first connect (the whole path),
 *     and the rest of the `size` memories pushed in batches of 1,000 as other members would;
 *   - catch-up: a new member pulling all of them into an empty store (vectors excluded: each
 *     machine computes its own; the pulled memories are left `pending` and counted);
 *   - steady state: 5 simulated clients (each its own store and connection, one process), one
 *     writes and syncs, the others sync every 50 ms: the time from the write's commit to the
 *     memory being in every other store, p50 / p99;
 *   - the server's CPU time (its processes' user + system) over the upload and the catch-up,
 *     and the project schema's size, both per 100,000 memories.
 * Opt-in (needs postgresql-15): npm run bench -- --sections team --sizes 10000,100000
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import pg from 'pg';
import { Store } from '../src/core/store/store';
import { MemoryService } from '../src/core/memory/memoryService';
import { ensureServerSchema } from '../src/core/team/serverSchema';
import { syncOnce, type SyncContext } from '../src/core/team/sync';
import { machineIdOf } from '../src/core/team/localState';
import { pushChanges } from '../src/core/team/server';
import { startPgCluster, type PgCluster } from '../test/helpers/pgCluster';
import { median, peakRssMb, percentile, round } from './stats';
import { memoryText, pushedChange } from './teamCorpus';

const PROJECT = 'github.com/acme/team-bench';
const SCHEMA = 'am_bench';
const CLIENTS = 5;
const LATENCY_SAMPLES = 100;
const UPLOAD_STORE = 2000;

const progress = (s: string) => process.stderr.write(`  [team] ${s}\n`);

/** CPU seconds used so far by the cluster's processes (postgres runs as `nobody` in the bench cluster). */
function serverCpuSeconds(cluster: PgCluster): number {
  const tick = 100; // USER_HZ on Linux
  let total = 0;
  for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      const comm = fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
      if (comm !== 'postgres' && !cmd.includes(cluster.dir)) continue;
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      total += (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) / tick; // utime stime cutime cstime
    } catch {
      /* gone */
    }
  }
  return total;
}

interface Machine {
  store: Store;
  svc: MemoryService;
  ctx: SyncContext;
  client: pg.Client;
}

async function machine(cluster: PgCluster, dir: string, name: string): Promise<Machine> {
  const store = await Store.open({ dir });
  const svc = new MemoryService(store, { projectId: PROJECT });
  const client = new pg.Client({
    host: cluster.host,
    port: cluster.port,
    user: cluster.user,
    password: cluster.password,
    database: cluster.database,
  });
  await client.connect();
  const ctx: SyncContext = {
    store,
    client,
    schema: SCHEMA,
    projectId: PROJECT,
    machine: machineIdOf(store, (fn) => store.transaction(fn)),
    author: name,
    batch: 1000,
  };
  return { store, svc, ctx, client };
}

async function close(m: Machine): Promise<void> {
  await m.client.end();
  await m.store.close();
}

export async function runTeamBench(size: number, workDir: string) {
  const cluster = await startPgCluster();
  try {
    const setup = new pg.Client({
      host: cluster.host,
      port: cluster.port,
      user: cluster.user,
      password: cluster.password,
      database: cluster.database,
    });
    await setup.connect();
    await ensureServerSchema(setup, SCHEMA, PROJECT);

    // The whole path from a store: a first member's store of UPLOAD_STORE memories uploaded by its first connect.
    const first = await machine(cluster, path.join(workDir, 'first'), 'ana');
    const upload = Math.min(size, UPLOAD_STORE);
    first.svc.createMany(
      Array.from({ length: upload }, (_, k) => ({ content: memoryText(k, 'ana') })),
      { batchSize: 5000 },
    );
    let cpu0 = serverCpuSeconds(cluster);
    let t0 = performance.now();
    const up = await syncOnce(first.ctx);
    const uploadMs = performance.now() - t0;
    progress(`uploaded a store of ${up.pushed} in ${round(uploadMs / 1000, 1)} s`);

    // The rest of the corpus pushed as other members would (the server's side of pushing; a store
    // of 100,000 made through the write path first would take minutes that measure the store, not the sync).
    t0 = performance.now();
    let pushed = up.pushed;
    for (let i = upload; i < size; i += 1000) {
      const batch = Array.from({ length: Math.min(1000, size - i) }, (_, k) => pushedChange(i + k, first.ctx.machine));
      const outcomes = await pushChanges(setup, SCHEMA, 'bench-pusher', batch);
      pushed += outcomes.filter((o) => o.status === 'accepted').length;
    }
    const pushMs = performance.now() - t0;
    const pushCpu = serverCpuSeconds(cluster) - cpu0;
    progress(`pushed ${pushed - up.pushed} more in ${round(pushMs / 1000, 1)} s`);

    // A new member catches up.
    const late = await machine(cluster, path.join(workDir, 'late'), 'ben');
    cpu0 = serverCpuSeconds(cluster);
    t0 = performance.now();
    const caught = await syncOnce(late.ctx);
    const catchUpMs = performance.now() - t0;
    const catchUpCpu = serverCpuSeconds(cluster) - cpu0;
    const pending = Number(late.store.get<{ n: number }>("SELECT count(*) AS n FROM memories WHERE embedding_status = 'pending'")!.n);
    progress(`caught up on ${caught.pulled} in ${round(catchUpMs / 1000, 1)} s`);
    await close(late);

    const sizeBytes = Number(
      (
        await setup.query<{ b: string }>(
          `SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint AS b FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind IN ('r', 'm')`,
          [SCHEMA],
        )
      ).rows[0]!.b,
    );
    await setup.end();

    // Steady state: CLIENTS machines, all caught up; one writes, the others poll.
    const members: Machine[] = [first];
    for (let c = 1; c < CLIENTS; c++) {
      const m = await machine(cluster, path.join(workDir, `member${c}`), `member${c}`);
      await syncOnce(m.ctx);
      members.push(m);
    }
    const latencies: number[] = [];
    for (let s = 0; s < LATENCY_SAMPLES; s++) {
      const writer = members[s % CLIENTS]!;
      const others = members.filter((m) => m !== writer);
      const r = writer.svc.create({ content: memoryText(size + s, `steady${s % CLIENTS}`) });
      if (r.status !== 'created') continue;
      const id = r.memory.id;
      const start = performance.now();
      await syncOnce(writer.ctx);
      const seen = new Set<Machine>();
      while (seen.size < others.length) {
        await new Promise((res) => setTimeout(res, 50));
        for (const o of others) {
          if (seen.has(o)) continue;
          await syncOnce(o.ctx);
          if (o.store.get('SELECT 1 AS x FROM memories WHERE id = ?', [id])) seen.add(o);
        }
      }
      latencies.push(performance.now() - start);
    }
    for (const m of members) await close(m);
    const per100k = 100_000 / size;
    return {
      memories: size,
      store_upload_memories: up.pushed,
      store_upload_per_s: round(up.pushed / (uploadMs / 1000), 0),
      push_per_s: round((pushed - up.pushed) / (pushMs / 1000), 0),
      catch_up_s: round(catchUpMs / 1000, 2),
      pull_per_s: round(caught.pulled / (catchUpMs / 1000), 0),
      catch_up_pending_vectors: pending,
      sync_latency_p50_ms: round(median(latencies), 1),
      sync_latency_p99_ms: round(percentile(latencies, 99), 1),
      latency_samples: latencies.length,
      clients: CLIENTS,
      server_cpu_s_per_100k_push: round(pushCpu * per100k, 1),
      server_cpu_s_per_100k_catch_up: round(catchUpCpu * per100k, 1),
      server_mb_per_100k: round((sizeBytes / 1024 / 1024) * per100k, 1),
      peak_rss_mb: peakRssMb(),
    };
  } finally {
    cluster.destroy();
  }
}

if (require.main === module) {
  const size = Number(process.argv[2] ?? 10000);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'am-team-bench-'));
  runTeamBench(size, dir)
    .then((r) => {
      process.stdout.write(JSON.stringify(r, null, 2) + '\n');
      fs.rmSync(dir, { recursive: true, force: true });
    })
    .catch((e) => {
      process.stderr.write(`${(e as Error).stack}\n`);
      process.exit(1);
    });
}
