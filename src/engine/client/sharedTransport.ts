/**
 * Owner or client, transparently (ARCHITECTURE.md "One owner, many clients"): connect to the
 * process that serves the project store (connectToOwner: the owner's record, socket checks and
 * the challenge–response of handshake.ts); when nobody does, start the engine worker ourselves
 * with the store's lock required (`exclusive`) and serving it (`serve`).
 *
 * A worker is started only when the store's lock is free or stale (its owner is gone), and by
 * one process at a time (the takeover claim, claimTakeover): while a live process holds the
 * lock or the claim — an owner starting up, a client of a dead owner opening the store — this
 * side polls the store's socket every POLL_MS instead, so a takeover by many clients costs one
 * engine start and store open, not one per client. Losing the race for the lock (store_locked)
 * means waiting for the winner's socket the same way. An owner that said it restarts its engine
 * (`waitForOwnerMs`) keeps its store: until then this side only polls the socket, claiming nothing.
 *
 * EngineClient sees one worker-shaped transport either way, and restarts it when it exits:
 * when the owner goes away (`remote`) its clients reconnect at once, and the first to claim the
 * takeover and get the lock becomes the owner.
 */
import { EventEmitter } from 'node:events';
import type { EngineInit, FromEngineMessage, ToEngineMessage } from '../protocol';
import { EngineError } from '../errors';
import * as os from 'node:os';
import { StoreLock, lockHeld, type LockInfo } from '../../core/store/lock';
import type { UserFacingError } from '../../core/util/errors';
import { projectStoreDir } from '../socket/endpoint';
import { connectToOwner } from './socketTransport';
import type { EngineTransport } from './transport';

export interface SharedTransportOptions {
  init: EngineInit;
  /** Starts the engine worker thread (the owner) with the init given. */
  spawnWorker: (init: EngineInit) => EngineTransport;
  /** Shown in the owner's log. */
  client: string;
  /** How long to wait for a live holder of the store's lock to answer on its socket (default 45 s). */
  waitMs?: number;
  /**
   * The owner said it restarts its engine (owner.leaving): only try its socket for this long
   * before trying to own the store (it keeps the store it restarts; no worker of ours races it
   * for the lock, no takeover claim is tried meanwhile).
   */
  waitForOwnerMs?: number;
  log?: (line: string) => void;
}

/** What a freshly started worker said up to its answer (ready or fatal), the events before it included; or its exit. */
interface Start {
  messages: FromEngineMessage[];
  exit?: number;
}

/**
 * How long a client waits for an owner that said it restarts its engine (`waitForOwnerMs` of the
 * windows, the CLI and the MCP server) before it tries to own the store itself.
 */
export const RESTARTING_OWNER_WAIT_MS = 15_000;

/** How often a client waiting for an owner tries its socket (a refused connect costs nothing). */
const POLL_MS = 40;
const TAKEOVER_CLAIM = 'takeover.lock';

export class SharedTransport extends EventEmitter implements EngineTransport {
  /** What this side became once ready. */
  role: 'owner' | 'client' | undefined;
  private inner: EngineTransport | undefined;
  /** The worker this side is starting as the store's owner, until it is ready (tryToOwn). */
  private starting: EngineTransport | undefined;
  /** A request that embeds text waits (a PrepareMessage came): a worker we start hears it at once. */
  private prepare = false;
  private terminated = false;
  private readonly early: ToEngineMessage[] = [];

  /** The engine is the owner's, in another process: its exit is the owner going away. */
  get remote(): boolean {
    return this.role === 'client';
  }

  constructor(private readonly opts: SharedTransportOptions) {
    super();
    void this.run().catch((e) =>
      // A refusal that trying again cannot help (a folder that is not private, an owner of another version) says so itself.
      e instanceof EngineError ? this.giveUp(e.message, e.code) : this.giveUp(`could not reach or open the store: ${(e as Error).message}`),
    );
  }

  postMessage(message: ToEngineMessage): void {
    if (message.kind === 'prepare' && !this.inner) {
      // Not queued with the rest: the worker we are starting must hear it before it is ready.
      this.prepare = true;
      this.starting?.postMessage(message);
      return;
    }
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
      this.adopt(this.opts.spawnWorker(init), [], 'owner');
      return;
    }
    const dir = await projectStoreDir(init);
    const start = Date.now();
    // A restarting owner comes back to its store: until then only its socket is tried.
    const ownerBack = start + (this.opts.waitForOwnerMs ?? 0);
    const deadline = Math.max(ownerBack, start + (this.opts.waitMs ?? 45_000));
    while (!this.terminated) {
      // With the handshake (transport/handshake.ts); undefined when nobody answers as the owner (yet).
      const c = await connectToOwner(dir, this.opts.client);
      if (c) return this.adopt(c.transport, [c.ready], 'client');
      if (this.terminated) return;
      // Read-only checks first: polling clients must not write (and fsync) a claim each round.
      if (Date.now() >= ownerBack && !this.lockedByOther(dir) && !lockHeld(dir, TAKEOVER_CLAIM) && (await this.tryToOwn(dir))) return;
      if (Date.now() > deadline) break;
      await delay(POLL_MS);
    }
    if (!this.terminated) this.giveUp('another process holds the store but does not answer on its socket');
  }

  /**
   * Starts the engine worker as the store's owner, unless another process is doing so (it holds
   * the takeover claim: we wait for its socket) or has done so (the store's lock is held again).
   * False when this side did not become the owner.
   */
  private async tryToOwn(dir: string): Promise<boolean> {
    const claim = claimTakeover(dir, this.opts.client);
    if (!claim) return false;
    try {
      if (this.lockedByOther(dir)) return false;
      const worker = this.opts.spawnWorker({ ...this.opts.init, exclusive: true, serve: true });
      this.starting = worker;
      if (this.prepare) worker.postMessage({ kind: 'prepare' });
      const start = await startOf(worker).finally(() => (this.starting = undefined));
      if (start.messages.some((m) => m.kind === 'fatal' && m.error.code === 'store_locked')) {
        await worker.terminate(); // another process took the lock first: wait for its socket
        return false;
      }
      this.adopt(worker, start.messages, 'owner', start.exit);
      return true;
    } finally {
      claim.release();
    }
  }

  /**
   * Whether another engine may hold the store's lock. A lock of this process with our owner id is
   * the one our own engine thread left when it crashed: the next engine we start reclaims it
   * (stores.ts), so it is no reason to wait for a socket that will never answer.
   */
  private lockedByOther(dir: string): boolean {
    const ownerId = this.opts.init.ownerId;
    const ours = (info: LockInfo) =>
      ownerId !== undefined && info.pid === process.pid && info.host === os.hostname() && (info.purpose ?? '').endsWith(`[${ownerId}]`);
    return lockHeld(dir, undefined, ours);
  }

  /** From now on `inner` is the engine: replay its first messages (or exit) and forward the rest. */
  private adopt(inner: EngineTransport, first: FromEngineMessage[], role: 'owner' | 'client', exitCode?: number): void {
    this.inner = inner;
    this.role = role;
    inner.on('message', (m) => this.emit('message', m));
    inner.on('error', (e) => this.emit('error', e));
    inner.on('exit', (code) => this.emit('exit', code));
    if (this.terminated) void inner.terminate();
    for (const m of first) this.emit('message', m);
    if (exitCode !== undefined) this.emit('exit', exitCode);
    for (const m of this.early.splice(0)) inner.postMessage(m);
    this.opts.log?.(`store ${role === 'owner' ? 'owned by this process' : 'served by another process: connected as a client'}`);
  }

  private giveUp(message: string, code: EngineError['code'] = 'store_locked'): void {
    this.emit('message', { kind: 'fatal', error: { code, message } } satisfies FromEngineMessage);
  }
}

/**
 * The takeover claim (`takeover.lock`, a lock file with the store lock's rules: a claim of a
 * process that is gone is stale): held while this process starts an engine to own the store, so
 * that when an owner dies, one of its clients opens the store while the others wait for its
 * socket, instead of each starting an engine. Undefined when another live process holds it.
 */
function claimTakeover(dir: string, client: string): StoreLock | undefined {
  try {
    return StoreLock.acquire(dir, `${client}, taking the store over`, TAKEOVER_CLAIM);
  } catch (e) {
    if ((e as UserFacingError).code === 'store_locked') return undefined;
    throw e;
  }
}

function startOf(worker: EngineTransport): Promise<Start> {
  return new Promise((resolve) => {
    const messages: FromEngineMessage[] = [];
    let settled = false;
    const settle = (exit?: number) => {
      if (settled) return;
      settled = true;
      resolve(exit === undefined ? { messages } : { messages, exit });
    };
    worker.on('message', (m) => {
      if (settled) return;
      messages.push(m);
      if (m.kind === 'ready' || m.kind === 'fatal') settle();
    });
    worker.on('exit', (code) => settle(code));
  });
}

function delay(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
