// One owner, many clients: two engines started from two clones of one repository share the
// owner's store over its socket (writes and events both ways), the socket and the owner's record
// are the OS user's only, a wrong proof of the secret is refused, and when the owner stops a
// client takes over.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import type { EngineEvent } from '../../../../src/engine/protocol';
import { randomBytes } from 'node:crypto';
import { projectStoreDir, socketPath } from '../../../../src/engine/socket/endpoint';
import { readFrames, writeFrame } from '../../../../src/engine/socket/framing';
import { tmpDir } from '../../../helpers/tmp';
import { fakeClone } from '../../../helpers/clones';
import { sharedClient } from './sharedHarness';

function nextEvent(
  client: { onEvent(l: (e: EngineEvent) => void): { dispose(): void } },
  pred: (e: EngineEvent) => boolean,
): Promise<EngineEvent> {
  return new Promise((resolve) => {
    const sub = client.onEvent((e) => {
      if (pred(e)) {
        sub.dispose();
        resolve(e);
      }
    });
  });
}

/** The owner's answer to a handshake whose proof is made up (the store secret is not known). */
function refusalFor(where: string): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const s = net.connect(where);
    s.on('error', reject);
    writeFrame(s, { kind: 'hello', protocolVersion: 2, nonce: randomBytes(32).toString('hex') });
    readFrames(
      s,
      (m) => {
        if ((m as { kind: string }).kind === 'challenge')
          return void writeFrame(s, { kind: 'proof', proof: randomBytes(32).toString('hex') });
        resolve(m);
        s.destroy();
      },
      reject,
    );
  });
}

test('two clones: the first is the owner, the second a client; writes and events reach both; takeover on shutdown', async () => {
  const root = tmpDir('am-srv-');
  const home = path.join(root, 'home');
  const a = sharedClient({ home, workspaceRoot: fakeClone(root, 'clone-a') }, 'test A');
  await a.client.start();
  assert.equal(a.transport()?.role, 'owner');
  const b = sharedClient({ home, workspaceRoot: fakeClone(root, 'clone-b') }, 'test B');
  const readyB = await b.client.start();
  assert.equal(b.transport()?.role, 'client');
  assert.equal(readyB.projectId, a.client.ready?.projectId);
  try {
    const dir = await projectStoreDir({ home, workspaceRoot: path.join(root, 'clone-a') });
    assert.equal(fs.statSync(socketPath(dir)).mode & 0o777, 0o600, 'socket: owner only');
    assert.equal(fs.statSync(path.join(dir, 'engine.auth')).mode & 0o777, 0o600, "owner's record (secret): owner only");
    const refused = await refusalFor(socketPath(dir));
    assert.equal((refused as { kind: string }).kind, 'fatal', 'a wrong proof of the secret is refused');

    const seenByA = nextEvent(a.client, (e) => e.type === 'memory.changed' && e.kind === 'created');
    const fromB = await b.client.request('memory.create', { content: 'Client B: the CI cache key includes the lockfile hash.' });
    assert.equal(fromB.status, 'created');
    await seenByA;
    const seenByB = nextEvent(b.client, (e) => e.type === 'memory.changed' && e.kind === 'created');
    const fromA = await a.client.request('memory.create', { content: 'Owner A: the docs site deploys from the gh-pages branch.' });
    assert.equal(fromA.status, 'created');
    await seenByB;
    if (fromB.status !== 'created' || fromA.status !== 'created') return;
    assert.equal((await a.client.request('memory.get', { id: fromB.memory.id }))?.content, fromB.memory.content);
    assert.equal((await b.client.request('search', { query: 'gh-pages docs deploy' })).hits[0]?.memory.id, fromA.memory.id);

    await a.client.shutdown();
    // B's connection closes; its next requests wait while it takes the store over.
    const list = await b.client.request('memory.list', { limit: 10 });
    assert.equal(list.total, 2);
    assert.equal(b.transport()?.role, 'owner', 'the client took over');
    const after = await b.client.request('memory.create', { content: 'After takeover: releases are tagged vX.Y.Z.' });
    assert.equal(after.status, 'created');
  } finally {
    await b.client.shutdown();
    await a.client.shutdown();
  }
});

test(
  'a store folder too deep for a socket path: owner and client meet in the private runtime folder, found through the record',
  { skip: process.platform === 'win32' ? 'Unix sockets only (Windows uses named pipes)' : false, timeout: 120_000 },
  async () => {
    const root = tmpDir('am-srv-deep-');
    const home = path.join(root, 'a-store-home-with-a-long-name-so-the-socket-does-not-fit-in-the-store-folder');
    const xdg = path.join(root, 'xdg');
    fs.mkdirSync(xdg, { mode: 0o700 });
    const saved = { TMPDIR: process.env.TMPDIR, XDG_RUNTIME_DIR: process.env.XDG_RUNTIME_DIR };
    process.env.TMPDIR = root;
    process.env.XDG_RUNTIME_DIR = xdg; // the owner's engine thread is started with it…
    const a = sharedClient({ home, workspaceRoot: fakeClone(root, 'clone-a') }, 'test A');
    await a.client.start();
    delete process.env.XDG_RUNTIME_DIR; // …the client has none (a cron job, another shell): the record tells it where to go
    const b = sharedClient({ home, workspaceRoot: fakeClone(root, 'clone-b') }, 'test B');
    try {
      await b.client.start();
      assert.equal(a.transport()?.role, 'owner');
      assert.equal(b.transport()?.role, 'client');
      const dir = await projectStoreDir({ home, workspaceRoot: path.join(root, 'clone-a') });
      const record = JSON.parse(fs.readFileSync(path.join(dir, 'engine.auth'), 'utf8')) as { socket: string };
      assert.equal(path.dirname(record.socket), path.join(xdg, 'agent-memory'));
      assert.equal(fs.statSync(path.dirname(record.socket)).mode & 0o777, 0o700, 'runtime folder: owner only');
      assert.equal(fs.statSync(record.socket).mode & 0o777, 0o600, 'socket: owner only');
      const fromB = await b.client.request('memory.create', { content: 'Deep store: the socket lives in the runtime folder.' });
      assert.equal(fromB.status, 'created');
      assert.equal((await a.client.request('memory.list', { limit: 5 })).total, 1);
    } finally {
      await b.client.shutdown();
      await a.client.shutdown();
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  },
);
