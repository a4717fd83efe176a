// @tier durability
/**
 * kill -9 after the index was saved and more writes were made: reopening loads the saved
 * index, catches up from the database and gives the same neighbours as before the kill.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawn } from 'node:child_process';
import { tmpDir } from '../../helpers/tmp';
import { openWritePath, exactNeighbours } from '../../fixtures/writePath';

const child = path.join(__dirname, '..', '..', 'fixtures', 'vectorstore-crash-child.ts');

test('save → more writes → SIGKILL → reopen: same neighbours, from the saved file plus catch-up', async () => {
  const dir = tmpDir('am-vcrash-');
  const queries = [
    'the cache rebuilds its state on demand',
    'scheduler batches jobs with backoff',
    'webview streams frames',
    'database locks rows before commit',
  ];
  const qfile = path.join(dir, 'queries.json');
  fs.writeFileSync(qfile, JSON.stringify(queries));
  const storeDir = path.join(dir, 'store');
  const proc = spawn(process.execPath, ['--import', 'tsx', child, storeDir, qfile], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  proc.stderr.on('data', (d) => (stderr += String(d)));
  const result = await new Promise<{ neighbours: number[][]; size: number; savedWatermark: number }>((resolve, reject) => {
    let buf = '';
    proc.stdout.on('data', (d) => {
      buf += String(d);
      const line = buf.split('\n').find((l) => l.startsWith('{"type":"result"'));
      if (line) resolve(JSON.parse(line));
    });
    proc.on('exit', (code) => reject(new Error(`child exited ${code} before answering: ${stderr}`)));
  });
  const exited = new Promise((r) => proc.once('exit', r));
  proc.kill('SIGKILL');
  await exited;
  assert.equal(result.size, 135);

  const w = await openWritePath({ dir: storeDir });
  try {
    const st = w.vectors.stats();
    assert.equal(st.openedFrom, 'file', `rebuild reason: ${st.rebuildReason}`);
    assert.equal(st.state, 'ready');
    assert.ok(st.caughtUp >= 40 + 5 + 3, `caught up ${st.caughtUp} changes made after the save`);
    assert.equal(w.vectors.size, 135);
    for (const [i, q] of queries.entries()) {
      const v = (await w.embedder.embed([q], 'query'))[0]!;
      const got = w.vectors.search(v, 5).map((h) => h.rid);
      assert.deepEqual(got, result.neighbours[i], q);
      assert.deepEqual(
        got,
        exactNeighbours(w.store, w.embedder.space, 512, v, 5).map((h) => h.rid),
        `${q} (exact)`,
      );
    }
  } finally {
    await w.close();
  }
});
