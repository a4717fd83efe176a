// @tier durability
// Team memory under faults, against a real PostgreSQL 15 (docs/team.md "Crashes"): three client
// processes with their own stores write, edit and delete concurrently and sync between writes,
// while the server is stopped with `-m immediate` and started again and one client is killed
// with SIGKILL mid-run and started again on its store; then the clients' connections are cut
// mid-transaction (pg_terminate_backend) again and again until they finish. Afterwards every acknowledged create is
// on every machine exactly once, every machine holds the same versions, the server never took
// two changes on one base, and the conflicts recorded are real ones.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import pg from 'pg';
import { startPgCluster, type PgCluster, pgSkip } from '../../helpers/pgCluster';
import { tmpDir } from '../../helpers/tmp';
import { Store } from '../../../src/core/store/store';
import { rowToRecord } from '../../../src/core/memory/rows';
import { ensureServerSchema } from '../../../src/core/team/serverSchema';
import { syncOnce } from '../../../src/core/team/sync';
import { machineIdOf, openConflicts } from '../../../src/core/team/localState';
import { sharedOf, stateHash } from '../../../src/core/team/payload';
import { realDelay, until } from '../../helpers/until';

const skip = pgSkip();
const PROJECT = 'github.com/acme/team-concurrency';
const SCHEMA = 'am_concurrency';
const CHILD = path.join(__dirname, '..', '..', 'fixtures', 'team-client.ts');
// Enough rounds after the server's restart for the connection cutter to meet open transactions
// even on a loaded machine (36 left it a second or two: on a busy 2-core machine it met none in
// 6 runs of 17).
const COUNT = 60;
let cluster: PgCluster;

before(async () => {
  if (!skip) cluster = await startPgCluster();
});
after(() => cluster?.destroy());

function conn() {
  return { host: cluster.host, port: cluster.port, user: cluster.user, password: cluster.password, database: cluster.database };
}

interface Child {
  name: string;
  dir: string;
  acks: string[];
  failedRounds: number;
  proc?: ChildProcess;
  done: Promise<void>;
}

/** Starts (or starts again) client `c` on its store, writing rounds `from` to `count` - 1. */
function run(c: Omit<Child, 'done' | 'proc'> & Partial<Child>, from: number, count = COUNT): Child {
  const proc = spawn(
    process.execPath,
    ['--import', 'tsx', CHILD, c.dir, c.name, SCHEMA, JSON.stringify(conn()), String(count), String(from)],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let buf = '';
  const child = c as Child;
  child.proc = proc;
  child.done = new Promise((resolve, reject) => {
    proc.stderr!.on('data', (d: Buffer) => {
      child.failedRounds += (d.toString('utf8').match(/round failed/g) ?? []).length;
    });
    proc.stdout!.on('data', (d: Buffer) => {
      buf += d.toString('utf8');
      let nl;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        if (line.startsWith('ACK ')) child.acks.push(line.slice(4));
      }
    });
    proc.on('exit', (code, signal) => (code === 0 || signal === 'SIGKILL' ? resolve() : reject(new Error(`${c.name} exited ${code}`))));
  });
  return child;
}

/** A superuser session of the test's own (never cut: the cutter cuts the clients' user only). */
async function adminSession(database = 'postgres'): Promise<pg.Client> {
  const admin = new pg.Client({ ...conn(), user: 'postgres', database, password: fs.readFileSync(path.join(cluster.dir, 'pw'), 'utf8') });
  admin.on('error', () => undefined);
  await admin.connect();
  return admin;
}

/**
 * Cuts the clients' connections while a transaction of theirs is open (a push or a page being
 * applied), looking again as soon as each look has answered, through a superuser session of its
 * own, until stopped. A round's transactions last a few milliseconds, and on a loaded machine the
 * looks alone met none in some runs: so a second session holds the push's counter row (the lock
 * every push takes first, server.ts) for 150 ms of every 250, and a push that starts then waits
 * inside its transaction, where the next look finds it. Resolves with how many were cut.
 */
function dropConnectionsMidSync(): { cut(): number; stop(): Promise<number> } {
  let running = true;
  let dropped = 0;
  const holding = (async () => {
    const holder = await adminSession(cluster.database);
    try {
      while (running) {
        await holder.query('BEGIN');
        await holder.query(`SELECT seq FROM ${SCHEMA}.counter WHERE id = 1 FOR UPDATE`);
        await realDelay(150);
        await holder.query('COMMIT');
        await realDelay(100);
      }
    } finally {
      await holder.end().catch(() => undefined);
    }
  })();
  const loop = (async () => {
    const admin = await adminSession();
    try {
      while (running) {
        const r = await admin.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity
             WHERE usename = $1 AND xact_start IS NOT NULL AND pid <> pg_backend_pid()) t`,
          [cluster.user],
        );
        dropped += r.rows[0]!.n;
        await new Promise((res) => setImmediate(res)); // the children's output is read between looks
      }
    } finally {
      await admin.end().catch(() => undefined);
    }
  })();
  return {
    cut: () => dropped,
    stop: async () => {
      running = false;
      await Promise.all([loop, holding]);
      return dropped;
    },
  };
}

test(
  'concurrent clients, a server restart and a killed client: every acknowledged change everywhere, once',
  { skip, timeout: 600_000 },
  async () => {
    const setup = new pg.Client(conn());
    await setup.connect();
    await ensureServerSchema(setup, SCHEMA, PROJECT);
    await setup.end();
    const root = tmpDir('am-team-conc-');
    const clients = ['ana', 'ben', 'cy'].map((name) => run({ name, dir: path.join(root, name), acks: [], failedRounds: 0 }, 0));

    // Kill ben after some writes, restart the server while the others go on, then start ben again.
    await until('ben to acknowledge 8 writes', () => clients[1]!.acks.length >= 8, { timeoutMs: 120_000 });
    clients[1]!.proc!.kill('SIGKILL');
    await clients[1]!.done;
    await until('ana to acknowledge 14 writes', () => clients[0]!.acks.length >= 14, { timeoutMs: 120_000 });
    cluster.stop('immediate');
    await new Promise((r) => setTimeout(r, 1500));
    cluster.start();
    clients[1] = run(clients[1]!, clients[1]!.acks.length);
    // Connections dropped mid-sync until the clients are done (their last rounds retry until one succeeds).
    const dropper = dropConnectionsMidSync();
    const exited = () => clients.every((c) => c.proc!.exitCode !== null);
    await until(
      'the clients to be nearly done with a connection cut on the way, or done',
      () => (clients.every((c) => c.acks.length >= COUNT - 6) && dropper.cut() > 0) || exited(),
      { timeoutMs: 120_000 },
    );
    // While the server was down the clients wrote on and left their rounds for the end: a loaded
    // machine can run what is left between two looks of the cutter. Then they write a few more
    // rounds each, until a connection is cut.
    let more = 0;
    for (; dropper.cut() === 0 && more < 5; more++) {
      await Promise.all(clients.map((c) => c.done));
      clients.forEach((c, i) => (clients[i] = run(c, c.acks.length, c.acks.length + 8)));
      await until('a connection cut, or the clients done again', () => dropper.cut() > 0 || exited(), { timeoutMs: 120_000 });
    }
    const dropped = await dropper.stop();
    console.log(`team concurrency: ${dropped} connections cut mid-transaction, ${more} extra rounds of writes for it`);
    await Promise.all(clients.map((c) => c.done));
    assert.ok(dropped > 0, 'a connection was cut in the middle of a transaction');
    // The restart was met: some round failed on it, and was done again.
    assert.ok(
      clients.some((c) => c.failedRounds > 0),
      'a round met the stopped server',
    );

    // Every machine syncs until nothing moves (two quiet rounds in a row).
    const stores = await Promise.all(clients.map((c) => Store.open({ dir: c.dir })));
    const client = new pg.Client(conn());
    await client.connect();
    try {
      for (let pass = 0; pass < 3; pass++) {
        for (const [i, store] of stores.entries()) {
          await syncOnce({
            store,
            client,
            schema: SCHEMA,
            projectId: PROJECT,
            machine: machineIdOf(store, (fn) => store.transaction(fn)),
            author: clients[i]!.name,
          });
        }
      }
      const versions = stores.map((s) => {
        const map = new Map<string, string>();
        for (const r of s.all('SELECT * FROM memories ORDER BY id')) {
          const m = rowToRecord(r);
          map.set(m.id, stateHash(sharedOf(m)));
        }
        return map;
      });
      // Every acknowledged create is on every machine exactly once.
      const acked = clients.flatMap((c) => c.acks);
      assert.ok(acked.length >= COUNT * 3 - 3, `creates acknowledged: ${acked.length}`);
      for (const s of stores) {
        for (const text of acked) {
          const n = s.get<{ n: number }>('SELECT count(*) AS n FROM memories WHERE content = ?', [text])!.n;
          assert.equal(n, 1, `"${text}" once on every machine`);
        }
      }
      // The same versions everywhere.
      for (const v of versions.slice(1)) assert.deepEqual([...v.entries()], [...versions[0]!.entries()]);
      // The server never took two changes made on one base of one memory.
      const twice = await client.query(`SELECT memory_id, base_seq, count(*) FROM ${SCHEMA}.changes GROUP BY 1, 2 HAVING count(*) > 1`);
      assert.equal(twice.rowCount, 0, JSON.stringify(twice.rows));
      const heads = await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${SCHEMA}.heads`);
      assert.equal(heads.rows[0]!.n, versions[0]!.size);
      // Conflicts are real: the version kept aside differs from the one that won.
      const conflicts = stores.reduce((n, s) => n + openConflicts(s).length, 0);
      process.stdout.write(
        `# ${acked.length} creates, ${versions[0]!.size} memories, ${conflicts} conflicts, ${clients.map((c) => c.failedRounds).join('/')} failed rounds, ${dropped} connections cut mid-transaction\n`,
      );
      for (const s of stores) {
        for (const c of openConflicts(s)) {
          const now = rowToRecord(s.get('SELECT * FROM memories WHERE id = ?', [c.memoryId])!);
          assert.notEqual(stateHash(c.local), stateHash(sharedOf(now)));
        }
      }
    } finally {
      await client.end();
      await Promise.all(stores.map((s) => s.close()));
    }
  },
);
