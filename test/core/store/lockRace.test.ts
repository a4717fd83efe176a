// @tier durability
/**
 * The store lock across processes: two processes racing for a free store, exactly one wins every
 * time; an owner killed but not yet reaped (a zombie) counts as gone.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawn } from 'node:child_process';
import { StoreLock } from '../../../src/core/store/lock';
import { tmpDir } from '../../helpers/tmp';

function writeLock(dir: string, info: Record<string, unknown>): string {
  const file = path.join(dir, 'store.lock');
  fs.writeFileSync(file, JSON.stringify({ token: 'theirs', acquiredAt: '2026-01-01T00:00:00.000Z', ...info }));
  return file;
}

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

test('a lock whose owner was killed but not yet reaped (a zombie): taken over as stale', { timeout: 60_000 }, async (t) => {
  if (!fs.existsSync('/proc/self/stat')) return t.skip('process states are read from /proc (Linux)');
  // The child ends after 1 s; by then its parent has become `sleep 30` (exec), which never reaps it: a
  // zombie. (A child that ended before the exec could be reaped by the shell itself: no zombie.)
  const parent = spawn('sh', ['-c', 'sleep 1 & echo $!; exec sleep 30'], { stdio: ['ignore', 'pipe', 'ignore'] });
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
