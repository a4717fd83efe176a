// The store socket's challenge–response (src/engine/socket/handshake.ts) with real sockets: a
// real owner (EngineServer over an in-process MemoryEngine) and raw peers that play the other side
// by hand. The proofs are computed here with node:crypto from the wire format the module states,
// so the test pins the format instead of reusing the code under test. Also the owner's limits
// before a peer proved itself (issue 19, item 12): a few kilobytes per connection, 16 at once.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { createHmac, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { MemoryEngine } from '../../../src/engine/worker/engine';
import { EngineError } from '../../../src/engine/errors';
import { createHandlers } from '../../../src/engine/worker/handlers';
import { PROTOCOL_VERSION, type ToEngineMessage } from '../../../src/engine/protocol';
import { EngineServer, MAX_UNPROVEN } from '../../../src/engine/worker/owner/socketServer';
import { newSecret, readOwnerRecord, writeOwnerRecord } from '../../../src/engine/socket/endpoint';
import { SocketTransport, connectToOwner } from '../../../src/engine/client/socketTransport';
import { tmpDir } from '../../helpers/tmp';
import { holdTimersOf } from '../../helpers/deadline';
import { until } from '../../helpers/until';
import { fakeClone } from '../../helpers/clones';

const hex = () => randomBytes(32).toString('hex');
const hmac = (secret: string, role: 'owner' | 'client', clientNonce: string, ownerNonce: string) =>
  createHmac('sha256', secret).update(`agent-memory store ${role}\n${clientNonce}\n${ownerNonce}`).digest('hex');

/** Frames as a raw peer sees them: newline-delimited JSON. */
class Raw {
  readonly frames: Record<string, unknown>[] = [];
  bytes = '';
  closed: Promise<void>;
  private waiters: (() => void)[] = [];

  constructor(
    readonly socket: net.Socket,
    onFrame: (frame: Record<string, unknown>) => void = () => undefined,
  ) {
    socket.on('error', () => undefined);
    socket.on('data', (d: Buffer) => {
      this.bytes += d.toString('utf8');
      const lines = this.bytes.split('\n').slice(0, -1);
      for (const line of lines.slice(this.frames.length)) {
        const frame = JSON.parse(line) as Record<string, unknown>;
        this.frames.push(frame);
        onFrame(frame);
      }
      for (const w of this.waiters.splice(0)) w();
    });
    this.closed = new Promise((r) => socket.once('close', () => r()));
  }

  static connect(where: string): Promise<Raw> {
    return new Promise((resolve, reject) => {
      const s = net.connect(where, () => resolve(new Raw(s)));
      s.once('error', reject);
    });
  }

  send(m: unknown): void {
    this.socket.write(`${JSON.stringify(m)}\n`);
  }

  async frame(n: number): Promise<Record<string, unknown>> {
    while (this.frames.length <= n) {
      const more = new Promise<void>((r) => this.waiters.push(r));
      const gone = this.closed.then(() => {
        throw new Error(`closed after ${this.frames.length} frames: ${this.bytes}`);
      });
      await Promise.race([more, gone]);
    }
    return this.frames[n]!;
  }
}

/** A store folder with an owner record pointing at a raw server that answers each frame with `answer`. */
async function fakeOwner(
  answer: (frame: Record<string, unknown>) => unknown,
): Promise<{ storeDir: string; secret: string; got: Raw[]; close(): Promise<void> }> {
  const storeDir = tmpDir('am-handshake-');
  const where = path.join(storeDir, 'engine.sock');
  const secret = newSecret();
  const got: Raw[] = [];
  const server = net.createServer((s) => {
    got.push(
      new Raw(s, (frame) => {
        const reply = answer(frame);
        if (reply) s.write(`${JSON.stringify(reply)}\n`);
      }),
    );
  });
  await new Promise<void>((r) => server.listen(where, r));
  writeOwnerRecord(storeDir, { secret, socket: where });
  return { storeDir, secret, got, close: () => new Promise((r) => server.close(() => r())) };
}

interface RealOwner {
  engine: MemoryEngine;
  server: EngineServer;
  storeDir: string;
  secret: string;
  log: string[];
  close(): Promise<void>;
}

async function realOwner(): Promise<RealOwner> {
  const root = tmpDir('am-handshake-owner-');
  const engine = await MemoryEngine.open({
    home: path.join(root, 'home'),
    workspaceRoot: fakeClone(root, 'repo'),
    snapshotTickMs: 0,
    settings: { 'embedding.provider': 'hash' },
  });
  const storeDir = engine.diagnostics.stats().project.dir;
  const log: string[] = [];
  const server = await EngineServer.start({
    storeDir,
    engine,
    handlers: createHandlers({ allowDebug: false, exit: () => undefined }),
    info: () => ({ protocolVersion: PROTOCOL_VERSION, projectId: engine.projectId, openMs: 0, warnings: [] }),
    log: (l) => log.push(l),
  });
  const secret = readOwnerRecord(storeDir)!.secret;
  return {
    engine,
    server,
    storeDir,
    secret,
    log,
    close: async () => {
      await server.close();
      await engine.close();
    },
  };
}

const waitExit = (t: SocketTransport) => new Promise<void>((r) => t.once('exit', () => r()));

test('the client sends a nonce and nothing else until the owner proves it knows the secret', async () => {
  const text = 'The release signing key lives on the build host only.';
  const owner = await fakeOwner((f) =>
    f.kind === 'hello' ? { kind: 'challenge', protocolVersion: 2, nonce: hex(), proof: hex() } : undefined,
  );
  try {
    const t = new SocketTransport(readOwnerRecord(owner.storeDir)!.socket, owner.secret, 'test client');
    const request = { kind: 'request', id: 1, method: 'memory.create', params: { content: text } } as ToEngineMessage;
    t.postMessage(request); // posted at once: it must wait for the owner's proof, which never comes
    await waitExit(t);
    assert.match(t.refusal?.reason ?? '', /could not prove it serves this store/);
    assert.equal(t.refusal?.final, false, 'maybe the secret changed meanwhile: the caller may try again');
    const [peer] = owner.got;
    assert.equal(peer!.frames.length, 1, 'one frame: the hello');
    assert.deepEqual(Object.keys(peer!.frames[0]!).sort(), ['kind', 'nonce', 'protocolVersion']);
    assert.equal(peer!.frames[0]!.protocolVersion, PROTOCOL_VERSION);
    assert.ok(!peer!.bytes.includes(owner.secret), 'no secret');
    assert.ok(!peer!.bytes.includes(text), 'no memory text');
    assert.equal(await connectToOwner(owner.storeDir, 'test client'), undefined, 'no owner: the caller may become the owner');
  } finally {
    await owner.close();
  }
});

test('an owner that refuses the hello (another protocol version) is a final error that says what to do', async () => {
  const owner = await fakeOwner(() => ({
    kind: 'fatal',
    error: { code: 'engine_unavailable', message: 'The first message must be a hello with the store secret.' },
  }));
  try {
    await assert.rejects(connectToOwner(owner.storeDir, 'test client'), (e: unknown) => {
      assert.ok(e instanceof EngineError && e.code === 'engine_unavailable', String(e));
      assert.match(e.message, /refused the connection: The first message must be a hello/);
      assert.match(e.message, /update Agent Memory everywhere it runs/);
      return true;
    });
    assert.ok(!owner.got[0]!.bytes.includes(owner.secret));
  } finally {
    await owner.close();
  }
});

test("the owner proves itself, then checks the client's proof: a wrong or replayed proof is refused", { timeout: 60_000 }, async () => {
  const o = await realOwner();
  try {
    const where = o.server.path;
    // A right handshake: the owner's proof checks out against the secret, ours gets `ready`, then requests are served.
    const a = await Raw.connect(where);
    const nc = hex();
    a.send({ kind: 'hello', protocolVersion: PROTOCOL_VERSION, nonce: nc });
    const challenge = await a.frame(0);
    assert.equal(challenge.kind, 'challenge');
    assert.equal(challenge.proof, hmac(o.secret, 'owner', nc, challenge.nonce as string), 'the owner proves it knows the secret');
    const proof = hmac(o.secret, 'client', nc, challenge.nonce as string);
    a.send({ kind: 'proof', proof, client: 'raw test' });
    assert.equal((await a.frame(1)).kind, 'ready');
    a.send({ kind: 'request', id: 7, method: 'stats', params: {} });
    assert.equal((await a.frame(2)).ok, true);
    a.socket.destroy();

    // The same hello and proof again: a new owner nonce, so the recorded proof is worthless.
    const b = await Raw.connect(where);
    b.send({ kind: 'hello', protocolVersion: PROTOCOL_VERSION, nonce: nc });
    const again = await b.frame(0);
    assert.notEqual(again.nonce, challenge.nonce, 'a fresh owner nonce per connection');
    b.send({ kind: 'proof', proof });
    const replay = await b.frame(1);
    assert.equal(replay.kind, 'fatal');
    assert.match((replay.error as { message: string }).message, /Wrong proof/);
    await b.closed;

    // A proof made with another secret, and the owner's own proof sent back (reflection).
    for (const bad of [
      (n: string, m: string) => hmac(newSecret(), 'client', n, m),
      (n: string, m: string) => hmac(o.secret, 'owner', n, m),
    ]) {
      const c = await Raw.connect(where);
      const n = hex();
      c.send({ kind: 'hello', protocolVersion: PROTOCOL_VERSION, nonce: n });
      const ch = await c.frame(0);
      c.send({ kind: 'proof', proof: bad(n, ch.nonce as string) });
      assert.equal((await c.frame(1)).kind, 'fatal');
      c.send({ kind: 'request', id: 1, method: 'stats', params: {} });
      await c.closed;
      assert.equal(c.frames.length, 2, 'nothing served after a refusal');
    }
  } finally {
    await o.close();
  }
});

test(
  'an old client (its hello carries the secret) and a request before any hello are refused with a reason',
  { timeout: 60_000 },
  async () => {
    const o = await realOwner();
    try {
      const old = await Raw.connect(o.server.path);
      old.send({ kind: 'hello', secret: o.secret, protocolVersion: 1, client: 'old' });
      const f = await old.frame(0);
      assert.equal(f.kind, 'fatal');
      assert.match(
        (f.error as { message: string }).message,
        /speaks protocol 2, and the program connecting speaks protocol 1\. Update Agent Memory/,
      );
      await old.closed;
      const rude = await Raw.connect(o.server.path);
      rude.send({ kind: 'request', id: 1, method: 'memory.list', params: {} });
      assert.match(((await rude.frame(0)).error as { message: string }).message, /first message must be a hello/);
      await rude.closed;
      // The real client still gets in.
      const c = await connectToOwner(o.storeDir, 'test client');
      assert.equal(c?.ready.kind, 'ready');
      await c?.transport.terminate();
    } finally {
      await o.close();
    }
  },
);

test('before the handshake a connection may send a few kilobytes only, and at most 16 wait at once', { timeout: 60_000 }, async () => {
  const o = await realOwner();
  const held: Raw[] = [];
  try {
    const where = o.server.path;
    // 1 MB without a newline: the owner reads a few kilobytes and closes the connection.
    const flood = await Raw.connect(where);
    const chunk = 'x'.repeat(64 * 1024);
    for (let i = 0; i < 16 && !flood.socket.destroyed; i++) flood.socket.write(chunk);
    await flood.closed;
    assert.ok(
      o.log.some((l) => /a frame exceeded 4096 bytes/.test(l)),
      o.log.join('\n'),
    );
    // A hello that is one long line is refused the same way, before it is parsed.
    const long = await Raw.connect(where);
    long.send({ kind: 'hello', protocolVersion: PROTOCOL_VERSION, nonce: hex(), padding: 'y'.repeat(8192) });
    await long.closed;
    assert.equal(long.frames.length, 0, 'no answer to an oversized hello');

    // Connections that say nothing: 16 wait (until the hello deadline); the 17th and later are closed at once.
    for (let i = 0; i < MAX_UNPROVEN; i++) held.push(await Raw.connect(where));
    // Closed at once, not at the 5 s hello deadline: while they connect, every 5 s timer is held
    // (never fires), and none is armed for them.
    const hello = holdTimersOf(5000);
    try {
      const extra = await Promise.all([0, 1, 2, 3].map(() => Raw.connect(where)));
      let closed = 0;
      for (const e of extra) void e.closed.then(() => closed++);
      await until('the connections past the 16th to be closed', () => closed === extra.length);
      assert.equal(hello.count(), 0, 'no hello deadline was armed for the connections past the 16th');
    } finally {
      hello.restore();
    }
    assert.ok(
      held.every((h) => !h.socket.destroyed && h.socket.readyState === 'open'),
      'the first 16 still wait',
    );
    assert.equal(o.log.filter((l) => /connections were still unproven/.test(l)).length, 1, 'logged once per burst');
    for (const h of held.splice(0)) h.socket.destroy();
    await new Promise((r) => setTimeout(r, 100));
    const c = await connectToOwner(o.storeDir, 'test client');
    assert.equal(c?.ready.kind, 'ready', 'a real client gets in once they are gone');
    await c?.transport.terminate();
  } finally {
    for (const h of held) h.socket.destroy();
    await o.close();
  }
});

test('the owner record is refused when it is not private; a missing one means no owner', () => {
  const storeDir = tmpDir('am-record-');
  assert.equal(readOwnerRecord(storeDir), undefined);
  writeOwnerRecord(storeDir, { secret: newSecret(), socket: path.join(storeDir, 'engine.sock') });
  const file = path.join(storeDir, 'engine.auth');
  assert.equal(fs.statSync(file).mode & 0o777, 0o600);
  if (process.platform === 'win32') return;
  fs.chmodSync(file, 0o644);
  assert.throws(
    () => readOwnerRecord(storeDir),
    (e: unknown) => e instanceof EngineError && e.code === 'not_private' && /can be read by other users/.test(e.message),
  );
});
