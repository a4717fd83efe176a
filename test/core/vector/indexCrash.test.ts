// @tier durability
/** An index file under kill -9: a save interrupted by SIGKILL in another process never replaces the last complete save. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  HnswIndex,
  loadIndexFile,
  readIndexFileInfo,
  removeStaleIndexTemps,
  saveIndexFile,
  type VectorHit,
} from '../../../src/core/vector';
import { tmpDir } from '../../helpers/tmp';
import { clusteredVectors } from './data';

const root = path.resolve(__dirname, '..', '..', '..');
const fixture = (name: string) => path.join(root, 'test', 'fixtures', name);
const labelsOf = (hits: VectorHit[]): number[] => hits.map((h) => h.label);

test('an index saved, then rewritten by another process that is SIGKILLed mid-save, reloads with the same neighbours', async () => {
  const dir = tmpDir();
  const file = path.join(dir, 'main.idx');
  const queriesFile = path.join(dir, 'queries.json');
  const { vectors, queries } = clusteredVectors({ n: 4000, dim: 64, clusters: 30, queries: 10, seed: 5 });
  const index = await HnswIndex.create({ dim: 64 });
  index.addMany(
    vectors.map((_, i) => i),
    vectors,
  );
  const expected = queries.map((q) => labelsOf(index.search(q, 10)));
  await saveIndexFile(file, index, { watermark: 42 });
  index.dispose();
  fs.writeFileSync(queriesFile, JSON.stringify(queries.map((q) => Array.from(q))));

  const child = spawn(process.execPath, ['--import', 'tsx', fixture('vector-child.ts'), file, queriesFile], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NODE_OPTIONS: '' },
  });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  const messages: Array<{ type: string; neighbours?: number[][]; watermark?: number; tmp?: string }> = [];
  let buffered = '';
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (d) => {
      buffered += d;
      let nl;
      while ((nl = buffered.indexOf('\n')) >= 0) {
        const msg = JSON.parse(buffered.slice(0, nl));
        buffered = buffered.slice(nl + 1);
        messages.push(msg);
        if (msg.type === 'tmp-written') {
          child.kill('SIGKILL');
          resolve();
        }
      }
    });
    void exited.then(({ code }) => reject(new Error(`child exited before the kill (${code}): ${stderr}`)));
  });
  const { signal } = await exited;
  assert.equal(signal, 'SIGKILL');

  const loadedMsg = messages.find((m) => m.type === 'loaded')!;
  assert.equal(loadedMsg.watermark, 42);
  assert.deepEqual(loadedMsg.neighbours, expected, 'the child saw other neighbours');
  assert.equal(messages.filter((m) => m.type === 'saved').length, 2);
  const tmp = messages.find((m) => m.type === 'tmp-written')!.tmp!;
  assert.ok(fs.existsSync(tmp), 'the killed save left its temp file');

  // The target is the last complete save, never the interrupted one; the leftover temp is cleaned.
  assert.equal((await readIndexFileInfo(file)).watermark, 42);
  assert.equal(await removeStaleIndexTemps(file), 1);
  assert.deepEqual(
    fs.readdirSync(dir).filter((n) => n.includes('.tmp-')),
    [],
  );
  const { index: reloaded, info } = await loadIndexFile(file);
  try {
    assert.equal(info.watermark, 42);
    assert.deepEqual(
      queries.map((q) => labelsOf(reloaded.search(q, 10))),
      expected,
    );
  } finally {
    reloaded.dispose();
  }
});
