// @tier process
// `agent-memory session`, `scratchpad` and `note` as real processes (docs/sessions.md): events
// logged from stdin JSON, listed, shown, searched, summarised and forgotten (only with --yes);
// the scratchpad's limits refused with nothing changed; notes stored, listed and deleted.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { tmpDir } from '../helpers/tmp';
import { fakeClone } from '../helpers/clones';
import { runCli } from '../helpers/cliProcess';

test('session, scratchpad and note through the CLI', { timeout: 300_000 }, async () => {
  const root = tmpDir('am-cli-sessions-');
  const ws = fakeClone(root, 'repo');
  fs.writeFileSync(path.join(ws, 'agent.yaml'), 'embedding:\n  provider: hash\n');
  const env = { AGENT_MEMORY_HOME: path.join(root, 'home') };
  const cli = (args: string[], stdin?: string) => runCli([...args, '--workspace', ws], env, stdin === undefined ? {} : { stdin });

  const jsonl = [
    JSON.stringify({ role: 'user', content: 'The release build fails when the cache volume is full.' }),
    JSON.stringify({ role: 'assistant', content: 'Pruning the cache volume before the release build keeps it under the quota.' }),
  ].join('\n');
  const logged = await cli(['session', 'log', 'conv-7', '--agent', 'script', '--json'], jsonl);
  assert.equal(logged.code, 0, logged.stderr);
  assert.deepEqual(JSON.parse(logged.stdout).sequences, [1, 2]);

  const notJson = await cli(['session', 'log', 'conv-7'], 'not json at all');
  assert.equal(notJson.code, 2);
  assert.match(notJson.stderr, /line 1 of stdin is not JSON/);

  const list = await cli(['session', 'list']);
  assert.match(list.stdout, /^1 session\nconv-7 \(script\): 2 events, last active/);
  const show = await cli(['session', 'show', 'conv-7']);
  assert.match(show.stdout, /1\. user: The release build fails/);
  assert.match(show.stdout, /2\. assistant: Pruning the cache volume/);
  const search = await cli(['session', 'search', 'release build cache volume']);
  assert.match(search.stdout, /^1\. conv-7 turns 1-\d/);

  const pad = await cli(['scratchpad', 'conv-7', 'prune nightly', 'raise the quota']);
  assert.equal(pad.stdout.trim(), '- prune nightly\n- raise the quota');
  const over = await cli(['scratchpad', 'conv-7', 'x'.repeat(241)]);
  assert.equal(over.code, 1);
  assert.match(over.stderr, /240/);
  assert.equal((await cli(['scratchpad', 'conv-7'])).stdout.trim(), '- prune nightly\n- raise the quota', 'nothing changed');

  const note = await cli(['note', 'add', 'The quota is 40 GB.', '--session', 'conv-7', '--tags', 'Infra, infra', '--json']);
  const noteId = JSON.parse(note.stdout).noteId as string;
  assert.match(noteId, /^note-/);
  assert.match((await cli(['note', 'list', '--session', 'conv-7'])).stdout, new RegExp(`${noteId} \\[infra\\]: The quota is 40 GB\\.`));

  // The note is an event of the session too: 3 events.
  const asked = await cli(['session', 'forget', 'conv-7']);
  assert.equal(asked.code, 2);
  assert.match(asked.stderr, /removes conv-7 and its 3 events for good: run it again with --yes/);
  assert.match((await cli(['session', 'list'])).stdout, /^1 session/, 'nothing forgotten without --yes');
  const forgot = await cli(['session', 'forget', 'conv-7', '--yes']);
  assert.equal(forgot.code, 0, forgot.stderr);
  assert.match(forgot.stdout, /forgot conv-7: 3 events/);
  assert.match((await cli(['session', 'list'])).stdout, /^0 sessions/);
  const late = await cli(['session', 'log', 'conv-7'], JSON.stringify({ role: 'user', content: 'late' }));
  assert.equal(late.code, 1);
  assert.match(late.stderr, /forgot/i);
});
