// @tier process
// `agent-memory export` to every kind of target, as real processes on real files: `-` and
// /dev/stdout are this process's output (a pipe here), a symbolic link is written through to its
// target (the link stays), a FIFO, a character device and a Unix socket are opened and written
// directly (never renamed over), a new or replaced file is private (0600), a folder is refused.
// The store's owner is another process (the test's engine), so paths that only mean something in
// the CLI's process (/dev/stdout) must be written by the CLI itself.
import { test, before, after } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { tmpDir } from '../helpers/tmp';
import { fakeClone } from '../helpers/clones';
import { runCli, type CliRun } from '../helpers/cliProcess';
import { sharedClient, type SharedClient } from '../engine/worker/owner/sharedHarness';

const root = tmpDir('am-cli-export-');
const home = path.join(root, 'home');
const ws = fakeClone(root, 'repo');
const env = { AGENT_MEMORY_HOME: home };
const cli = (...args: string[]) => runCli([...args, '--workspace', ws], env);
let owner: SharedClient;

const TEXTS = ['Releases are cut from main every second Tuesday.', 'The staging database is reset every night at 02:00 UTC.'];

before(async () => {
  fs.writeFileSync(path.join(ws, 'agent.yaml'), 'embedding:\n  provider: hash\n');
  owner = sharedClient({ home, workspaceRoot: ws }, 'test owner');
  await owner.client.start();
  for (const content of TEXTS) await owner.client.request('memory.create', { content, scope: 'project' });
});

after(() => owner.client.shutdown());

/** The lines of an export: a header, then one memory per line, holding the test's memories. */
function assertExport(text: string, what: string): void {
  const lines = text.split('\n').filter(Boolean);
  assert.equal((JSON.parse(lines[0]!) as { format: string }).format, 'agent-memory-jsonl', `${what}: header line`);
  const contents = lines.slice(1).map((l) => (JSON.parse(l) as { content: string }).content);
  for (const t of TEXTS) assert.ok(contents.includes(t), `${what}: has "${t}"`);
}

function ok(r: CliRun): CliRun {
  assert.equal(r.code, 0, `exit code (stdout: ${r.stdout.slice(0, 300)}, stderr: ${r.stderr})`);
  return r;
}

const mode = (p: string) => fs.statSync(p).mode & 0o777;

test('export -: the export goes to stdout, the summary to stderr', { timeout: 120_000 }, async () => {
  const r = ok(await cli('export', '-'));
  assertExport(r.stdout, 'stdout');
  assert.match(r.stderr, /exported 2 memories/);
  assert.ok(!fs.existsSync(path.join(ws, '-')) && !fs.existsSync(path.join(process.cwd(), '-')), 'no file named "-"');
  const json = ok(await cli('export', '-', '--json'));
  assertExport(json.stdout, 'stdout with --json');
  assert.equal((JSON.parse(json.stderr) as { count: number }).count, 2, 'the --json summary is on stderr');
});

test("export through a symbolic link to this process's stdout: the link stays, stdout gets the export", { timeout: 60_000 }, async () => {
  // The same as /dev/stdout (a link to /proc/self/fd/1), in a folder of the test's own.
  const link = path.join(root, 'my-stdout');
  fs.symlinkSync('/proc/self/fd/1', link);
  const r = ok(await cli('export', link));
  assertExport(r.stdout, 'stdout through the link');
  assert.ok(fs.lstatSync(link).isSymbolicLink(), 'the link is still a link');
  assert.equal(fs.readlinkSync(link), '/proc/self/fd/1');
});

test('export /dev/stdout of a process whose stdout is a pipe: /dev/stdout stays a link', { timeout: 60_000 }, async () => {
  assert.ok(fs.lstatSync('/dev/stdout').isSymbolicLink(), "this machine's /dev/stdout is a link before the test");
  const r = ok(await cli('export', '/dev/stdout'));
  assertExport(r.stdout, '/dev/stdout');
  assert.ok(fs.lstatSync('/dev/stdout').isSymbolicLink(), '/dev/stdout is still a link');
});

test('export to a symbolic link: the target file is replaced (0600), the link is kept', { timeout: 60_000 }, async () => {
  const dir = path.join(root, 'elsewhere');
  fs.mkdirSync(dir);
  const target = path.join(dir, 'memories.jsonl');
  fs.writeFileSync(target, 'old content\n', { mode: 0o644 });
  fs.chmodSync(target, 0o644);
  const link = path.join(root, 'link.jsonl');
  fs.symlinkSync(target, link);
  ok(await cli('export', link));
  assert.ok(fs.lstatSync(link).isSymbolicLink(), 'the link is still a link');
  assert.equal(fs.readlinkSync(link), target);
  assertExport(fs.readFileSync(target, 'utf8'), "the link's target");
  assert.equal(mode(target), 0o600, 'the export is private');
  assert.deepEqual(fs.readdirSync(dir), ['memories.jsonl'], 'no temporary file left next to the target');
  // A link to a file that does not exist yet: the file is made where the link points.
  const dangling = path.join(root, 'dangling.jsonl');
  const fresh = path.join(dir, 'new.jsonl');
  fs.symlinkSync(fresh, dangling);
  ok(await cli('export', dangling));
  assert.ok(fs.lstatSync(dangling).isSymbolicLink());
  assertExport(fs.readFileSync(fresh, 'utf8'), "the dangling link's target");
  assert.equal(mode(fresh), 0o600);
});

test('export to a new file and over an existing one: both are private (0600)', { timeout: 60_000 }, async () => {
  const file = path.join(root, 'plain.jsonl');
  ok(await cli('export', file));
  assertExport(fs.readFileSync(file, 'utf8'), 'new file');
  assert.equal(mode(file), 0o600);
  fs.chmodSync(file, 0o644);
  ok(await cli('export', file));
  assert.equal(mode(file), 0o600, 'an export replacing a readable file is private again');
});

test('export to a FIFO: a reader gets the export, the FIFO stays a FIFO', { timeout: 60_000 }, async () => {
  const fifo = path.join(root, 'pipe');
  execFileSync('mkfifo', [fifo]);
  const reader = spawn('cat', [fifo], { stdio: ['ignore', 'pipe', 'inherit'] });
  let got = '';
  reader.stdout.on('data', (d: Buffer) => (got += d.toString('utf8')));
  const done = new Promise((resolve) => reader.on('close', resolve));
  try {
    ok(await cli('export', fifo));
    // A FIFO renamed over would leave the reader waiting for ever: give it 20 s.
    const waited = await Promise.race([done.then(() => 'closed'), new Promise((r) => setTimeout(r, 20_000, 'waiting'))]);
    assert.equal(waited, 'closed', 'the reader got the end of the export');
  } finally {
    reader.kill();
  }
  assertExport(got, "the FIFO's reader");
  assert.ok(fs.lstatSync(fifo).isFIFO(), 'still a FIFO');
});

test('export to a character device (/dev/null) and to a Unix socket: written directly', { timeout: 60_000 }, async () => {
  ok(await cli('export', '/dev/null'));
  assert.ok(fs.lstatSync('/dev/null').isCharacterDevice(), '/dev/null is still a device');
  const sock = path.join(root, 'listener.sock');
  let got = '';
  let ended!: () => void;
  const received = new Promise<void>((resolve) => (ended = resolve));
  const server = net.createServer((c) => {
    c.on('data', (d: Buffer) => (got += d.toString('utf8')));
    c.on('end', ended);
  });
  await new Promise<void>((resolve) => server.listen(sock, resolve));
  try {
    ok(await cli('export', sock));
    await received;
    assertExport(got, "the socket's listener");
    assert.ok(fs.lstatSync(sock).isSocket(), 'the socket is still a socket');
  } finally {
    server.close();
  }
});

test('export to a folder or into a missing folder: a clear error, nothing written', { timeout: 60_000 }, async () => {
  const r = await cli('export', root);
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /is a folder: give a file name/);
  const missing = await cli('export', path.join(root, 'no-such-folder', 'x.jsonl'));
  assert.equal(missing.code, 1, missing.stderr);
  assert.match(missing.stderr, /no-such-folder.*does not exist/);
});
