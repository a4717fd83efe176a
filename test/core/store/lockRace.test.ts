// @tier durability
/** The store lock across processes: two processes racing for a free store, exactly one wins every time. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { spawn } from 'node:child_process';
import { tmpDir } from '../../helpers/tmp';

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
