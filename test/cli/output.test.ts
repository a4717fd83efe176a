// @tier process
// What a person reads from `agent-memory`, as real processes: an untitled memory is named by its
// first words in the human output of add, list and search (its id after the name), `add -` reads
// the text from stdin, and an id that never existed is told apart from a memory that was deleted
// (restorable), expired or merged into another.
import { test, before, after } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { CreateMemoryResult, MemoryRecord } from '../../src/engine/protocol';
import { missingText } from '../../src/cli/notFound';
import { tmpDir } from '../helpers/tmp';
import { fakeClone } from '../helpers/clones';
import { runCli, type CliRun } from '../helpers/cliProcess';
import { sharedClient, type SharedClient } from '../engine/worker/owner/sharedHarness';

const root = tmpDir('am-cli-output-');
const home = path.join(root, 'home');
const ws = fakeClone(root, 'repo');
const env = { AGENT_MEMORY_HOME: home };
const cli = (args: string[], stdin?: string) => runCli([...args, '--workspace', ws], env, stdin === undefined ? {} : { stdin });
let owner: SharedClient;

before(async () => {
  fs.writeFileSync(path.join(ws, 'agent.yaml'), 'embedding:\n  provider: hash\n');
  owner = sharedClient({ home, workspaceRoot: ws }, 'test owner');
  await owner.client.start();
});

after(() => owner.client.shutdown());

function ok(r: CliRun): string {
  assert.equal(r.code, 0, `exit code (stderr: ${r.stderr})`);
  return r.stdout;
}

const UNTITLED = 'Flaky integration tests are retried twice by the CI runner before failing the build.';

test(
  'human output names an untitled memory by its first words in add, list and search; its id follows the name, never alone',
  { timeout: 90_000 },
  async () => {
    const add = ok(await cli(['add', UNTITLED]));
    const id = (await owner.client.request('memory.list', {})).items.find((m) => m.preview.startsWith('Flaky'))!.id;
    const namedThenId = new RegExp(`Flaky integration tests are retried.*\\bid ${id}`);
    assert.match(add, namedThenId, `add names the memory, then its id: ${add}`);
    const list = ok(await cli(['list']));
    assert.match(list, new RegExp(`^Flaky integration tests are retried.*\\bid ${id}$`, 'm'), list);
    const search = ok(await cli(['search', 'flaky integration tests']));
    assert.match(search, new RegExp(`^1\\. Flaky integration tests are retried.*\\bid ${id}$`, 'm'), search);
    for (const out of [add, list, search]) {
      for (const line of out.split('\n').filter((l) => l.includes(id))) {
        assert.ok(line.indexOf('Flaky') >= 0 && line.indexOf('Flaky') < line.indexOf(id), `the name comes first: ${line}`);
      }
    }
    const json = JSON.parse(ok(await cli(['list', '--json']))) as { items: { id: string }[] };
    assert.ok(
      json.items.some((m) => m.id === id),
      'the id is in --json',
    );
  },
);

test('add - reads the text from stdin', { timeout: 60_000 }, async () => {
  const r = JSON.parse(ok(await cli(['add', '-', '--json'], 'The release checklist lives in docs/RELEASING.md.\n'))) as CreateMemoryResult;
  assert.equal(r.status, 'created');
  assert.equal(r.status === 'created' && r.memory.content, 'The release checklist lives in docs/RELEASING.md.');
  const empty = await cli(['add', '-'], '   \n');
  assert.equal(empty.code, 2, empty.stderr);
  assert.match(empty.stderr, /add: stdin was empty/);
});

test('an id that never existed and a deleted memory are told apart', { timeout: 120_000 }, async () => {
  const never = await cli(['get', 'no-such-id']);
  assert.equal(never.code, 1);
  assert.match(
    never.stderr,
    /^agent-memory: No memory with id no-such-id\. "agent-memory list" or "agent-memory search" show the ids\. \[not_found\]$/m,
  );
  assert.doesNotMatch(never.stderr, /deleted meanwhile/);
  for (const args of [
    ['update', 'no-such-id', '--title', 'x'],
    ['delete', 'no-such-id'],
    ['history', 'no-such-id'],
    ['restore', 'no-such-id'],
  ]) {
    const r = await cli(args);
    assert.equal(r.code, 1, args.join(' '));
    assert.match(r.stderr, /^agent-memory: No memory with id no-such-id\./, args.join(' '));
  }
  const created = await owner.client.request('memory.create', { content: 'The old wiki at wiki.example.com is read-only since March.' });
  assert.equal(created.status, 'created');
  const id = created.memory.id;
  ok(await cli(['delete', id, '--reason', 'outdated']));
  for (const args of [
    ['get', id],
    ['update', id, '--title', 'x'],
    ['delete', id],
  ]) {
    const r = await cli(args);
    assert.equal(r.code, 1, args.join(' '));
    assert.match(
      r.stderr,
      new RegExp(
        `^agent-memory: "The old wiki at wiki\\.example\\.com is read-only since March" was deleted (just now|.* ago)\\. Restore it with "agent-memory restore ${id}" \\(in VS Code: Recently Deleted and Expired\\)\\. \\[not_found\\]$`,
        'm',
      ),
      `${args.join(' ')}: ${r.stderr}`,
    );
  }
});

test('missingText: never existed, deleted, expired and merged, each in its own words', () => {
  const now = new Date('2026-03-10T12:00:00.000Z');
  const base = {
    id: 'm1',
    title: '',
    content: 'Deploys need two approvals from the on-call pair.',
    replacedBy: null,
    retentionStatus: 'deleted',
  };
  const record = (over: Partial<MemoryRecord>) => ({ ...base, deletedAt: '2026-03-10T11:00:00.000Z', ...over }) as MemoryRecord;
  assert.equal(missingText('zz', null, null, now), 'No memory with id zz. "agent-memory list" or "agent-memory search" show the ids.');
  assert.equal(
    missingText('m1', record({}), null, now),
    '"Deploys need two approvals from the on-call pair" was deleted 1 hour ago. Restore it with "agent-memory restore m1" (in VS Code: Recently Deleted and Expired).',
  );
  assert.match(
    missingText('m1', record({ retentionStatus: 'expired' }), null, now),
    /^"Deploys need two approvals from the on-call pair" expired 1 hour ago\. Restore it/,
  );
  const survivor = record({ id: 'm2', title: 'Deploy approvals', deletedAt: null });
  assert.equal(
    missingText('m1', record({ retentionStatus: 'merged', replacedBy: 'm2' }), survivor, now),
    '"Deploys need two approvals from the on-call pair" was merged into "Deploy approvals" 1 hour ago: its text lives on there ("agent-memory history m2" shows the merge).',
  );
});
