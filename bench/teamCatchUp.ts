/**
 * A new member catching up (docs/team.md "Pulling"), alone: `size` memories pushed to a
 * throw-away PostgreSQL 15 cluster (test/helpers/pgCluster.ts), then one empty store pulls them
 * all. Prints the wall-clock time and this process's CPU time of the catch-up: on a shared machine
 * the CPU time is the steadier figure to compare two versions by (bench/RESULTS-team.md).
 *   node --import tsx bench/teamCatchUp.ts 100000
 * The full team benchmark (upload, push, steady state, server size) is bench/team.bench.ts.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import pg from 'pg';
import { Store } from '../src/core/store/store';
import { ensureServerSchema } from '../src/core/team/serverSchema';
import { syncOnce, type SyncContext } from '../src/core/team/sync';
import { machineIdOf } from '../src/core/team/localState';
import { pushChanges } from '../src/core/team/server';
import { startPgCluster } from '../test/helpers/pgCluster';
import { pushedChange } from './teamCorpus';

const PROJECT = 'github.com/acme/team-bench';
const SCHEMA = 'am_bench';

async function main(size: number): Promise<void> {
  const cluster = await startPgCluster();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'am-team-catchup-'));
  try {
    const conn = { host: cluster.host, port: cluster.port, user: cluster.user, password: cluster.password, database: cluster.database };
    const setup = new pg.Client(conn);
    await setup.connect();
    await ensureServerSchema(setup, SCHEMA, PROJECT);
    for (let i = 0; i < size; i += 1000) {
      await pushChanges(
        setup,
        SCHEMA,
        'cy-desktop',
        Array.from({ length: Math.min(1000, size - i) }, (_, k) => pushedChange(i + k, 'cy-desktop')),
      );
    }
    await setup.end();
    const store = await Store.open({ dir: path.join(dir, 'late') });
    const client = new pg.Client(conn);
    await client.connect();
    const ctx: SyncContext = {
      store,
      client,
      schema: SCHEMA,
      projectId: PROJECT,
      machine: machineIdOf(store, (fn) => store.transaction(fn)),
      author: 'ben',
      batch: 1000,
    };
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    const r = await syncOnce(ctx);
    const cpu = process.cpuUsage(c0);
    const ms = performance.now() - t0;
    const rows = Number(store.get<{ n: number }>('SELECT count(*) AS n FROM memories')!.n);
    const line = {
      memories: size,
      pulled: r.pulled,
      rows,
      catch_up_s: +(ms / 1000).toFixed(1),
      cpu_s: +((cpu.user + cpu.system) / 1e6).toFixed(1),
    };
    process.stdout.write(`${JSON.stringify({ ...line, load_average: os.loadavg().map((l) => +l.toFixed(1)) })}\n`);
    await client.end();
    await store.close();
  } finally {
    cluster.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

void main(Number(process.argv[2] ?? 20000)).catch((e: unknown) => {
  process.stderr.write(`${(e as Error).stack}\n`);
  process.exit(1);
});
