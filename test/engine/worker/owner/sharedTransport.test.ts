// @tier durability
// SharedTransport starts an engine only when the store's lock is free or stale, and one process
// at a time: while a live process holds the lock (an owner starting, or one that does not serve)
// or the takeover claim (a client of a dead owner opening the store), the others wait for the
// owner's socket instead of each starting an engine (ARCHITECTURE.md "One owner, many clients").
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { StoreLock } from '../../../../src/core/store/lock';
import type { FromEngineMessage } from '../../../../src/engine/protocol';
import { projectStoreDir } from '../../../../src/engine/socket/endpoint';
import { SharedTransport } from '../../../../src/engine/client/sharedTransport';
import { tmpDir } from '../../../helpers/tmp';
import { fakeClone } from '../../../helpers/clones';
import { spawnTsWorker } from '../../harness';

const HASH = { 'embedding.provider': 'hash' };
/** The transport's answer: ready, or fatal (events before it are passed over). */
const first = (t: SharedTransport) =>
  new Promise<FromEngineMessage>((resolve) => {
    const on = (m: FromEngineMessage) => {
      if (m.kind !== 'ready' && m.kind !== 'fatal') return;
      t.off('message', on);
      resolve(m);
    };
    t.on('message', on);
  });

/** A spawnWorker that counts the engines it starts. */
function counting(): { spawnWorker: typeof spawnTsWorker; started: () => number } {
  let n = 0;
  return {
    spawnWorker: (i) => {
      n++;
      return spawnTsWorker(i);
    },
    started: () => n,
  };
}

async function shutdown(t: SharedTransport): Promise<void> {
  const exited = new Promise((r) => t.once('exit', r));
  t.postMessage({ kind: 'request', id: 999, method: 'engine.shutdown', params: {} });
  await exited;
}

test('while a live process holds the lock without serving, a client starts no engine; it gives up after its wait', async () => {
  const root = tmpDir('am-shared-');
  const home = path.join(root, 'home');
  const workspaceRoot = fakeClone(root, 'clone');
  const dir = await projectStoreDir({ home, workspaceRoot });
  const lock = StoreLock.acquire(dir, 'a process that does not serve the store');
  const engines = counting();
  try {
    const waiting = new SharedTransport({ init: { home, workspaceRoot }, spawnWorker: engines.spawnWorker, client: 'test', waitMs: 1500 });
    const fatal = await first(waiting);
    assert.equal(fatal.kind, 'fatal');
    assert.equal(fatal.kind === 'fatal' && fatal.error.code, 'store_locked');
    assert.equal(engines.started(), 0, 'no engine started while the lock is held by a live process');
  } finally {
    lock.release();
  }
  const owner = new SharedTransport({ init: { home, workspaceRoot, settings: HASH }, spawnWorker: engines.spawnWorker, client: 'test' });
  try {
    assert.equal((await first(owner)).kind, 'ready');
    assert.equal(owner.role, 'owner', 'once the lock is free, the store is opened here');
    assert.equal(engines.started(), 1);
  } finally {
    await shutdown(owner);
  }
});

test("the owner's lock is stale (it was killed): of five clients one starts an engine, the others connect to it", async () => {
  const root = tmpDir('am-shared-');
  const home = path.join(root, 'home');
  const workspaceRoot = fakeClone(root, 'clone');
  const dir = await projectStoreDir({ home, workspaceRoot });
  // The lock of an owner that is gone: a process that has ended (and was reaped).
  const gone = spawn(process.execPath, ['-e', '0']);
  await new Promise((r) => gone.once('exit', r));
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(
    path.join(dir, 'store.lock'),
    JSON.stringify({ pid: gone.pid, host: os.hostname(), procStart: '1', token: 'dead', acquiredAt: new Date().toISOString() }),
  );
  const engines = counting();
  const clients = Array.from(
    { length: 5 },
    (_, i) =>
      new SharedTransport({ init: { home, workspaceRoot, settings: HASH }, spawnWorker: engines.spawnWorker, client: `client ${i}` }),
  );
  try {
    const answers = await Promise.all(clients.map(first));
    assert.deepEqual(
      answers.map((m) => m.kind),
      ['ready', 'ready', 'ready', 'ready', 'ready'],
    );
    assert.deepEqual(clients.map((c) => c.role).sort(), ['client', 'client', 'client', 'client', 'owner']);
    assert.equal(engines.started(), 1, 'one engine started for the takeover');
    assert.ok(!fs.existsSync(path.join(dir, 'takeover.lock')), 'the takeover claim is released');
  } finally {
    for (const c of clients.filter((x) => x.role === 'client')) await c.terminate();
    await shutdown(clients.find((c) => c.role === 'owner')!);
  }
});

test('our own engine thread crashed and left its lock: the next start owns the store at once, another owner id waits', async () => {
  const root = tmpDir('am-shared-');
  const home = path.join(root, 'home');
  const workspaceRoot = fakeClone(root, 'clone');
  const dir = await projectStoreDir({ home, workspaceRoot });
  const init = { home, workspaceRoot, settings: HASH, ownerId: 'window-1', allowDebug: true };
  const engines = counting();
  const crashed = new SharedTransport({ init, spawnWorker: engines.spawnWorker, client: 'test' });
  assert.equal((await first(crashed)).kind, 'ready');
  const exited = new Promise((r) => crashed.once('exit', r));
  crashed.postMessage({ kind: 'request', id: 1, method: 'debug.crash', params: { how: 'exit' } });
  await exited;
  assert.match(fs.readFileSync(path.join(dir, 'store.lock'), 'utf8'), /\[window-1\]/, 'the crashed thread left its lock');

  // Another owner id in this process may be a live engine of someone else's: it is waited for.
  const other = new SharedTransport({
    init: { ...init, ownerId: 'window-2' },
    spawnWorker: engines.spawnWorker,
    client: 'test',
    waitMs: 800,
  });
  const refused = await first(other);
  assert.equal(refused.kind === 'fatal' && refused.error.code, 'store_locked');
  assert.equal(engines.started(), 1, 'no engine started for a lock that may be alive');

  const restarted = new SharedTransport({ init, spawnWorker: engines.spawnWorker, client: 'test', waitMs: 800 });
  try {
    assert.equal((await first(restarted)).kind, 'ready', 'the restart reclaims the lock its crashed thread left');
    assert.equal(restarted.role, 'owner');
    assert.equal(engines.started(), 2);
  } finally {
    await shutdown(restarted);
  }
});
