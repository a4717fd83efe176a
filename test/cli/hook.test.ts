// @tier process
// `agent-memory hook <event>` run exactly as Claude Code runs a command hook: through a shell,
// its hook input as JSON on stdin, its documented JSON on stdout (hookSpecificOutput with
// additionalContext), exit 0. The stop hook logs the turns of the transcript once; the prompt
// hook adds only what clears the relevance floor; input that is not Claude Code's is exit 1
// with one line on stderr (never exit 2, which would block the prompt).
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { RECALL_CLOSE, RECALL_OPEN } from '../../src/present/recall';
import { tmpDir } from '../helpers/tmp';
import { fakeClone } from '../helpers/clones';
import { CLI_TS, ROOT, runCli } from '../helpers/cliProcess';

/** Runs `command` as Claude Code does: `sh -c`, the input JSON on stdin, in the project folder. */
function runHook(command: string, input: string, cwd: string, env: Record<string, string>) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const p = spawn('sh', ['-c', command], { cwd, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
    p.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    p.on('error', reject);
    p.on('close', (code) => resolve({ code, stdout, stderr }));
    p.stdin.end(input);
  });
}

test('Claude Code hooks: session start briefing, prompt recall, stop logs the turn, bad input refused', { timeout: 300_000 }, async () => {
  const root = tmpDir('am-hooks-');
  const ws = fakeClone(root, 'repo');
  fs.writeFileSync(path.join(ws, 'agent.yaml'), 'embedding:\n  provider: hash\n');
  const env = { AGENT_MEMORY_HOME: path.join(root, 'home') };
  const hook = (event: string) => `"${process.execPath}" --import tsx "${CLI_TS}" hook ${event}`;
  const run = (event: string, input: unknown) =>
    runHook(`cd "${ROOT}" && ${hook(event)}`, typeof input === 'string' ? input : JSON.stringify(input), ws, env);

  // A turn of session one, as Claude Code writes its transcript.
  const transcript = path.join(root, 'one.jsonl');
  const line = (o: unknown) => `${JSON.stringify(o)}\n`;
  fs.writeFileSync(
    transcript,
    line({ type: 'user', uuid: 'u1', message: { role: 'user', content: 'Why does the deploy script hang on the health check?' } }) +
      line({
        type: 'assistant',
        uuid: 'a1',
        message: {
          role: 'assistant',
          content: [{ type: 'text', text: 'The health check polls port 8081 but the service listens on 8080.' }],
        },
      }),
  );
  const stopInput = { session_id: 'one', transcript_path: transcript, cwd: ws, hook_event_name: 'Stop', stop_hook_active: false };
  const stop = await run('stop', stopInput);
  assert.equal(stop.code, 0, stop.stderr);
  assert.equal(stop.stdout, '', 'Stop answers nothing');
  assert.equal((await run('stop', stopInput)).code, 0);
  const shown = await runCli(['session', 'show', 'one', '--workspace', ws, '--json'], env);
  assert.deepEqual(
    (JSON.parse(shown.stdout) as { events: { sequence: number }[] }).events.map((e) => e.sequence),
    [1, 2],
    'the turn is logged once though the hook ran twice',
  );
  await runCli(['scratchpad', 'one', 'point the health check at 8080', '--workspace', ws], env);
  await runCli(['add', 'Deploys go through scripts/deploy.sh, never by hand.', '--workspace', ws], env);

  // Session two starts: the briefing with the last session's open items, marked as data.
  const start = await run('session-start', { session_id: 'two', cwd: ws, hook_event_name: 'SessionStart', source: 'startup' });
  assert.equal(start.code, 0, start.stderr);
  const out = JSON.parse(start.stdout) as { hookSpecificOutput: { hookEventName: string; additionalContext: string } };
  assert.equal(out.hookSpecificOutput.hookEventName, 'SessionStart');
  const ctx = out.hookSpecificOutput.additionalContext;
  const inside = ctx.slice(ctx.indexOf(RECALL_OPEN), ctx.indexOf(RECALL_CLOSE));
  assert.match(inside, /Deploys go through scripts\/deploy\.sh/);
  assert.match(inside, /Last agent session: one \(claude-code\)/);
  assert.match(inside, /- point the health check at 8080/);
  assert.ok(ctx.length <= 1500 * 4, 'within the token budget');

  const prompt = await run('user-prompt-submit', {
    session_id: 'two',
    cwd: ws,
    hook_event_name: 'UserPromptSubmit',
    prompt: 'how do deploys work here?',
  });
  assert.equal(prompt.code, 0, prompt.stderr);
  const p = JSON.parse(prompt.stdout) as { hookSpecificOutput: { hookEventName: string; additionalContext: string } };
  assert.equal(p.hookSpecificOutput.hookEventName, 'UserPromptSubmit');
  assert.match(p.hookSpecificOutput.additionalContext, new RegExp(`${RECALL_OPEN}[^]*scripts/deploy\\.sh[^]*${RECALL_CLOSE}`));
  const nothing = await run('user-prompt-submit', {
    session_id: 'two',
    cwd: ws,
    hook_event_name: 'UserPromptSubmit',
    prompt: 'write a haiku about autumn',
  });
  assert.equal(nothing.code, 0, nothing.stderr);
  assert.equal(nothing.stdout, '', 'nothing relevant: nothing added');
  // The prompt hook owns the store here (nobody else does): its search has the embedder load while the store opens.
  const verbose = await runHook(
    `cd "${ROOT}" && ${hook('user-prompt-submit')} --verbose`,
    JSON.stringify({ session_id: 'two', cwd: ws, hook_event_name: 'UserPromptSubmit', prompt: 'how do deploys work here?' }),
    ws,
    env,
  );
  assert.equal(verbose.code, 0, verbose.stderr);
  assert.match(verbose.stderr, /^engine: loading the embedder \(hash\) while the store opens: a request that needs it is waiting$/m);
  assert.match(verbose.stdout, /scripts\/deploy\.sh/);

  for (const [event, input, said] of [
    ['session-start', 'not json', /stdin is not JSON/],
    ['user-prompt-submit', { session_id: 'two', cwd: ws, hook_event_name: 'UserPromptSubmit' }, /prompt is missing/],
    ['stop', { session_id: 'two', cwd: ws, hook_event_name: 'SessionStart', transcript_path: transcript }, /is for SessionStart, not Stop/],
  ] as const) {
    const r = await run(event, input);
    assert.equal(r.code, 1, `${event}: exit 1, never 2`);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, said);
  }
});
