/**
 * Takeover: how long the clients of a shared store wait when its owner is killed
 * (ARCHITECTURE.md "One owner, many clients"). Every process is a real one, connected as the CLI
 * connects (bench/takeover.child.ts: EngineClient + SharedTransport, the bundled engine worker,
 * the default backoff). Each round:
 *
 *  1. cold start (the baseline, measured in the same run): nobody owns the store; a new process
 *     connects and creates a memory — it opens the store itself and becomes the owner;
 *  2. N clients connect to that owner and each creates one memory (steady-state writes);
 *  3. the owner is killed with SIGKILL; at once every client sends a create, and a new process
 *     (modules loaded, not connected) connects and sends its first create;
 *  4. figures, from the kill: the first acknowledged write of a surviving client, the last one
 *     (every client written), and the new client's first acknowledged write;
 *  5. everyone shuts down cleanly, so the next round starts with nobody owning the store.
 *
 * Rounds alternate between the client counts so both see the same machine load. The figures
 * are medians over the rounds, with the ratio to the cold start's median and the Mann–Whitney
 * p-value of the difference (bench/stats.ts).
 *
 *   npm run bench:takeover [-- --runs 10 --clients 1,8 --memories 1000 --json]
 *   npm run bench -- --sections takeover   (the same with the defaults; opt-in, not in the default run)
 * Results: bench/RESULTS-takeover.md.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as esbuild from 'esbuild';
import { EngineClient } from '../src/engine/client/engineClient';
import { Worker } from 'node:worker_threads';
import { syntheticMemories } from './corpus';
import { mannWhitneyP, median, round } from './stats';

const ROOT = path.resolve(__dirname, '..');
const CHILD = path.join(__dirname, 'takeover.child.ts');

export interface TakeoverOptions {
  runs: number;
  clients: number[];
  /** Memories in the store before the first round (the open the new owner does replays and loads them). */
  memories: number;
  workDir: string;
  log?: (line: string) => void;
}

type Line = Record<string, unknown> & { t: number };

/** A bench child: its JSON lines, in order, awaited one by one. */
class Child {
  readonly proc: ChildProcess;
  private readonly lines: Line[] = [];
  private readonly waiters: (() => void)[] = [];
  readonly exited: Promise<void>;

  constructor(home: string, ws: string, name: string, engine: string) {
    this.proc = spawn(process.execPath, ['--import', 'tsx', CHILD, home, ws, name, engine], {
      cwd: ROOT,
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    this.exited = new Promise((r) => this.proc.once('exit', () => r()));
    let buf = '';
    this.proc.stdout!.on('data', (d: Buffer) => {
      buf += d.toString('utf8');
      for (let nl = buf.indexOf('\n'); nl !== -1; nl = buf.indexOf('\n')) {
        this.lines.push(JSON.parse(buf.slice(0, nl)) as Line);
        buf = buf.slice(nl + 1);
        for (const w of this.waiters.splice(0)) w();
      }
    });
  }

  send(line: string): void {
    this.proc.stdin!.write(`${line}\n`);
  }

  /** The next line having `key` (lines are consumed in order). */
  async next(key: string, timeoutMs = 600_000): Promise<Line> {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const i = this.lines.findIndex((l) => key in l || 'fail' in l || 'error' in l);
      if (i >= 0) {
        const [line] = this.lines.splice(i, 1);
        if (!(key in line!)) throw new Error(`bench child: expected ${key}, got ${JSON.stringify(line)}`);
        return line!;
      }
      if (this.proc.exitCode !== null) throw new Error(`bench child: exited (code ${this.proc.exitCode}) before a ${key} line`);
      if (Date.now() > end) throw new Error(`bench child: no ${key} line within ${timeoutMs / 1000} s`);
      await new Promise<void>((r) => {
        this.waiters.push(r);
        setTimeout(r, 1000).unref();
      });
    }
  }

  async exit(): Promise<void> {
    if (this.proc.exitCode !== null || this.proc.signalCode !== null) return;
    this.send('exit');
    const killer = setTimeout(() => this.proc.kill('SIGKILL'), 30_000);
    await this.exited;
    clearTimeout(killer);
  }
}

const now = () => performance.timeOrigin + performance.now();

/** dist-like engine bundle (engine.js + sql-wasm.wasm + migrations/) in the work folder: what the CLI starts as owner. */
async function bundleEngine(dir: string): Promise<string> {
  fs.mkdirSync(dir, { recursive: true });
  await esbuild.build({
    entryPoints: { engine: path.join(ROOT, 'src/engine/worker/worker.ts') },
    outdir: dir,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['vscode', '@energetic-ai/*'],
    logLevel: 'warning',
  });
  fs.cpSync(path.join(ROOT, 'node_modules/sql.js/dist/sql-wasm.wasm'), path.join(dir, 'sql-wasm.wasm'));
  fs.cpSync(path.join(ROOT, 'migrations'), path.join(dir, 'migrations'), { recursive: true });
  return path.join(dir, 'engine.js');
}

/** A folder that looks like a clone (the project id comes from its origin), with the bench's settings. */
function workspace(root: string): string {
  const ws = path.join(root, 'ws');
  fs.mkdirSync(path.join(ws, '.git'), { recursive: true });
  fs.writeFileSync(path.join(ws, '.git', 'config'), '[remote "origin"]\n\turl = git@github.com:bench/takeover.git\n');
  fs.writeFileSync(path.join(ws, '.git', 'HEAD'), 'ref: refs/heads/main\n');
  // The hash embedder: no model to load, so the figures are the takeover's own.
  fs.writeFileSync(path.join(ws, 'agent.yaml'), 'embedding:\n  provider: hash\n');
  return ws;
}

async function preload(home: string, ws: string, engine: string, count: number, root: string): Promise<void> {
  if (!count) return;
  const file = path.join(root, 'corpus.jsonl');
  const lines = [JSON.stringify({ format: 'agent-memory-jsonl', version: 1 })];
  for (const m of syntheticMemories(count)) lines.push(JSON.stringify(m));
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
  const client = new EngineClient({ init: { home, workspaceRoot: ws }, spawn: (i) => new Worker(engine, { workerData: i }) });
  await client.start();
  await client.request('import', { path: file });
  await client.shutdown(30_000);
}

interface RoundResult {
  clients: number;
  coldStartMs: number;
  steadyWriteMs: number[];
  firstWriteMs: number;
  allWrittenMs: number;
  newClientMs: number;
  failures: string[];
}

let noteNo = 0;
const note = (who: string) => `${who} takeover bench note ${++noteNo}: step ${noteNo % 97} waits for queue ${noteNo % 13} ${now()}`;

async function takeoverRound(n: number, home: string, ws: string, engine: string): Promise<RoundResult> {
  const spawnChild = (name: string) => new Child(home, ws, name, engine);
  const failures: string[] = [];
  const owner = spawnChild('owner');
  const clients = Array.from({ length: n }, (_, i) => spawnChild(`client ${i + 1}`));
  const fresh = spawnChild('new client');
  const everyone = [owner, ...clients, fresh];
  try {
    await Promise.all(everyone.map((c) => c.next('loaded')));
    // 1. Cold start: nobody owns the store.
    const t0 = now();
    owner.send('start');
    owner.send(`write ${note('owner')}`);
    if ((await owner.next('ready')).ready !== 'owner') throw new Error('the first process did not become the owner');
    const coldStartMs = (await owner.next('ack')).t - t0;
    // 2. The clients connect and write once.
    for (const c of clients) c.send('start');
    for (const c of clients) if ((await c.next('ready')).ready !== 'client') throw new Error('a client became the owner');
    const steadyWriteMs: number[] = [];
    for (const c of clients) {
      const s = now();
      c.send(`write ${note('client')}`);
      steadyWriteMs.push((await c.next('ack')).t - s);
    }
    // 3. The owner is killed; everyone writes at once.
    owner.proc.kill('SIGKILL');
    const kill = now();
    if (process.env.TAKEOVER_DEBUG) process.stderr.write(`${Math.round(kill)} bench: owner killed\n`);
    for (const c of clients) c.send(`write ${note('survivor')}`);
    fresh.send('start');
    fresh.send(`write ${note('new client')}`);
    const acks = await Promise.all(
      clients.map((c) =>
        c.next('ack').catch((e: Error) => {
          failures.push(e.message);
          return { t: NaN };
        }),
      ),
    );
    const freshAck = await fresh.next('ack').catch((e: Error) => {
      failures.push(e.message);
      return { t: NaN };
    });
    const after = acks.map((a) => a.t - kill);
    return {
      clients: n,
      coldStartMs,
      steadyWriteMs,
      firstWriteMs: Math.min(...after),
      allWrittenMs: Math.max(...after),
      newClientMs: freshAck.t - kill,
      failures,
    };
  } finally {
    await Promise.all(everyone.map((c) => c.exit()));
  }
}

const ms = (x: number) => Math.round(x);

function summarize(rounds: RoundResult[], clients: number[]) {
  const cold = rounds.map((r) => r.coldStartMs).filter(Number.isFinite);
  const coldMedian = median(cold);
  const figure = (xs: number[]) => {
    const ok = xs.filter(Number.isFinite);
    return {
      median_ms: ms(median(ok)),
      min_ms: ms(Math.min(...ok)),
      max_ms: ms(Math.max(...ok)),
      runs: ok.length,
      ratio_to_cold_start: round(median(ok) / coldMedian, 2),
      p_vs_cold_start: round(mannWhitneyP(ok, cold), 4),
      samples_ms: ok.map(ms),
    };
  };
  const byClients: Record<string, object> = {};
  for (const n of clients) {
    const rs = rounds.filter((r) => r.clients === n);
    byClients[String(n)] = {
      next_write_after_kill: figure(rs.map((r) => r.firstWriteMs)),
      every_client_written_after_kill: figure(rs.map((r) => r.allWrittenMs)),
      new_client_first_write_after_kill: figure(rs.map((r) => r.newClientMs)),
      failures: rs.flatMap((r) => r.failures),
    };
  }
  return {
    baseline: {
      cold_start_first_write: {
        median_ms: ms(coldMedian),
        min_ms: ms(Math.min(...cold)),
        max_ms: ms(Math.max(...cold)),
        runs: cold.length,
        samples_ms: cold.map(ms),
      },
      steady_client_write_p50_ms: round(median(rounds.flatMap((r) => r.steadyWriteMs)), 1),
    },
    clients: byClients,
  };
}

export async function runTakeoverBench(opts: TakeoverOptions): Promise<object> {
  const log = opts.log ?? (() => undefined);
  fs.mkdirSync(opts.workDir, { recursive: true });
  const root = fs.mkdtempSync(path.join(opts.workDir, 'takeover-'));
  try {
    const engine = await bundleEngine(path.join(root, 'engine'));
    const home = path.join(root, 'home');
    const ws = workspace(root);
    await preload(home, ws, engine, opts.memories, root);
    const rounds: RoundResult[] = [];
    for (let r = 0; r < opts.runs; r++) {
      for (const n of opts.clients) {
        const result = await takeoverRound(n, home, ws, engine);
        log(
          `takeover bench: round ${r + 1}/${opts.runs}, ${n} client(s): cold start ${ms(result.coldStartMs)} ms, ` +
            `next write ${ms(result.firstWriteMs)} ms, all ${ms(result.allWrittenMs)} ms, new client ${ms(result.newClientMs)} ms` +
            (result.failures.length ? `, ${result.failures.length} failed` : ''),
        );
        rounds.push(result);
      }
    }
    return {
      machine: { cpus: os.cpus().length, load_avg_1m_at_end: round(os.loadavg()[0]!, 1), node: process.version },
      memories: opts.memories,
      runs: opts.runs,
      ...summarize(rounds, opts.clients),
      target: 'next_write_after_kill median ≤ 2000 ms on a quiet machine',
    };
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

/** The readable table of a result of runTakeoverBench. */
export function takeoverTable(result: ReturnType<typeof summarize> & { runs: number }): string {
  const rows: string[][] = [['clients', 'figure (from the kill)', 'median ms', 'min–max ms', 'runs', '× cold start', 'p vs cold start']];
  for (const [n, figures] of Object.entries(result.clients)) {
    for (const [name, f] of Object.entries(figures as Record<string, unknown>)) {
      if (name === 'failures') continue;
      const x = f as ReturnType<typeof summarize>['baseline']['cold_start_first_write'] & {
        ratio_to_cold_start: number;
        p_vs_cold_start: number;
      };
      rows.push([
        n,
        name,
        String(x.median_ms),
        `${x.min_ms}–${x.max_ms}`,
        String(x.runs),
        String(x.ratio_to_cold_start),
        String(x.p_vs_cold_start),
      ]);
    }
  }
  const b = result.baseline.cold_start_first_write;
  rows.push(['–', 'baseline: cold start, first write', String(b.median_ms), `${b.min_ms}–${b.max_ms}`, String(b.runs), '1', '–']);
  rows.push(['–', 'steady client write (p50)', String(result.baseline.steady_client_write_p50_ms), '', '', '', '']);
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((c, i) => (i < 2 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ')).join('\n');
}

if (require.main === module) {
  const args = process.argv.slice(2);
  const opt = (name: string, fallback: string) => (args.includes(name) ? args[args.indexOf(name) + 1]! : fallback);
  const json = args.includes('--json');
  runTakeoverBench({
    runs: Number(opt('--runs', '10')),
    clients: opt('--clients', '1,8').split(',').map(Number),
    memories: Number(opt('--memories', '1000')),
    workDir: path.join(ROOT, '.bench'),
    log: (l) => process.stderr.write(`${l}\n`),
  }).then(
    (r) => {
      const failures = Object.values((r as ReturnType<typeof summarize>).clients).flatMap((c) => (c as { failures: string[] }).failures);
      process.stdout.write(json ? `${JSON.stringify(r)}\n` : `${takeoverTable(r as never)}\n`);
      if (failures.length) process.exitCode = 1;
    },
    (e: unknown) => {
      process.stderr.write(`takeover bench failed: ${e instanceof Error ? e.stack : String(e)}\n`);
      process.exit(1);
    },
  );
}
