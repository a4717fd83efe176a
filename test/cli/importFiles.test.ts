// @tier process
// `agent-memory import` of odd files, as real processes on real files: `-` reads stdin, a folder
// and a binary file are refused with a sentence saying what to give instead, a byte order mark and
// CRLF, CR-only or LF line endings all import, and an import where every line fails exits 1 and
// lists the failing line numbers with their reason (bounded, "and N more").
import { test, before, after } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ImportResult } from '../../src/engine/protocol';
import { tmpDir } from '../helpers/tmp';
import { fakeClone } from '../helpers/clones';
import { runCli, type CliRun } from '../helpers/cliProcess';
import { sharedClient, type SharedClient } from '../engine/worker/owner/sharedHarness';

const root = tmpDir('am-cli-import-');
const home = path.join(root, 'home');
const ws = fakeClone(root, 'repo');
const env = { AGENT_MEMORY_HOME: home };
const cli = (args: string[], stdin?: string | Buffer) => runCli([...args, '--workspace', ws], env, stdin === undefined ? {} : { stdin });
let owner: SharedClient;

before(async () => {
  fs.writeFileSync(path.join(ws, 'agent.yaml'), 'embedding:\n  provider: hash\n');
  owner = sharedClient({ home, workspaceRoot: ws }, 'test owner');
  await owner.client.start();
});

after(() => owner.client.shutdown());

function imported(r: CliRun): ImportResult {
  assert.equal(r.code, 0, `exit code (stdout: ${r.stdout}, stderr: ${r.stderr})`);
  return JSON.parse(r.stdout) as ImportResult;
}

const line = (content: string) => JSON.stringify({ content });

test('import -: the memories come from stdin', { timeout: 60_000 }, async () => {
  const text = [line('Stdin import: the build cache lives in ~/.cache/widgets.'), line('Stdin import: CI retries flaky tests twice.')].join(
    '\n',
  );
  const r = imported(await cli(['import', '-', '--json'], text));
  assert.equal(r.created, 2);
  assert.equal(r.errors.length, 0);
});

test('import from a FIFO (as `<(…)` in a shell gives): the CLI reads it, the engine gets a file', { timeout: 60_000 }, async () => {
  const fifo = path.join(root, 'incoming');
  execFileSync('mkfifo', [fifo]);
  const writer = spawn('sh', [
    '-c',
    'printf "%s\\n" "$1" > "$2"',
    'sh',
    line('FIFO import: the nightly job rotates the logs at 03:00.'),
    fifo,
  ]);
  try {
    const r = imported(await cli(['import', fifo, '--json']));
    assert.equal(r.created, 1);
  } finally {
    writer.kill();
  }
});

test('import of a folder or a binary file: a clear error and exit 1, nothing imported', { timeout: 60_000 }, async () => {
  const folder = await cli(['import', root]);
  assert.equal(folder.code, 1, folder.stderr);
  assert.match(folder.stderr, /is a folder: give a \.jsonl or \.json file/);
  assert.doesNotMatch(folder.stderr, /internal/);
  const missing = await cli(['import', path.join(root, 'no-such-file.jsonl')]);
  assert.equal(missing.code, 1, missing.stderr);
  assert.match(missing.stderr, /no-such-file\.jsonl: it does not exist/);
  const bin = path.join(root, 'program.jsonl');
  fs.writeFileSync(
    bin,
    Buffer.concat([Buffer.from('\x7fELF\x02\x01\x01\x00\x00\x00'), fs.readFileSync(process.execPath).subarray(0, 4096)]),
  );
  const binary = await cli(['import', bin]);
  assert.equal(binary.code, 1, binary.stderr);
  assert.match(binary.stderr, /not a text file/);
  const latin1 = path.join(root, 'latin1.jsonl');
  fs.writeFileSync(latin1, Buffer.from('{"content":"Caf\xe9 au lait is served at nine every day."}\n', 'latin1'));
  const notUtf8 = await cli(['import', latin1]);
  assert.equal(notUtf8.code, 1, notUtf8.stderr);
  assert.match(notUtf8.stderr, /not UTF-8 text/);
});

test('import: a byte order mark and CRLF, CR-only or LF line endings all work', { timeout: 120_000 }, async () => {
  const endings = { crlf: '\r\n', cr: '\r', lf: '\n' };
  for (const [name, eol] of Object.entries(endings)) {
    const file = path.join(root, `${name}.jsonl`);
    const lines = [
      JSON.stringify({ format: 'agent-memory-jsonl', version: 1, exportedAt: '2026-01-01T00:00:00.000Z', projectId: 'x', count: 2 }),
      line(`Line endings ${name}: the release branch is frozen on Thursdays.`),
      '{"content": broken',
      line(`Line endings ${name}: deploys need two approvals.`),
    ];
    fs.writeFileSync(file, '\ufeff' + lines.join(eol) + eol);
    const r = imported(await cli(['import', file, '--json']));
    assert.equal(r.format, 'jsonl', name);
    assert.equal(r.created, 2, `${name}: both good lines imported (${JSON.stringify(r.errors)})`);
    assert.deepEqual(
      r.errors.map((e) => e.line),
      [3],
      `${name}: the bad line is line 3`,
    );
  }
  // A JSON array with a byte order mark.
  const json = path.join(root, 'bom.json');
  fs.writeFileSync(json, '\ufeff' + JSON.stringify([{ content: 'A JSON file with a BOM: the wiki moved to the handbook.' }]));
  assert.equal(imported(await cli(['import', json, '--json'])).created, 1);
});

test('import where every line fails: exit 1, the failing lines listed with their reason, bounded', { timeout: 60_000 }, async () => {
  const file = path.join(root, 'all-bad.jsonl');
  const bad = Array.from({ length: 14 }, (_, i) => (i % 2 ? '{"title": "no content here"}' : `not json ${i}`));
  fs.writeFileSync(file, bad.join('\n') + '\n');
  const r = await cli(['import', file]);
  assert.equal(r.code, 1, `exit code (stdout: ${r.stdout}, stderr: ${r.stderr})`);
  assert.match(r.stdout, /^line 1: not valid JSON/m);
  assert.match(r.stdout, /^line 2: no "content" text/m);
  assert.match(r.stdout, /^line 10: /m);
  assert.doesNotMatch(r.stdout, /^line 11: /m, 'the list is bounded');
  assert.match(r.stdout, /and 4 more/);
  assert.match(r.stderr, /^agent-memory: nothing was imported/);
  const json = await cli(['import', file, '--json']);
  assert.equal(json.code, 1);
  const result = JSON.parse(json.stdout) as ImportResult;
  assert.equal(result.errors.length, 14, 'every line with its number in --json');
  assert.equal(result.created, 0);
  // A file where some lines fail still succeeds, and names the failing lines.
  const mixed = path.join(root, 'mixed.jsonl');
  fs.writeFileSync(mixed, [line('Mixed file: the on-call rota changes on Mondays.'), 'oops'].join('\n'));
  const partial = await cli(['import', mixed]);
  assert.equal(partial.code, 0, partial.stderr);
  assert.match(partial.stdout, /^line 2: not valid JSON/m);
});
