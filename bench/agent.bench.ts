/**
 * The agent path: `agent-memory mcp` over N memories, spawned the way Claude Code or Codex
 * spawn it (the built dist/cli.js on stdio, the MCP SDK's own client), from the outside:
 * - spawn → first recall answer (wall), against a bare `node -e 0` spawned in the same run;
 * - the server's RSS after that answer and its peak (the whole process: engine and model threads);
 * - CPU per recall and per store: the server process's utime + stime (/proc/<pid>/stat) over
 *   many calls with different texts, once the server is quiet; a store's CPU until its answer and
 *   with what it sets off afterwards (background embedding) counted too;
 * - a cold `agent-memory search` (a process of its own, owner of the store) against `node -e 0`.
 * The store is made once per run (default settings, the embedder the product picks), each trial
 * starts from a copy of it. Linux only (/proc).
 * The build measured is the production one (`esbuild.mjs --production`, as `npm run package`: what
 * the VSIX ships and agents spawn), left in dist/; its minified, ASCII sources take ~20 MB less of
 * the server's memory than the development build's. AGENT_BENCH_DEV=1 measures the development build.
 *   npm run bench -- --sections agent --sizes 1000
 *   node --import tsx bench/agent.bench.ts [memories] [trials]   (JSON on stdout)
 *   AGENT_BENCH_CLI=/path/to/other/dist/cli.js …                  (measure another build)
 *   AGENT_BENCH_CLI=/a/dist/cli.js,/b/dist/cli.js …                 (A/B: the builds take turns, trial by
 *                                                                    trial on one store; each build's medians
 *                                                                    and its ratios to the first, `ab`)
 *   AGENT_BENCH_THREADS=1 …                                         (print recall and store CPU by thread)
 *   AGENT_BENCH_TRACE=1 …                                           (the server's --verbose log, ms since spawn)
 *   AGENT_BENCH_SMAPS=<prefix> …                                    (copy the server's /proc/<pid>/smaps after its first answer)
 *   AGENT_BENCH_PROFILE=<dir> …                                     (CPU profiles of the servers' threads, node --cpu-prof)
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { EngineClient } from '../src/engine/client/engineClient';
import { MCP_SERVER_NODE_FLAGS } from '../src/mcp/serverNodeFlags';
import type { EngineInit } from '../src/engine/protocol';
import { spawnTsWorker } from '../test/engine/harness';
import { agentMemories, agentNewMemories, agentQueries } from './agentCorpus';
import { MEMORIES as CODING_MEMORIES } from './coding/dataset';
import { median, round } from './stats';

const ROOT = path.resolve(__dirname, '..');
/**
 * The CLI bundles measured; AGENT_BENCH_CLI=<another checkout>/dist/cli.js measures that build,
 * a comma-separated list measures each in turn, trial by trial (before/after in one run). An
 * entry may name node flags after the path, each after a `+` (`dist/cli.js+--max-semi-space-size=1`),
 * and environment variables for the server the same way (`dist/cli.js+MALLOC_TRIM_THRESHOLD_=131072`).
 * The server gets the launcher's Node options first (src/mcp/serverNodeFlags.ts), then the entry's:
 * `dist/cli.js+--v8-pool-size=4` is a server started with Node's default.
 */
const CLIS = process.env.AGENT_BENCH_CLI
  ? process.env.AGENT_BENCH_CLI.split(',').map((p) => {
      const [file, ...flags] = p.trim().split('+');
      return [path.resolve(file!), ...flags].join('+');
    })
  : [path.join(ROOT, 'dist', 'cli.js')];

/** An AGENT_BENCH_CLI entry's parts: the bundle, the node flags (`-…`) and the server's `NAME=value` variables. */
function entryParts(entry: string): { cli: string; flags: string[]; env: Record<string, string> } {
  const [cli, ...extra] = entry.split('+');
  const env: Record<string, string> = {};
  for (const x of extra) {
    const eq = x.indexOf('=');
    if (!x.startsWith('-') && eq > 0) env[x.slice(0, eq)] = x.slice(eq + 1);
  }
  return { cli: cli!, flags: extra.filter((x) => x.startsWith('-')), env };
}

/** The node arguments that run an AGENT_BENCH_CLI entry's bundle with its flags. */
function nodeArgs(entry: string): string[] {
  const { cli, flags } = entryParts(entry);
  return [...flags, cli];
}

/** The server's environment: the bench's own, the store home, and the entry's variables. */
function serverEnv(entry: string, home: string): Record<string, string> {
  return { ...(process.env as Record<string, string>), AGENT_MEMORY_HOME: home, ...entryParts(entry).env };
}
const RECALLS = 60;
/**
 * Recalls between the first window of RECALLS and a second, steady one (AGENT_BENCH_STEADY=0: none).
 * The first window pays V8's warm-up — the engine's code optimized on its helper threads as
 * it first runs hot — which a server pays once; the second is what each later recall costs.
 */
const STEADY_GAP = Number(process.env.AGENT_BENCH_STEADY ?? 240);
const STORES = 20;
const TICK_MS = 1000 / Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim() || 100);

const progress = (s: string) => process.stderr.write(`  [agent] ${s}\n`);

/** utime + stime of a /proc stat line, in ms (fields 14 and 15 of stat(5)). */
function statCpuMs(stat: string): number {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

/** utime + stime of a process, all its threads (finished ones included), in ms. */
function cpuMs(pid: number): number {
  return statCpuMs(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
}

/** CPU ms of each live thread of a process, by "tid name" (AGENT_BENCH_THREADS=1: where a recall's CPU goes). */
function threadCpuMs(pid: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      out.set(`${tid} ${name}`, statCpuMs(stat));
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return out;
}

/** Per-thread CPU between two samples, per operation, the busiest first. */
function threadShares(before: Map<string, number>, after: Map<string, number>, ops: number): string {
  return [...after]
    .map(([k, v]) => [k, (v - (before.get(k) ?? 0)) / ops] as const)
    .filter(([, v]) => v > 0)
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `${k}: ${v.toFixed(2)}`)
    .join(', ');
}

/** VmRSS / VmHWM of a process in MB. */
function rssMb(pid: number): { rss: number; peak: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? NaN);
  return { rss: round(kb('VmRSS') / 1024, 1), peak: round(kb('VmHWM') / 1024, 1) };
}

/** Waits until the process used less than 2 % of a core over half a second (at most `maxMs`). */
async function quiet(pid: number, maxMs = 30_000): Promise<void> {
  const until = performance.now() + maxMs;
  let last = cpuMs(pid);
  while (performance.now() < until) {
    await new Promise((r) => setTimeout(r, 500));
    const now = cpuMs(pid);
    if (now - last <= 10) return;
    last = now;
  }
}

function bareNodeMs(): number {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, ['-e', '0']);
  if (r.status !== 0) throw new Error('node -e 0 failed');
  return performance.now() - t0;
}

function workspace(root: string): string {
  const ws = path.join(root, 'ws');
  fs.mkdirSync(path.join(ws, '.git'), { recursive: true });
  fs.writeFileSync(path.join(ws, '.git', 'config'), '[remote "origin"]\n\turl = git@github.com:acme/agent-bench.git\n');
  fs.writeFileSync(path.join(ws, '.git', 'HEAD'), 'ref: refs/heads/main\n');
  return ws;
}

/** The store with `n` memories and their vectors, made by the product with its default settings. */
async function prepareStore(home: string, ws: string, n: number): Promise<{ memories: number; embedder: string }> {
  const init: EngineInit = { home, workspaceRoot: ws };
  const client = new EngineClient({ init, spawn: spawnTsWorker });
  await client.start();
  const file = path.join(path.dirname(home), 'corpus.jsonl');
  const lines = [JSON.stringify({ format: 'agent-memory-jsonl', version: 1 })];
  for (const m of agentMemories(n)) lines.push(JSON.stringify(m));
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
  await client.request('import', { path: file });
  for (;;) {
    const d = await client.request('diagnostics', {});
    const stores = [d.stats.project, d.stats.global];
    if (stores.every((s) => s.pendingEmbeddings === 0)) {
      const memories = stores.reduce((a, s) => a + s.memories, 0);
      await client.shutdown();
      return { memories, embedder: d.embedder?.space ?? 'none' };
    }
    await new Promise((r) => setTimeout(r, 500));
  }
}

interface Trial {
  first_recall_ms: number;
  first_recall_cpu_ms: number;
  rss_after_first_mb: number;
  recall_cpu_ms: number;
  recall_cpu_steady_ms: number;
  recall_p50_ms: number;
  store_cpu_to_answer_ms: number;
  store_cpu_with_background_ms: number;
  store_p50_ms: number;
  stored: number;
  /** CPU per store of a memory that merges with none (to its answer); how many of them were stored unmerged. */
  store_novel_cpu_ms: number;
  novel_stored: number;
  rss_after_all_mb: number;
  peak_rss_mb: number;
  /** 1 when the server's log said it loaded the built-in model for its first answer. */
  model_loaded: number;
}

type ToolResult = { content: { type: string; text: string }[]; isError?: boolean };

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<string> {
  const r = (await client.callTool({ name, arguments: args })) as ToolResult;
  const text = r.content.map((c) => c.text).join('\n');
  if (r.isError) throw new Error(`${name} failed: ${text}`);
  return text;
}

async function mcpTrial(cli: string, home: string, ws: string, queries: string[], trial: number): Promise<Trial> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [
      ...(process.env.AGENT_BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.AGENT_BENCH_PROFILE}`] : []),
      // As the launcher agents start runs it with Node (an entry's own flags come after, and win).
      ...MCP_SERVER_NODE_FLAGS,
      ...nodeArgs(cli),
      'mcp',
      '--workspace',
      ws,
      // Its log says which embedder it loaded (a server that fell back to another would look cheap).
      '--verbose',
    ],
    cwd: ws,
    env: serverEnv(cli, home),
    stderr: 'pipe',
  });
  const client = new Client({ name: 'agent-bench', version: '1.0.0' });
  const t0 = performance.now();
  const log: string[] = [];
  transport.stderr?.on('data', (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) {
      log.push(line);
      // AGENT_BENCH_TRACE: each line with the ms since spawn (where the first answer's time goes).
      if (process.env.AGENT_BENCH_TRACE) progress(`+${Math.round(performance.now() - t0)} ms ${line}`);
    }
  });
  await client.connect(transport);
  const pid = transport.pid!;
  const firstAnswer = await call(client, 'recall_memories', { query: queries[0]! });
  const firstMs = performance.now() - t0;
  const firstCpu = cpuMs(pid);
  const afterFirst = rssMb(pid);
  if (process.env.AGENT_BENCH_SMAPS) fs.writeFileSync(`${process.env.AGENT_BENCH_SMAPS}-${trial}`, fs.readFileSync(`/proc/${pid}/smaps`));
  if (!/\S/.test(firstAnswer)) throw new Error('empty first recall');
  const modelLoaded = log.some((l) => /built-in embedding model loaded/.test(l));
  if (!modelLoaded)
    progress(`trial ${trial + 1}: the server did not load the built-in model for its first answer; its log: ${log.join(' | ')}`);
  try {
    await quiet(pid);
    let c0 = cpuMs(pid);
    const threads0 = process.env.AGENT_BENCH_THREADS ? threadCpuMs(pid) : undefined;
    const recallWall: number[] = [];
    for (const q of queries.slice(1, RECALLS + 1)) {
      const t = performance.now();
      await call(client, 'recall_memories', { query: q });
      recallWall.push(performance.now() - t);
    }
    const recallCpu = (cpuMs(pid) - c0) / RECALLS;
    if (threads0) progress(`recall CPU ms by thread: ${threadShares(threads0, threadCpuMs(pid), RECALLS)}`);
    await quiet(pid);
    c0 = cpuMs(pid);
    const storeThreads0 = process.env.AGENT_BENCH_THREADS ? threadCpuMs(pid) : undefined;
    const storeWall: number[] = [];
    let stored = 0;
    for (const m of agentNewMemories(STORES * (trial + 1)).slice(STORES * trial)) {
      const t = performance.now();
      const out = await call(client, 'store_memory', { content: m.content, type: m.type, tags: m.tags });
      storeWall.push(performance.now() - t);
      if (!/"status":\s*"skipped"/.test(out)) stored++;
    }
    const storeCpuAnswer = (cpuMs(pid) - c0) / STORES;
    if (storeThreads0) progress(`store CPU ms by thread: ${threadShares(storeThreads0, threadCpuMs(pid), STORES)}`);
    await quiet(pid);
    const storeCpuAll = (cpuMs(pid) - c0) / STORES;
    const end = rssMb(pid);
    // Stores with no near neighbour in this store (the coding set's memories: other words, other
    // topics) are stored without a merge: one model pass, where a merge makes two.
    await quiet(pid);
    c0 = cpuMs(pid);
    let novel = 0;
    for (const m of CODING_MEMORIES.slice(0, STORES)) {
      const out = await call(client, 'store_memory', { content: m.content, type: m.type });
      if (/"action":\s*"stored"/.test(out)) novel++;
    }
    const novelCpu = (cpuMs(pid) - c0) / STORES;
    let steadyCpu = NaN;
    if (STEADY_GAP > 0) {
      // After the stores (measured as before), so that neither window has seen more of the other.
      for (const q of queries.slice(RECALLS + 1, RECALLS + 1 + STEADY_GAP)) await call(client, 'recall_memories', { query: q });
      await quiet(pid);
      c0 = cpuMs(pid);
      const steady0 = process.env.AGENT_BENCH_THREADS ? threadCpuMs(pid) : undefined;
      for (const q of queries.slice(RECALLS + 1 + STEADY_GAP, 2 * RECALLS + 1 + STEADY_GAP))
        await call(client, 'recall_memories', { query: q });
      steadyCpu = (cpuMs(pid) - c0) / RECALLS;
      if (steady0) progress(`steady recall CPU ms by thread: ${threadShares(steady0, threadCpuMs(pid), RECALLS)}`);
    }
    return {
      first_recall_ms: round(firstMs, 1),
      first_recall_cpu_ms: round(firstCpu, 1),
      rss_after_first_mb: afterFirst.rss,
      recall_cpu_ms: round(recallCpu, 2),
      recall_cpu_steady_ms: round(steadyCpu, 2),
      recall_p50_ms: round(median(recallWall), 2),
      store_cpu_to_answer_ms: round(storeCpuAnswer, 2),
      store_cpu_with_background_ms: round(storeCpuAll, 2),
      store_p50_ms: round(median(storeWall), 2),
      stored,
      store_novel_cpu_ms: round(novelCpu, 2),
      novel_stored: novel,
      rss_after_all_mb: end.rss,
      peak_rss_mb: end.peak,
      model_loaded: modelLoaded ? 1 : 0,
    };
  } finally {
    await client.close();
  }
}

function coldSearchMs(cli: string, home: string, ws: string, query: string): number {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [...nodeArgs(cli), 'search', query, '--workspace', ws, '--limit', '5'], {
    cwd: ws,
    env: serverEnv(cli, home),
    encoding: 'utf8',
  });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`agent-memory search failed (${r.status}): ${r.stderr}`);
  return ms;
}

export interface AgentBenchResult {
  memories: number;
  embedder: string;
  trials: number;
  node_e0_ms: number;
  spawn_to_first_recall_ms: number;
  spawn_to_first_recall_vs_node: number;
  first_recall_cpu_ms: number;
  rss_after_first_recall_mb: number;
  recall_cpu_ms: number;
  /** Per recall after STEADY_GAP more (V8's warm-up paid); NaN when AGENT_BENCH_STEADY=0. */
  recall_cpu_steady_ms: number;
  recall_p50_ms: number;
  store_cpu_ms: number;
  store_cpu_with_background_ms: number;
  store_p50_ms: number;
  stored_not_skipped: string;
  /** Stores of memories with no near neighbour: no merge, one model pass (`store_cpu_ms`' stores mostly merge). */
  store_novel_cpu_ms: number;
  novel_stored_unmerged: string;
  /** How many of the measured servers said they loaded the built-in model (`embedder` is the preparing engine's choice). */
  servers_with_builtin_model: string;
  rss_after_all_mb: number;
  server_peak_rss_mb: number;
  cold_search_ms: number;
  cold_search_vs_node: number;
}

/** One build's medians over its trials; `nodeMs` is the median `node -e 0` of the run. */
function summarize(runs: Trial[], cold: number[], nodeMs: number) {
  const m = (k: keyof Trial) => round(median(runs.map((r) => r[k])), 2);
  return {
    spawn_to_first_recall_ms: m('first_recall_ms'),
    spawn_to_first_recall_vs_node: round(m('first_recall_ms') / nodeMs, 2),
    first_recall_cpu_ms: m('first_recall_cpu_ms'),
    rss_after_first_recall_mb: m('rss_after_first_mb'),
    recall_cpu_ms: m('recall_cpu_ms'),
    recall_cpu_steady_ms: m('recall_cpu_steady_ms'),
    recall_p50_ms: m('recall_p50_ms'),
    store_cpu_ms: m('store_cpu_to_answer_ms'),
    store_cpu_with_background_ms: m('store_cpu_with_background_ms'),
    store_p50_ms: m('store_p50_ms'),
    stored_not_skipped: `${m('stored')} of ${STORES}`,
    store_novel_cpu_ms: m('store_novel_cpu_ms'),
    novel_stored_unmerged: `${m('novel_stored')} of ${STORES}`,
    servers_with_builtin_model: `${runs.filter((r) => r.model_loaded === 1).length} of ${runs.length}`,
    rss_after_all_mb: m('rss_after_all_mb'),
    server_peak_rss_mb: m('peak_rss_mb'),
    cold_search_ms: round(median(cold), 1),
    cold_search_vs_node: round(median(cold) / nodeMs, 2),
  };
}

/** A build measured beside the first in an A/B run: its medians and their ratios to the first's. */
export interface AgentBenchBuild extends ReturnType<typeof summarize> {
  cli: string;
  /** This build's median ÷ the first build's, per figure (below 1: less). */
  vs_first: Record<string, number>;
}

/**
 * Section `agent` of bench/index.ts: medians over `trials` fresh servers. With several builds
 * (AGENT_BENCH_CLI=a,b), each trial runs every build on a copy of the same store, in an order
 * that rotates from trial to trial; the top-level figures are the first build's.
 */
export async function runAgentBench(n: number, trials = 5): Promise<AgentBenchResult & { ab?: AgentBenchBuild[] }> {
  const flags = process.env.AGENT_BENCH_DEV === '1' ? [] : ['--production'];
  const build = spawnSync(process.execPath, [path.join(ROOT, 'esbuild.mjs'), ...flags], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  if (build.status !== 0) throw new Error(`node esbuild.mjs ${flags.join(' ')} failed`);
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'am-agent-bench-'));
  try {
    const ws = workspace(root);
    const template = path.join(root, 'home');
    progress(`storing ${n} memories with the default embedder…`);
    const made = await prepareStore(template, ws, n);
    progress(`${made.memories} memories in ${made.embedder}`);
    // Per trial: its own first query, then the same recall windows (RECALLS, STEADY_GAP, RECALLS).
    const windows = STEADY_GAP > 0 ? 2 * RECALLS + STEADY_GAP : RECALLS;
    const queries = agentQueries(windows + 1 + trials);
    const node: number[] = [];
    const runs: Trial[][] = CLIS.map(() => []);
    const cold: number[][] = CLIS.map(() => []);
    const coldHome = path.join(root, 'home-cold');
    fs.cpSync(template, coldHome, { recursive: true });
    for (let i = 0; i < trials; i++) {
      for (let k = 0; k < CLIS.length; k++) {
        const b = (i + k) % CLIS.length;
        const cli = CLIS[b]!;
        node.push(bareNodeMs());
        const home = path.join(root, `home-${i}-${b}`);
        fs.cpSync(template, home, { recursive: true });
        const q = [queries[windows + 1 + i]!, ...queries.slice(1, windows + 1)];
        const run = await mcpTrial(cli, home, ws, q, i);
        runs[b]!.push(run);
        fs.rmSync(home, { recursive: true, force: true });
        node.push(bareNodeMs());
        cold[b]!.push(coldSearchMs(cli, coldHome, ws, queries[i]!));
        progress(`trial ${i + 1}/${trials}${CLIS.length > 1 ? ` ${cli}` : ''}: ${JSON.stringify(run)}`);
      }
    }
    const nodeMs = median(node);
    const builds = CLIS.map((_, b) => summarize(runs[b]!, cold[b]!, nodeMs));
    const first = builds[0]!;
    const result = { memories: made.memories, embedder: made.embedder, trials, node_e0_ms: round(nodeMs, 1), ...first };
    if (CLIS.length === 1) return result;
    const ab = builds.map((figures, b) => {
      const vs: Record<string, number> = {};
      for (const [k, v] of Object.entries(figures)) {
        const base = first[k as keyof typeof first];
        if (typeof v === 'number' && typeof base === 'number' && base > 0) vs[k] = round(v / base, 3);
      }
      return { cli: CLIS[b]!, ...figures, vs_first: vs };
    });
    return { ...result, ab };
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

if (require.main === module) {
  runAgentBench(Number(process.argv[2] ?? 1000), Number(process.argv[3] ?? 5)).then(
    (out) => process.stdout.write(`${JSON.stringify(out, null, 2)}\n`),
    (e) => {
      console.error(e);
      process.exit(1);
    },
  );
}
