/**
 * The store lock: created atomically with its content, never taken over while its owner may be
 * alive, and messages that say who owns it, why it counts as alive, and how to take it over.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawn } from 'node:child_process';
import { StoreLock, StoreLockedError } from '../../../src/core/store/lock';
import { tmpDir } from '../../helpers/tmp';

function writeLock(dir: string, info: Record<string, unknown>): string {
  const file = path.join(dir, 'store.lock');
  fs.writeFileSync(file, JSON.stringify({ token: 'theirs', acquiredAt: '2026-01-01T00:00:00.000Z', ...info }));
  return file;
}

function lockedError(fn: () => unknown): StoreLockedError {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof StoreLockedError, String(e));
    return e;
  }
  assert.fail('expected StoreLockedError');
}

test('the lock file is never seen empty: it appears with its content, and nothing is left beside it', () => {
  const dir = tmpDir();
  const file = path.join(dir, 'store.lock');
  // Watch the folder while the lock is created: every time the file exists it holds the full JSON.
  const seen: string[] = [];
  const watcher = fs.watch(dir, () => {
    try {
      seen.push(fs.readFileSync(file, 'utf8'));
    } catch {
      // not there (yet)
    }
  });
  try {
    for (let i = 0; i < 20; i++) {
      const lock = StoreLock.acquire(dir, 'test');
      const content = JSON.parse(fs.readFileSync(file, 'utf8')) as { pid: number; purpose: string };
      assert.equal(content.pid, process.pid);
      lock.release();
    }
  } finally {
    watcher.close();
  }
  for (const s of seen) assert.ok(s.length > 0 && JSON.parse(s).pid === process.pid, `saw ${JSON.stringify(s)}`);
  assert.deepEqual(fs.readdirSync(dir), []);
});

test('two processes racing for a free store: exactly one wins every time', { timeout: 120_000 }, async () => {
  const script = `
    const { StoreLock } = require(${JSON.stringify(path.resolve(__dirname, '../../../src/core/store/lock.ts'))});
    const [dir, at] = process.argv.slice(-2);
    while (Date.now() < Number(at)) {}
    try { StoreLock.acquire(dir, 'racer ' + process.pid); console.log('WON'); } catch (e) { console.log('LOST ' + e.code); }
    setInterval(() => {}, 1000); // holds the lock until killed
  `;
  for (let round = 0; round < 3; round++) {
    const dir = tmpDir();
    const at = Date.now() + 1500;
    const procs: ReturnType<typeof spawn>[] = [];
    const run = () =>
      new Promise<string>((resolve) => {
        const p = spawn(process.execPath, ['--import', 'tsx', '-e', script, dir, String(at)], { stdio: ['ignore', 'pipe', 'inherit'] });
        procs.push(p);
        let out = '';
        p.stdout!.on('data', (d) => {
          out += String(d);
          if (out.includes('\n')) resolve(out.trim());
        });
        p.on('exit', () => resolve(out.trim()));
      });
    // Both stay alive (holding what they got) until both have answered.
    const results = await Promise.all([run(), run()]);
    procs.forEach((p) => p.kill('SIGKILL'));
    assert.deepEqual(results.sort(), ['LOST store_locked', 'WON'], `round ${round}`);
  }
});

test('a lock from another host: refused, saying why and how to take it over', () => {
  const dir = tmpDir();
  const file = writeLock(dir, { pid: 4242, host: 'build-server-7', procStart: '123', purpose: 'Agent Memory engine' });
  const e = lockedError(() => StoreLock.acquire(dir));
  assert.match(e.message, /in use by Agent Memory engine \(pid 4242 on build-server-7/);
  assert.match(e.message, /another computer \(build-server-7\)/);
  assert.ok(e.message.includes(`delete ${file}`), e.message);
  assert.equal(fs.readFileSync(file, 'utf8').includes('build-server-7'), true, 'left as it was');
});

test('a lock without a start time whose pid is running: refused with the reason, never "no longer running"', () => {
  const dir = tmpDir();
  writeLock(dir, { pid: process.pid, host: os.hostname(), procStart: null, purpose: 'the agent-memory CLI' });
  const e = lockedError(() => StoreLock.acquire(dir));
  assert.match(e.message, /in use by the agent-memory CLI/);
  assert.match(e.message, /no process start time/);
  assert.doesNotMatch(e.message, /no longer running/);
});

test('a live owner is named by the purpose in its lock, not assumed to be a VS Code window', () => {
  const dir = tmpDir();
  const owner = StoreLock.acquire(dir, 'the MCP server');
  const e = lockedError(() => StoreLock.acquire(dir));
  assert.match(e.message, /in use by the MCP server \(pid \d+/);
  assert.doesNotMatch(e.message, /VS Code window/);
  owner.release();
});

test('a pid reused by another process (pid 1 runs, but not since the lock): taken over, and the warning says so', () => {
  const dir = tmpDir();
  writeLock(dir, { pid: 1, host: os.hostname(), procStart: '1' });
  const running = fs.existsSync('/proc/1/stat');
  if (!running) return; // start times are read from /proc (Linux)
  const lock = StoreLock.acquire(dir);
  assert.match(lock.tookOver ?? '', /pid 1 \(that process ended; the pid now belongs to another process\)/);
  assert.doesNotMatch(lock.tookOver ?? '', /no longer running/);
  lock.release();
});

test('a lock whose owner was killed but not yet reaped (a zombie): taken over as stale', { timeout: 60_000 }, async (t) => {
  if (!fs.existsSync('/proc/self/stat')) return t.skip('process states are read from /proc (Linux)');
  // `sleep 0` ends at once; its parent then becomes `sleep 30` (exec), which never reaps it: a zombie.
  const parent = spawn('sh', ['-c', 'sleep 0 & echo $!; exec sleep 30'], { stdio: ['ignore', 'pipe', 'ignore'] });
  try {
    const pid = Number(await new Promise<string>((resolve) => parent.stdout.once('data', (d: Buffer) => resolve(d.toString()))));
    const stat = () => fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const end = Date.now() + 30_000;
    while (stat().slice(stat().lastIndexOf(')') + 2)[0] !== 'Z') {
      assert.ok(Date.now() < end, 'the child became a zombie');
      await new Promise((r) => setTimeout(r, 20));
    }
    const procStart = stat()
      .slice(stat().lastIndexOf(')') + 2)
      .split(' ')[19];
    const dir = tmpDir();
    writeLock(dir, { pid, host: os.hostname(), procStart, purpose: 'an MCP server killed with SIGKILL' });
    const lock = StoreLock.acquire(dir);
    assert.match(lock.tookOver ?? '', new RegExp(`pid ${pid}`));
    lock.release();
  } finally {
    parent.kill('SIGKILL');
  }
});
