// One owner, many clients: two engines started from two clones of one repository share the
// owner's store over its socket (writes and events both ways), the socket and secret are the
// OS user's only, a wrong secret is refused, and when the owner stops a client takes over.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import type { EngineEvent } from '../../../src/engine/protocol';
import { projectStoreDir, socketPath } from '../../../src/engine/transport/endpoint';
import { readFrames, writeFrame } from '../../../src/engine/transport/framing';
import { tmpDir } from '../../helpers/tmp';
import { fakeClone } from '../../helpers/clones';
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

function refusalFor(where: string, secret: string): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const s = net.connect(where);
    s.on('error', reject);
    writeFrame(s, { kind: 'hello', secret, protocolVersion: 1 });
    readFrames(
      s,
      (m) => {
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
    assert.equal(fs.statSync(path.join(dir, 'engine.secret')).mode & 0o777, 0o600, 'secret: owner only');
    const refused = await refusalFor(socketPath(dir), 'not-the-secret');
    assert.equal((refused as { kind: string }).kind, 'fatal', 'a wrong secret is refused');

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
