// @tier process
// Another local user cannot impersonate a store's owner (ARCHITECTURE.md "One owner, many clients").
// A store folder too deep for a Unix socket path puts its socket in a per-user runtime folder; a
// second, real OS user (`nobody`, through setpriv) tries every way in: a socket at the old shared
// /tmp name, the runtime folder made first, a symbolic link planted in its place. The real CLI,
// run as a process, must send the impostor nothing (no secret, no memory text), never print its
// forged `created`, and refuse with a sentence naming the folder when it cannot be private.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { projectStoreDir } from '../../../src/engine/socket/endpoint';
import { tmpDir } from '../../helpers/tmp';
import { fakeClone } from '../../helpers/clones';
import { ROOT, runCli, type CliRun } from '../../helpers/cliProcess';

const SETPRIV = ['/usr/bin/setpriv', '/bin/setpriv'].find((p) => fs.existsSync(p));
const IMPOSTOR = path.join(ROOT, 'test/helpers/impostor.mjs');
const skip =
  process.platform === 'win32'
    ? 'Unix sockets and uids only'
    : process.getuid?.() !== 0
      ? 'running a second OS user needs root (setpriv); this run is not root'
      : !SETPRIV
        ? 'setpriv (util-linux) is not installed'
        : false;

interface World {
  /** TMPDIR of every process here: a sticky, world-writable folder like /tmp, private to this test. */
  tmp: string;
  home: string;
  ws: string;
  env: Record<string, string>;
}

function world(): World {
  const root = tmpDir('am-other-user-');
  fs.chmodSync(root, 0o755); // `nobody` must reach tmp/ inside
  const tmp = path.join(root, 'tmp');
  fs.mkdirSync(tmp);
  fs.chmodSync(tmp, 0o1777);
  // A store home deep enough that <store>/engine.sock is longer than a Unix socket path may be.
  const home = path.join(root, 'a-store-home-with-a-long-name-so-the-socket-does-not-fit-in-the-store-folder');
  const ws = fakeClone(root, 'repo');
  fs.writeFileSync(path.join(ws, 'agent.yaml'), 'embedding:\n  provider: hash\n');
  return { tmp, home, ws, env: { AGENT_MEMORY_HOME: home, TMPDIR: tmp, XDG_RUNTIME_DIR: '' } };
}

interface Impostor {
  proc: ChildProcess;
  /** Every JSON line it printed: {event: 'listening' | 'connection' | 'data', …}. */
  events: { event: string; text?: string }[];
  stop(): Promise<void>;
}

/** Runs test/helpers/impostor.mjs as `nobody` and waits until it listens. */
function impostor(w: World, args: string[]): Promise<Impostor> {
  const proc = spawn(SETPRIV!, ['--reuid=nobody', '--regid=nogroup', '--clear-groups', process.execPath, IMPOSTOR, ...args], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', TMPDIR: w.tmp },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const events: Impostor['events'] = [];
  let out = '';
  let err = '';
  const stop = () =>
    new Promise<void>((resolve) => {
      if (proc.exitCode !== null) return resolve();
      proc.once('exit', () => resolve());
      proc.kill('SIGTERM');
    });
  return new Promise((resolve, reject) => {
    proc.stderr.on('data', (d: Buffer) => (err += d.toString('utf8')));
    proc.stdout.on('data', (d: Buffer) => {
      out += d.toString('utf8');
      for (let nl = out.indexOf('\n'); nl !== -1; nl = out.indexOf('\n')) {
        const e = JSON.parse(out.slice(0, nl)) as { event: string; uid?: number };
        out = out.slice(nl + 1);
        events.push(e);
        if (e.event === 'listening') {
          assert.equal(e.uid, 65534, 'the impostor runs as nobody');
          resolve({ proc, events, stop });
        }
      }
    });
    proc.on('exit', (code) => reject(new Error(`the impostor exited (${code}) before listening: ${err}`)));
  });
}

/** Every secret the store folder holds (whatever its file is called), to look for in what the impostor got. */
function secretsIn(storeDir: string): string[] {
  return fs
    .readdirSync(storeDir)
    .filter((f) => /^engine\.(secret|auth)$/.test(f))
    .flatMap((f) => fs.readFileSync(path.join(storeDir, f), 'utf8').match(/[0-9a-f]{64}/g) ?? []);
}

function assertNothingLeaked(imp: Impostor, secrets: string[], text: string): void {
  const received = imp.events.filter((e) => e.event === 'data').map((e) => e.text ?? '');
  for (const s of secrets) assert.ok(!received.some((r) => r.includes(s)), 'the store secret never reaches another user');
  assert.ok(!received.some((r) => r.includes(text)), 'the memory text never reaches another user');
  assert.equal(imp.events.filter((e) => e.event === 'connection').length, 0, 'the client never connects to a socket of another user');
}

function assertRefused(run: CliRun, folder: string, why: RegExp): void {
  assert.equal(run.code, 1, `refused with exit code 1: ${run.stdout}${run.stderr}`);
  assert.doesNotMatch(run.stdout, /created/, 'no forged created');
  assert.ok(run.stderr.includes(folder), `the error names the folder: ${run.stderr}`);
  assert.match(run.stderr, why);
}

async function storeDirOf(w: World): Promise<string> {
  const dir = await projectStoreDir({ home: w.home, workspaceRoot: w.ws });
  assert.ok(Buffer.byteLength(path.join(dir, 'engine.sock')) > 108, 'the socket cannot live in the store folder');
  return dir;
}

const tagOf = (storeDir: string) => createHash('sha256').update(path.resolve(storeDir)).digest('hex').slice(0, 16);

test(
  'a socket another user binds at the old shared /tmp name gets nothing; the write reaches the store',
  { skip, timeout: 180_000 },
  async () => {
    const w = world();
    assert.equal((await runCli(['add', 'The build cache lives in the CI runner image.', '--workspace', w.ws], w.env)).code, 0);
    const storeDir = await storeDirOf(w);
    const imp = await impostor(w, ['bind', path.join(w.tmp, `agent-memory-0-${tagOf(storeDir)}.sock`)]);
    const text = 'The staging deploy key is rotated every Friday by the release manager.';
    let run: CliRun;
    try {
      run = await runCli(['add', text, '--workspace', w.ws, '--json'], w.env);
    } finally {
      await imp.stop();
    }
    assertNothingLeaked(imp, secretsIn(storeDir), text);
    assert.equal(run.code, 0, run.stderr);
    const created = JSON.parse(run.stdout) as { status: string; memory: { id: string } };
    assert.equal(created.status, 'created');
    const got = await runCli(['get', created.memory.id, '--workspace', w.ws, '--json'], w.env);
    assert.equal((JSON.parse(got.stdout) as { content: string }).content, text, 'the memory is really in the store');
  },
);

test(
  'a runtime folder made first by another user is refused with a clear error, and nothing is sent',
  { skip, timeout: 180_000 },
  async () => {
    const w = world();
    assert.equal((await runCli(['add', 'The build cache lives in the CI runner image.', '--workspace', w.ws], w.env)).code, 0);
    const storeDir = await storeDirOf(w);
    const runtime = path.join(w.tmp, 'agent-memory-0');
    fs.rmSync(runtime, { recursive: true, force: true }); // as a reboot or a /tmp cleaner would
    const imp = await impostor(w, ['squat', runtime, `${tagOf(storeDir)}.sock`]);
    const text = 'The production database password is kept in the team vault.';
    let run: CliRun;
    try {
      run = await runCli(['add', text, '--workspace', w.ws], w.env);
    } finally {
      await imp.stop();
    }
    assertNothingLeaked(imp, secretsIn(storeDir), text);
    assertRefused(run, runtime, /belongs to another user/);
  },
);

test(
  'a symbolic link planted where the runtime folder goes is refused, before the store is ever opened',
  { skip, timeout: 180_000 },
  async () => {
    const w = world();
    const storeDir = await storeDirOf(w);
    const runtime = path.join(w.tmp, 'agent-memory-0');
    const imp = await impostor(w, ['symlink', runtime, path.join(w.tmp, 'nobody-owns-this'), `${tagOf(storeDir)}.sock`]);
    const text = 'The on-call rota is in the shared calendar.';
    let run: CliRun;
    try {
      run = await runCli(['add', text, '--workspace', w.ws], w.env);
    } finally {
      await imp.stop();
    }
    assertNothingLeaked(imp, [], text);
    assertRefused(run, runtime, /symbolic link/);
  },
);
