/**
 * `npm run bench` — scale and speed figures, each with its baseline measured in the same
 * run. Every (section, size) runs in its own child process so peak RSS is per size.
 *   npm run bench                          readable tables
 *   npm run bench -- --json                one JSON object on stdout, nothing else
 *   npm run bench -- --sizes 10000         choose sizes (default 10000,100000)
 *   npm run bench -- --sections search     choose sections (default: all but the opt-in ones, in list order)
 *
 * To add a section, append to SECTIONS: `perSize` sections run once per size, the others once.
 * Output: { machine, <section>: { <size>: result } | result, targets }.
 */
import { spawnSync } from 'node:child_process';
import * as os from 'node:os';
import * as path from 'node:path';
import { runStoreBench } from './store.bench';
import { runSearchBench } from './search.bench';
import { runEmbedBench } from './embed.bench';
import { runWriteBench } from './write.bench';
import { runPipelineBench } from './pipeline.bench';
import { runShareBench } from './share.bench';
import { runTakeoverBench } from './takeover.bench';
import { runSchedulesBench } from './schedules.bench';
import { runHooksBench } from './hooks.bench';
import { runSessionsBench } from './sessions.bench';
import { runEncryptionBench } from './encryption.bench';
import { runHostileBench } from './hostile.bench';
import { runAgentBench } from './agent.bench';
import { runTeamBench } from './team.bench';

type Result = Record<string, unknown>;

export interface BenchSection {
  name: string;
  /** Run once per size (else once per bench run). */
  perSize: boolean;
  run(size: number, workDir: string): Promise<object>;
  /** Only when named in --sections (not part of the default run). */
  optIn?: boolean;
  /** Target per figure, keyed `<section>.<figure>@<size>` (or without @ for once-only sections). */
  targets?: Record<string, string>;
}

export const SECTIONS: BenchSection[] = [
  {
    name: 'store',
    perSize: true,
    run: runStoreBench,
    targets: {
      'store.create_p50_ms@100000': '≤ 3',
      'store.speedup_vs_naive_p50@100000': '≥ 50',
      'store.open_ms_snapshot@100000': '≤ 2000',
    },
  },
  {
    name: 'search',
    perSize: true,
    run: runSearchBench,
    targets: {
      'search.hybrid_p50_ms@100000': '≤ 5',
      'search.hybrid_p99_ms@100000': '≤ 20',
      'search.ann_recall_at_10@100000': '≥ 0.98',
      'search.peak_rss_mb@100000': '≤ 700',
    },
  },
  { name: 'write', perSize: true, run: runWriteBench },
  // Encryption at rest against the plain store, both in the same run (docs/encryption.md).
  {
    name: 'encryption',
    perSize: true,
    run: runEncryptionBench,
    targets: { 'encryption.create_p50_overhead_pct@100000': '≤ 10', 'encryption.open_overhead_pct@100000': '≤ 10' },
  },
  { name: 'embed', perSize: false, run: () => runEmbedBench() },
  { name: 'pipeline', perSize: false, run: (_size, workDir) => runPipelineBench(workDir) },
  // 10,000 schedules: the due query and the store's part of a run (docs/schedules.md).
  {
    name: 'schedules',
    perSize: false,
    run: (_size, workDir) => runSchedulesBench(workDir),
    targets: { 'schedules.due_query_p99_ms': '≤ 5', 'schedules.run_throughput_per_s': '≥ 50' },
  },
  // The time bounds that used to be unit-test assertions (test/core/config/limits.test.ts, recall.test.ts).
  {
    name: 'hostile',
    perSize: false,
    run: () => runHostileBench(),
    targets: {
      'hostile.unknown_keys_200k_refused_ms': '< 1000',
      'hostile.unknown_keys_under_limit_ms': '< 5000',
      'hostile.string_50mb_ms': '< 2000',
      'hostile.string_50mb_rss_growth_mb': '< 200',
      'hostile.long_key_ms': '< 2000',
      'hostile.nested_markers_2000_ms': '< 2000',
      'hostile.deep_nesting_98kb_ms': '< 500',
      'hostile.alias_bomb_ms': '< 2000',
    },
  },
  // `agent-memory mcp` over 1,000 memories as an agent spawns it (bench/agent.bench.ts).
  {
    name: 'agent',
    perSize: false,
    run: () => runAgentBench(1000),
    targets: {
      'agent.spawn_to_first_recall_ms': '≤ 1000 (quiet machine)',
      'agent.spawn_to_first_recall_vs_node': '≤ 8',
      'agent.recall_cpu_ms': '≤ 10',
      'agent.store_cpu_ms': '≤ 15',
      'agent.server_peak_rss_mb': '≤ 150',
    },
  },
  // Two engines in one process over the store's socket: run it alone on a quiet machine (bench/RESULTS-share.md).
  {
    name: 'share',
    perSize: true,
    optIn: true,
    run: (size) => runShareBench(size),
    targets: { 'share.added_p50_ms@10000': 'search < 1, create < 1' },
  },
  // The owner of a shared store killed: how long until its clients write again (bench/RESULTS-takeover.md).
  {
    name: 'takeover',
    perSize: false,
    optIn: true,
    run: (_size, workDir) =>
      runTakeoverBench({ runs: 10, clients: [1, 8], memories: 1000, workDir, log: (l) => process.stderr.write(`${l}\n`) }),
    targets: { 'takeover.clients.next_write_after_kill.median_ms': '≤ 2000 on a quiet machine, 1 and 8 clients' },
  },
  // Team memory through a real PostgreSQL 15 (needs postgresql-15; bench/RESULTS-team.md).
  {
    name: 'team',
    perSize: true,
    optIn: true,
    run: (size, workDir) => runTeamBench(size, workDir),
    targets: { 'team.sync_latency_p50_ms@100000': '≤ 1000 (loopback)', 'team.catch_up_s@100000': '≤ 60, vectors excluded' },
  },
  // Agent sessions: a 1,000-event session logged one call at a time, the hybrid chunk query at N chunks.
  { name: 'sessions', perSize: true, run: (size) => runSessionsBench(size) },
  // Claude Code hooks as processes of dist/cli.js (npm run build first), cold and with an owner running.
  {
    name: 'hooks',
    perSize: true,
    optIn: true,
    run: (size) => runHooksBench(size),
    targets: { 'hooks.warm_p50_ms@1000': '≤ 1000 per event' },
  },
];

const args = process.argv.slice(2);
const json = args.includes('--json');
const opt = (name: string): string | undefined => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const sizes = (opt('--sizes') ?? '10000,100000').split(',').map(Number);
const wanted = opt('--sections')?.split(',');
const workDir = path.resolve(__dirname, '..', '.bench');

function log(line: string): void {
  (json ? process.stderr : process.stdout).write(line + '\n');
}

async function child(section: string, size: number): Promise<void> {
  const s = SECTIONS.find((x) => x.name === section);
  if (!s) throw new Error(`unknown bench section ${section}`);
  // Anything a library prints goes to stderr: the child's stdout carries its one JSON line.
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((chunk: unknown, ...rest: unknown[]) =>
    (process.stderr.write as (...a: unknown[]) => boolean)(chunk, ...rest)) as typeof process.stdout.write;
  const r = await s.run(size, workDir);
  write(JSON.stringify(r) + '\n');
}

function runChild(section: string, size: number): Result {
  const r = spawnSync(process.execPath, ['--import', 'tsx', __filename, '--child', section, String(size)], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  if (r.status !== 0) throw new Error(`bench child ${section}@${size} failed (exit ${r.status})`);
  return JSON.parse(r.stdout.trim().split('\n').pop()!) as Result;
}

function table(name: string, bySize: Record<string, Result>): void {
  const cols = Object.entries(bySize);
  const keys = [...new Set(cols.flatMap(([, r]) => Object.keys(r)))];
  const w = Math.max(name.length, ...keys.map((k) => k.length));
  const cell = (v: unknown) => (typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v)).padStart(14);
  log('');
  log(`${name.padEnd(w)}  ${cols.map(([size]) => size.padStart(14)).join('')}`);
  for (const k of keys) log(`${k.padEnd(w)}  ${cols.map(([, r]) => cell(r[k])).join('')}`);
}

async function main(): Promise<void> {
  const ci = args.indexOf('--child');
  if (ci >= 0) return child(args[ci + 1]!, Number(args[ci + 2]));
  const sections = SECTIONS.filter((s) => (wanted ? wanted.includes(s.name) : !s.optIn));
  if (wanted)
    for (const w of wanted)
      if (!SECTIONS.some((s) => s.name === w)) throw new Error(`unknown section ${w} (known: ${SECTIONS.map((s) => s.name).join(', ')})`);
  const out: Record<string, unknown> = {
    machine: { cpus: os.cpus().length, cpu: os.cpus()[0]?.model ?? '?', node: process.version, platform: `${os.platform()} ${os.arch()}` },
  };
  const targets: Record<string, string> = {};
  for (const s of sections) {
    Object.assign(targets, s.targets ?? {});
    if (s.perSize) {
      const bySize: Record<string, Result> = {};
      for (const size of sizes) {
        log(`bench: ${s.name} at ${size} memories…`);
        bySize[String(size)] = runChild(s.name, size);
      }
      out[s.name] = bySize;
      if (!json) table(s.name, bySize);
    } else {
      log(`bench: ${s.name}…`);
      const r = runChild(s.name, 0);
      out[s.name] = r;
      if (!json) table(s.name, { '': r });
    }
  }
  out.targets = targets;
  if (json) process.stdout.write(JSON.stringify(out) + '\n');
  else {
    log('');
    log(
      'targets: ' +
        Object.entries(targets)
          .map(([k, v]) => `${k} ${v}`)
          .join('; '),
    );
  }
}

main().catch((e) => {
  process.stderr.write(`bench failed: ${(e as Error).stack}\n`);
  process.exit(1);
});
