// Cold Claude Code hooks, two builds alternating under the same load (bench/RESULTS-sessions.md):
//   node bench/hooksAb.mjs <rounds> <hash|default> <old dist/cli.js> <new dist/cli.js>
// Wall time and CPU time (user + system, from /usr/bin/time) per hook process; p50 of the rounds.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
const rounds = Number(process.argv[2] ?? 5);
const provider = process.argv[3] ?? 'hash';
const CLIS = { old: process.argv[4], new: process.argv[5] };
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'am-abhooks-'));
const seed = path.join(root, 'seed.jsonl');
fs.writeFileSync(
  seed,
  Array.from({ length: 1000 }, (_, i) =>
    JSON.stringify({ content: `Service ${i} writes its logs to collector ${i % 17} on port ${9000 + (i % 50)}.` }),
  ).join('\n') + '\n',
);
const setups = {};
for (const [name, cli] of Object.entries(CLIS)) {
  const ws = path.join(root, name, 'ws');
  fs.mkdirSync(ws, { recursive: true });
  if (provider === 'hash') fs.writeFileSync(path.join(ws, 'agent.yaml'), 'embedding:\n  provider: hash\n');
  const env = { ...process.env, AGENT_MEMORY_HOME: path.join(root, name, 'home') };
  const r = spawnSync(process.execPath, [cli, 'import', seed, '--workspace', ws], { env, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(r.stderr);
  const transcript = path.join(root, name, 't.jsonl');
  fs.writeFileSync(transcript, '');
  setups[name] = { cli, ws, env, transcript, turn: 0 };
}
const NAMES = { 'session-start': 'SessionStart', 'user-prompt-submit': 'UserPromptSubmit', stop: 'Stop' };
const times = {};
const cpu = {};
for (let i = 0; i < rounds; i++)
  for (const ev of Object.keys(NAMES))
    for (const name of i % 2 ? ['new', 'old'] : ['old', 'new']) {
      const s = setups[name];
      if (ev === 'stop')
        fs.appendFileSync(
          s.transcript,
          JSON.stringify({
            type: 'user',
            uuid: `u${++s.turn}`,
            message: { role: 'user', content: `Where do service ${s.turn} logs go?` },
          }) + '\n',
        );
      const input = JSON.stringify({
        session_id: 'bench',
        cwd: s.ws,
        hook_event_name: NAMES[ev],
        transcript_path: s.transcript,
        prompt: 'which collector gets the logs of service 12?',
      });
      const t0 = performance.now();
      const r = spawnSync('/usr/bin/time', ['-f', 'CPU %U %S', process.execPath, s.cli, 'hook', ev], {
        input,
        env: s.env,
        cwd: root,
        encoding: 'utf8',
      });
      const ms = performance.now() - t0;
      if (r.status !== 0) throw new Error(`${name} ${ev}: ${r.stderr}`);
      const m = /CPU ([\d.]+) ([\d.]+)/.exec(r.stderr);
      (times[`${ev} ${name}`] ??= []).push(ms);
      (cpu[`${ev} ${name}`] ??= []).push((Number(m[1]) + Number(m[2])) * 1000);
    }
const p50 = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return Math.round(s[Math.floor((s.length - 1) / 2)]);
};
const out = {};
for (const ev of Object.keys(NAMES))
  out[ev] = {
    wall_p50_ms: { old: p50(times[`${ev} old`]), new: p50(times[`${ev} new`]) },
    cpu_p50_ms: { old: p50(cpu[`${ev} old`]), new: p50(cpu[`${ev} new`]) },
  };
console.log(JSON.stringify({ provider, rounds, load: os.loadavg().map((x) => x.toFixed(1)), ...out }, null, 1));
fs.rmSync(root, { recursive: true, force: true });
