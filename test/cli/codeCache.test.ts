import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { STALE_CACHE_MS, codeCacheFiles, runWithCodeCache, userCodeCacheDir } from '../../src/cli/codeCache';
import { tmpDir } from '../helpers/tmp';

/** A CommonJS file that records its run (and sees its own module variables) on globalThis. */
function bundle(dir: string): string {
  const file = path.join(dir, 'bundle.js');
  fs.writeFileSync(
    file,
    '#!/usr/bin/env node\n' +
      'const os = require("node:os");\n' +
      'function work(n) { let s = 0; for (let i = 0; i < n; i++) s += i % 7; return s; }\n' +
      'globalThis.__bundleRuns = (globalThis.__bundleRuns ?? 0) + 1;\n' +
      'globalThis.__bundleSeen = { file: __filename, dir: __dirname, isModule: module.exports === exports, work: work(1000), eol: os.EOL };\n' +
      'exports.answer = 42;\n',
  );
  return file;
}

/** Awaits a cache write: its timer is unref'd (it must not keep a CLI alive), so the test holds the loop open meanwhile. */
async function written(p: Promise<boolean>): Promise<boolean> {
  const hold = setInterval(() => undefined, 1000);
  try {
    return await p;
  } finally {
    clearInterval(hold);
  }
}

const g = globalThis as { __bundleRuns?: number; __bundleSeen?: Record<string, unknown> };

test('a bundle runs as a CommonJS module; the first run writes the top-level cache at once and the full one later; the next run takes the full one', async () => {
  const dir = tmpDir('am-codecache-');
  const cache = path.join(dir, 'cache');
  const file = bundle(dir);
  const before = g.__bundleRuns ?? 0;

  const first = runWithCodeCache(file, cache, 0);
  assert.equal(g.__bundleRuns, before + 1);
  assert.deepEqual(g.__bundleSeen, { file, dir, isModule: true, work: 2997, eol: '\n' });
  assert.equal(first.used, undefined);
  assert.deepEqual(first.exports, { answer: 42 }, "the file's exports are handed back");
  const files = codeCacheFiles(file, cache);
  assert.ok(fs.existsSync(files.top), 'the top-level cache is written at once');
  assert.equal(await written(first.written), true);
  assert.ok(fs.existsSync(files.full));
  if (process.platform !== 'win32') {
    assert.equal(fs.statSync(cache).mode & 0o777, 0o700, 'the cache folder is private');
    assert.equal(fs.statSync(files.full).mode & 0o777, 0o600);
  }

  const second = runWithCodeCache(file, cache, 0);
  assert.equal(second.used, 'full');
  assert.equal(second.rejected, false);
  assert.equal(await written(second.written), false, 'nothing to write when the full cache was taken');
  assert.equal(g.__bundleRuns, before + 2);
});

test('a damaged cache is refused by V8: the bundle still runs, from the other cache or compiled, and the cache is written again', async () => {
  const dir = tmpDir('am-codecache-');
  const cache = path.join(dir, 'cache');
  const file = bundle(dir);
  await written(runWithCodeCache(file, cache, 0).written);
  const files = codeCacheFiles(file, cache);
  const bytes = fs.readFileSync(files.full);
  for (let i = 64; i < bytes.length; i += 97) bytes[i] = bytes[i]! ^ 0xff;
  fs.writeFileSync(files.full, bytes);
  const runs = g.__bundleRuns ?? 0;
  const damaged = runWithCodeCache(file, cache, 0);
  assert.equal(g.__bundleRuns, runs + 1);
  assert.equal(damaged.rejected, true);
  assert.equal(damaged.used, 'top');
  assert.equal(await written(damaged.written), true);
  assert.equal(runWithCodeCache(file, cache, 0).used, 'full');

  // A sound file made for another source: V8 itself refuses it.
  const otherDir = tmpDir('am-codecache-');
  const other = path.join(otherDir, 'bundle.js');
  fs.writeFileSync(other, 'globalThis.__otherRuns = 1; function unrelated() { return 42; }\n');
  await written(runWithCodeCache(other, cache, 0).written);
  fs.copyFileSync(codeCacheFiles(other, cache).full, files.full);
  fs.copyFileSync(codeCacheFiles(other, cache).top, files.top);
  const foreign = runWithCodeCache(file, cache, 0);
  assert.equal(foreign.rejected, true);
  assert.equal(foreign.used, undefined);
  assert.equal(g.__bundleRuns, runs + 3);
  await written(foreign.written);

  fs.writeFileSync(files.full, 'not a cache');
  fs.writeFileSync(files.top, '');
  const garbage = runWithCodeCache(file, cache, 0);
  assert.equal(garbage.used, undefined);
  assert.equal(g.__bundleRuns, runs + 4);
  await written(garbage.written);
});

test('no cache folder, or one that cannot be written: the bundle runs all the same', async () => {
  const dir = tmpDir('am-codecache-');
  const file = bundle(dir);
  const runs = g.__bundleRuns ?? 0;
  const none = runWithCodeCache(file, undefined, 0);
  assert.equal(none.used, undefined);
  assert.equal(await written(none.written), false);
  const blocked = path.join(dir, 'a-file');
  fs.writeFileSync(blocked, '');
  const unwritable = runWithCodeCache(file, path.join(blocked, 'cache'), 0);
  assert.equal(await written(unwritable.written), false);
  assert.equal(g.__bundleRuns, runs + 2);
});

test('caches of other builds are removed once a month old; recent ones and other bundles stay', async () => {
  const dir = tmpDir('am-codecache-');
  const cache = path.join(dir, 'cache');
  fs.mkdirSync(cache, { recursive: true });
  const old = path.join(cache, 'bundle.js-0123456789abcdef01234567.v8cache');
  const oldTop = path.join(cache, 'bundle.js-0123456789abcdef01234567.top.v8cache');
  const recent = path.join(cache, 'bundle.js-89abcdef0123456789abcdef.v8cache');
  const other = path.join(cache, 'engine.js-0123456789abcdef01234567.v8cache');
  for (const f of [old, oldTop, recent, other]) fs.writeFileSync(f, 'x');
  const monthAgo = (Date.now() - STALE_CACHE_MS - 60_000) / 1000;
  for (const f of [old, oldTop, other]) fs.utimesSync(f, monthAgo, monthAgo);
  await written(runWithCodeCache(bundle(dir), cache, 0).written);
  assert.equal(fs.existsSync(old), false);
  assert.equal(fs.existsSync(oldTop), false);
  assert.equal(fs.existsSync(recent), true);
  assert.equal(fs.existsSync(other), true);
});

test(
  'a cache folder other users can write is neither read nor written: the bundle runs compiled',
  { skip: process.platform === 'win32' },
  async () => {
    const dir = tmpDir('am-codecache-');
    const cache = path.join(dir, 'cache');
    const file = bundle(dir);
    assert.equal(await written(runWithCodeCache(file, cache, 0).written), true);
    fs.chmodSync(cache, 0o777);
    const runs = g.__bundleRuns ?? 0;
    const open = runWithCodeCache(file, cache, 0);
    assert.equal(g.__bundleRuns, runs + 1);
    assert.equal(open.used, undefined, 'a cache in a folder others can write is not run');
    assert.equal(await written(open.written), false);
    fs.chmodSync(cache, 0o700);
    assert.equal(runWithCodeCache(file, cache, 0).used, 'full');
  },
);

test("the cache folder follows the platform's convention, and AGENT_MEMORY_CODE_CACHE=0 turns it off", () => {
  assert.equal(userCodeCacheDir({ AGENT_MEMORY_CODE_CACHE: '0', XDG_CACHE_HOME: '/c' }), undefined);
  if (process.platform === 'linux') {
    assert.equal(userCodeCacheDir({ XDG_CACHE_HOME: '/c' }), '/c/agent-memory/code');
    assert.match(userCodeCacheDir({ XDG_CACHE_HOME: 'relative' }) ?? '', /\/\.cache\/agent-memory\/code$/);
    assert.match(userCodeCacheDir({}) ?? '', /\/\.cache\/agent-memory\/code$/);
  }
});
