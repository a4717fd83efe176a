// @tier process
// `agent-memory` as real processes: every command's --json is exactly one JSON object of the
// engine's type on stdout, exit codes 0 / 1 (one line on stderr) / 2 (usage); the first run
// owns the store (nobody else does), later runs are clients of an owner that is running.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type {
  CreateMemoryResult,
  EngineStats,
  HistoryEntry,
  ImportResult,
  ListResult,
  MemoryRecord,
  SearchResponse,
} from '../../src/engine/protocol';
import { tmpDir } from '../helpers/tmp';
import { fakeClone } from '../helpers/clones';
import { runCli, type CliRun } from '../helpers/cliProcess';
import { sharedClient } from '../engine/worker/owner/sharedHarness';

/** stdout is one line holding one JSON object; exit code 0. */
function oneObject<T>(r: CliRun): T {
  assert.equal(r.code, 0, `exit code (stderr: ${r.stderr})`);
  const lines = r.stdout.split('\n').filter((l) => l !== '');
  assert.equal(lines.length, 1, `exactly one line on stdout: ${r.stdout}`);
  const v = JSON.parse(lines[0]!) as T;
  assert.ok(v && typeof v === 'object' && !Array.isArray(v), 'a JSON object');
  return v;
}

function failsWith(r: CliRun, code: number, pattern: RegExp): void {
  assert.equal(r.code, code, `exit code (stdout: ${r.stdout}, stderr: ${r.stderr})`);
  assert.equal(r.stdout, '', 'nothing on stdout');
  assert.match(r.stderr.split('\n')[0]!, pattern);
}

test('every command: --json output and exit codes, as owner and as client', { timeout: 300_000 }, async () => {
  const root = tmpDir('am-cli-');
  const home = path.join(root, 'home');
  const ws = fakeClone(root, 'repo');
  fs.writeFileSync(path.join(ws, 'agent.yaml'), 'embedding:\n  provider: hash\n');
  const env = { AGENT_MEMORY_HOME: home };
  const cli = (...args: string[]) => runCli([...args, '--workspace', ws], env);

  // Nobody owns the store: the CLI opens it itself.
  const added = oneObject<CreateMemoryResult>(
    await cli(
      'add',
      'Integration tests need',
      'the docker daemon running locally.',
      '--title',
      'docker for tests',
      '--tags',
      'testing,docker',
      '--json',
    ),
  );
  assert.equal(added.status, 'created');
  if (added.status !== 'created') return;
  assert.equal(added.memory.content, 'Integration tests need the docker daemon running locally.');
  assert.deepEqual(added.memory.tags.sort(), ['docker', 'testing']);

  const owner = sharedClient({ home, workspaceRoot: fakeClone(root, 'other-clone') }, 'test owner');
  await owner.client.start();
  assert.equal(owner.transport()?.role, 'owner', 'the CLI released the store');
  try {
    const id = added.memory.id;
    const search = oneObject<SearchResponse>(await cli('search', 'docker daemon', '--json'));
    assert.equal(search.hits[0]?.memory.id, id, 'a client sees what the owner-CLI wrote');
    const got = oneObject<MemoryRecord>(await cli('get', id, '--json'));
    assert.equal(got.id, id);
    const list = oneObject<ListResult>(await cli('list', '--limit', '5', '--json'));
    assert.equal(list.total, 1);
    const updated = oneObject<MemoryRecord>(
      await cli('update', id, '--content', 'Integration tests need docker (daemon or rootless) running locally.', '--json'),
    );
    assert.equal(updated.version, 2);
    assert.match((await owner.client.request('memory.get', { id }))?.content ?? '', /rootless/, "the owner sees the client's update");
    const history = oneObject<{ id: string; history: HistoryEntry[] }>(await cli('history', id, '--json'));
    assert.deepEqual(
      history.history.map((h) => h.event),
      ['created', 'updated'],
    );
    const globalAdd = oneObject<CreateMemoryResult>(await cli('add', 'Prefer small pull requests.', '--scope', 'global', '--json'));
    assert.equal(globalAdd.status === 'created' && globalAdd.memory.scope, 'global');
    const file = path.join(root, 'export.jsonl');
    const exported = oneObject<{ path: string; count: number }>(await cli('export', file, '--scope', 'project', '--json'));
    assert.equal(exported.count, 1);
    assert.ok(fs.statSync(file).size > 0);
    const stats = oneObject<EngineStats>(await cli('stats', '--json'));
    assert.equal(stats.project.memories, 1);
    assert.equal(stats.global.memories, 1);
    const deleted = oneObject<MemoryRecord>(await cli('delete', id, '--reason', 'outdated', '--json'));
    assert.ok(deleted.deletedAt);
    const imported = oneObject<ImportResult>(await cli('import', file, '--json'));
    assert.equal(imported.total, 1);
    assert.equal(imported.created + imported.duplicates, 1);

    // An id that never existed is said so (test/cli/output.test.ts: a deleted one is told apart), then the code for scripts.
    failsWith(
      await cli('get', 'no-such-id', '--json'),
      1,
      /^agent-memory: No memory with id no-such-id\. "agent-memory list" or "agent-memory search" show the ids\. \[not_found\]$/,
    );
    failsWith(await cli('update', 'no-such-id', '--title', 'x'), 1, /^agent-memory: .*not_found/);
    failsWith(await runCli(['frobnicate'], env), 2, /unknown command "frobnicate"/);
    failsWith(await runCli(['get'], env), 2, /get: missing <id>/);
    failsWith(await runCli(['search', 'x', '--limit', 'many'], env), 2, /--limit: must be a whole number/);
    failsWith(await runCli(['list', '--scope', 'team'], env), 2, /--scope: must be one of project, global/);
    failsWith(await runCli(['list', '--bogus'], env), 2, /list: unknown option --bogus\./);
    const help = await runCli(['--help'], env);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /Usage: agent-memory/);
  } finally {
    await owner.client.shutdown();
  }
});

test('a command that searches or adds has the embedder load while the store opens (--verbose says so); a list does not', async () => {
  const root = tmpDir('am-cli-prepare-');
  const ws = fakeClone(root, 'repo');
  fs.writeFileSync(path.join(ws, 'agent.yaml'), 'embedding:\n  provider: hash\n');
  const env = { AGENT_MEMORY_HOME: path.join(root, 'home') };
  const cli = (...args: string[]) => runCli([...args, '--workspace', ws, '--verbose'], env);
  const loading = /^engine: loading the embedder \(hash\) while the store opens: a request that needs it is waiting$/m;
  const added = await cli('add', 'Integration tests need the docker daemon running locally.', '--json');
  assert.equal(added.code, 0, added.stderr);
  assert.match(added.stderr, loading);
  const found = await cli('search', 'docker daemon', '--json');
  assert.equal(found.code, 0, found.stderr);
  assert.match(found.stderr, loading);
  assert.equal(JSON.parse(found.stdout).hits.length, 1);
  const listed = await cli('list', '--json');
  assert.equal(listed.code, 0, listed.stderr);
  assert.doesNotMatch(listed.stderr, loading);
});
