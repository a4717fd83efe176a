/**
 * `npm run bench` — scale and speed figures, each with its baseline measured in the same
 * run. Every size runs in its own child process so peak RSS is per size.
 *   npm run bench                      readable table
 *   npm run bench -- --json            one JSON object on stdout, nothing else
 *   npm run bench -- --sizes 10000     choose sizes (default 10000,100000)
 */
import { spawnSync } from 'node:child_process';
import * as os from 'node:os';
import * as path from 'node:path';
import { runStoreBench, type StoreBenchResult } from './store.bench';

const args = process.argv.slice(2);
const json = args.includes('--json');
const sizesArg = args[args.indexOf('--sizes') + 1];
const sizes = args.includes('--sizes') && sizesArg ? sizesArg.split(',').map(Number) : [10_000, 100_000];
const workDir = path.resolve(__dirname, '..', '.bench');

const TARGETS = {
  'store.create_p50_ms@100000': '≤ 3',
  'store.speedup_vs_naive_p50@100000': '≥ 50',
  'store.open_ms_snapshot@100000': '≤ 2000',
};

async function child(size: number): Promise<void> {
  const store = await runStoreBench(size, workDir);
  process.stdout.write(JSON.stringify({ store }) + '\n');
}

function log(line: string): void {
  (json ? process.stderr : process.stdout).write(line + '\n');
}

function table(rows: StoreBenchResult[]): void {
  const keys = Object.keys(rows[0]!) as (keyof StoreBenchResult)[];
  const w = Math.max(...keys.map((k) => k.length));
  log('');
  log(`${'store'.padEnd(w)}  ${rows.map((r) => String(r.memories).padStart(12)).join('')}`);
  for (const k of keys.slice(1)) log(`${k.padEnd(w)}  ${rows.map((r) => String(r[k]).padStart(12)).join('')}`);
}

async function main(): Promise<void> {
  const ci = args.indexOf('--child');
  if (ci >= 0) return child(Number(args[ci + 1]));
  const results: Record<string, { store: StoreBenchResult }> = {};
  for (const size of sizes) {
    log(`bench: ${size} memories…`);
    const r = spawnSync(process.execPath, ['--import', 'tsx', __filename, '--child', String(size)], {
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    if (r.status !== 0) throw new Error(`bench child for ${size} failed (exit ${r.status})`);
    const last = r.stdout.trim().split('\n').pop()!;
    results[String(size)] = JSON.parse(last);
  }
  const out = {
    machine: { cpus: os.cpus().length, cpu: os.cpus()[0]?.model ?? '?', node: process.version, platform: `${os.platform()} ${os.arch()}` },
    store: Object.fromEntries(Object.entries(results).map(([k, v]) => [k, v.store])),
    targets: TARGETS,
  };
  if (json) process.stdout.write(JSON.stringify(out) + '\n');
  else {
    table(Object.values(results).map((r) => r.store));
    log('');
    log('targets: ' + Object.entries(TARGETS).map(([k, v]) => `${k} ${v}`).join('; '));
  }
}

main().catch((e) => {
  process.stderr.write(`bench failed: ${(e as Error).stack}\n`);
  process.exit(1);
});
