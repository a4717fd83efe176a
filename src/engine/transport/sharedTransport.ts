/**
 * Owner or client, transparently (ARCHITECTURE.md "One owner, many clients"): connect to the
 * process that serves the project store; when nobody does, start the engine worker ourselves
 * with the store's lock required (`exclusive`) and serving it (`serve`). Losing that race
 * (store_locked: another process became the owner first) means trying its socket again.
 *
 * EngineClient sees one worker-shaped transport either way, and restarts it when it exits:
 * when the owner goes away (`remote`) its clients reconnect at once, and the first to get the
 * lock takes over.
 */
import { EventEmitter } from 'node:events';
import type { EngineInit, FromEngineMessage, ToEngineMessage } from '../protocol';
import { projectStoreDir, readSecret, socketPath } from './endpoint';
import { connectToOwner } from './socketTransport';
import type { EngineTransport } from './types';

export interface SharedTransportOptions {
  init: EngineInit;
  /** Starts the engine worker thread (the owner) with the init given. */
  spawnWorker: (init: EngineInit) => EngineTransport;
  /** Shown in the owner's log. */
  client: string;
  /** Connect / own rounds before giving up (default 40, about 10 s). */
  attempts?: number;
  log?: (line: string) => void;
}

type First = { message: FromEngineMessage } | { exit: number };

export class SharedTransport extends EventEmitter implements EngineTransport {
  /** What this side became once ready. */
  role: 'owner' | 'client' | undefined;
  private inner: EngineTransport | undefined;
  private terminated = false;
  private readonly early: ToEngineMessage[] = [];

  /** The engine is the owner's, in another process: its exit is the owner going away. */
  get remote(): boolean {
    return this.role === 'client';
  }

  constructor(private readonly opts: SharedTransportOptions) {
    super();
    void this.run().catch((e) => this.giveUp(`could not reach or open the store: ${(e as Error).message}`));
  }

  postMessage(message: ToEngineMessage): void {
    if (this.inner) this.inner.postMessage(message);
    else this.early.push(message);
  }

  async terminate(): Promise<number> {
    this.terminated = true;
    const inner = this.inner;
    if (!inner) {
      this.emit('exit', 0);
      return 0;
    }
    return inner.terminate();
  }

  private async run(): Promise<void> {
    const { init } = this.opts;
    if (init.restricted) {
      // Untrusted workspace: its own read-only engine, never a writer through someone else.
      this.adopt(this.opts.spawnWorker(init), undefined, 'owner');
      return;
    }
    const attempts = this.opts.attempts ?? 40;
    for (let i = 0; i < attempts && !this.terminated; i++) {
      const dir = await projectStoreDir(init);
      const secret = readSecret(dir);
      if (secret) {
        const c = await connectToOwner(socketPath(dir), secret, this.opts.client);
        if (c) return this.adopt(c.transport, c.ready, 'client');
      }
      if (this.terminated) return;
      const worker = this.opts.spawnWorker({ ...init, exclusive: true, serve: true });
      const first = await firstOf(worker);
      if ('message' in first && first.message.kind === 'fatal' && first.message.error.code === 'store_locked') {
        await worker.terminate();
        await delay(Math.min(500, 25 * 2 ** i));
        continue;
      }
      return this.adopt(worker, 'message' in first ? first.message : undefined, 'owner', 'exit' in first ? first.exit : undefined);
    }
    if (!this.terminated) this.giveUp('another process holds the store but does not answer on its socket');
  }

  /** From now on `inner` is the engine: replay its first message (or exit) and forward the rest. */
  private adopt(inner: EngineTransport, first: FromEngineMessage | undefined, role: 'owner' | 'client', exitCode?: number): void {
    this.inner = inner;
    this.role = role;
    inner.on('message', (m) => this.emit('message', m));
    inner.on('error', (e) => this.emit('error', e));
    inner.on('exit', (code) => this.emit('exit', code));
    if (this.terminated) void inner.terminate();
    if (first) this.emit('message', first);
    if (exitCode !== undefined) this.emit('exit', exitCode);
    for (const m of this.early.splice(0)) inner.postMessage(m);
    this.opts.log?.(`store ${role === 'owner' ? 'owned by this process' : 'served by another process: connected as a client'}`);
  }

  private giveUp(message: string): void {
    this.emit('message', { kind: 'fatal', error: { code: 'store_locked', message } } satisfies FromEngineMessage);
  }
}

/** The first message of a freshly started worker (ready or fatal), or its exit. */
function firstOf(worker: EngineTransport): Promise<First> {
  return new Promise((resolve) => {
    let settled = false;
    const settle = (f: First) => {
      if (!settled) {
        settled = true;
        resolve(f);
      }
    };
    worker.on('message', (m) => settle({ message: m }));
    worker.on('exit', (code) => settle({ exit: code }));
  });
}

function delay(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
