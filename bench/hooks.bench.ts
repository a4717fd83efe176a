/**
 * Claude Code hook latency (docs/sessions.md "Claude Code"): how long `agent-memory hook <event>`
 * takes from process start to exit, run as Claude Code runs it (a new process, JSON on stdin),
 * with the bundled CLI (dist/cli.js: `npm run build` first) on a project of `size` memories.
 * - cold: nobody owns the store: each hook process opens it (the first agent of the day);
 * - warm: an owner is running (a VS Code window or an MCP server): the hook is a client of it.
 * Baseline in the same run: `node -e ""` (the floor of any Node hook).
 * `npm run bench -- --sections hooks --sizes 1000`, or `node --import tsx bench/hooks.bench.ts 1000 10`.
 */
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { percentile, round } from './stats';

const CLI = path.resolve(__dirname, '..', 'dist', 'cli.js');
const EVENTS = ['session-start', 'user-prompt-submit', 'stop'] as const;

function runOnce(args: string[], input: string, env: NodeJS.ProcessEnv, cwd: string): { ms: number; code: number | null; err: string } {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, args, { input, env, cwd, encoding: 'utf8' });
  return { ms: performance.now() - t0, code: r.status, err: r.stderr };
}

function stats(xs: number[]): { p50_ms: number; p99_ms: number } {
  const s = [...xs].sort((a, b) => a - b);
  return { p50_ms: round(percentile(s, 50)), p99_ms: round(percentile(s, 99)) };
}

export async function runHooksBench(size: number, rounds = 10): Promise<object> {
  if (!fs.existsSync(CLI)) throw new Error('dist/cli.js is missing: run npm run build first');
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'am-hooks-bench-'));
  const ws = path.join(root, 'ws');
  fs.mkdirSync(ws);
  fs.writeFileSync(path.join(ws, 'agent.yaml'), 'embedding:\n  provider: hash\n');
  const env = { ...process.env, AGENT_MEMORY_HOME: path.join(root, 'home') };
  const transcript = path.join(root, 't.jsonl');
  fs.writeFileSync(transcript, '');
  const lines = Array.from({ length: size }, (_, i) =>
    JSON.stringify({ content: `Service ${i} writes its logs to collector ${i % 17} on port ${9000 + (i % 50)}.` }),
  );
  const imp = path.join(root, 'seed.jsonl');
  fs.writeFileSync(imp, `${lines.join('\n')}\n`);
  const seeded = runOnce([CLI, 'import', imp, '--workspace', ws], '', env, root);
  if (seeded.code !== 0) throw new Error(`seeding failed: ${seeded.err}`);

  let turn = 0;
  const input = (event: (typeof EVENTS)[number]) => {
    if (event === 'stop') {
      turn++;
      fs.appendFileSync(
        transcript,
        `${JSON.stringify({ type: 'user', uuid: `u${turn}`, message: { role: 'user', content: `Where do service ${turn} logs go?` } })}\n`,
      );
    }
    const name = { 'session-start': 'SessionStart', 'user-prompt-submit': 'UserPromptSubmit', stop: 'Stop' }[event];
    return JSON.stringify({
      session_id: 'bench',
      cwd: ws,
      hook_event_name: name,
      transcript_path: transcript,
      prompt: 'which collector gets the logs of service 12?',
    });
  };
  const measure = () => {
    const out: Record<string, { p50_ms: number; p99_ms: number }> = {};
    for (const event of EVENTS) {
      const ms: number[] = [];
      for (let i = 0; i < rounds; i++) {
        const r = runOnce([CLI, 'hook', event], input(event), env, root);
        if (r.code !== 0) throw new Error(`hook ${event} failed: ${r.err}`);
        ms.push(r.ms);
      }
      out[event] = stats(ms);
    }
    return out;
  };

  const nodeFloor = stats(Array.from({ length: rounds }, () => runOnce(['-e', ''], '', env, root).ms));
  const cold = measure();
  // An owner for the warm runs: an MCP server on stdio, as an agent keeps one.
  const owner = spawn(process.execPath, [CLI, 'mcp', '--workspace', ws], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  await new Promise((r) => setTimeout(r, 3000));
  let warm: Record<string, { p50_ms: number; p99_ms: number }>;
  try {
    runOnce([CLI, 'hook', 'session-start'], input('session-start'), env, root); // its first answer warms the owner
    warm = measure();
  } finally {
    owner.stdin.end();
    owner.kill();
  }
  fs.rmSync(root, { recursive: true, force: true });
  const ratio = (r: Record<string, { p50_ms: number }>) =>
    Object.fromEntries(Object.entries(r).map(([k, v]) => [k, round(v.p50_ms / nodeFloor.p50_ms)]));
  return { memories: size, rounds, node_floor: nodeFloor, cold, warm, warm_vs_node_floor_p50: ratio(warm) };
}

if (require.main === module) {
  const size = Number(process.argv[2] ?? 1000);
  const rounds = Number(process.argv[3] ?? 10);
  runHooksBench(size, rounds).then(
    (r) => process.stdout.write(`${JSON.stringify(r, null, 2)}\n`),
    (e) => {
      process.stderr.write(`${(e as Error).message}\n`);
      process.exit(1);
    },
  );
}
