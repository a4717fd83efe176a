/**
 * Serves an open MemoryEngine on its project store's local socket (transport/endpoint.ts), so
 * every other window, the CLI and the MCP server use this owner's engine instead of opening a
 * second writer (ARCHITECTURE.md "One owner, many clients"). Each connection gets its own
 * RpcServer over the same handler table as the worker's port; events go to every client.
 *
 * Only the same OS user gets in: the socket is 0600 in a folder private to the user, and a
 * connection is served only after the mutual challenge–response of handshake.ts over the secret
 * of the owner's record (0600, new for every owner). Until then a connection may send frames of
 * a few kilobytes only, must finish within `helloTimeoutMs`, and at most MAX_UNPROVEN of them
 * wait at once: a confused or hostile peer cannot make the owner buffer without bound.
 */
import * as fs from 'node:fs';
import * as net from 'node:net';
import type { MemoryEngine } from '../engine';
import type { HandlerTable } from '../handlers';
import { RpcServer, type Port } from '../requestDispatcher';
import { PROTOCOL_VERSION, type EngineEvent, type FromEngineMessage, type ReadyInfo, type ToEngineMessage } from '../../protocol';
import { MAX_FRAME_BYTES, readFrames, writeFrame } from '../../socket/framing';
import {
  HANDSHAKE_FRAME_BYTES,
  clientProof,
  helloVersion,
  isHello,
  isProof,
  newNonce,
  ownerProof,
  sameProof,
  type ChallengeMessage,
} from '../../socket/handshake';
import { newSecret, socketPath, writeOwnerRecord } from '../../socket/endpoint';
import { assertPrivateFolder } from '../../socket/privateDir';
import { remoteHandlers } from './remoteHandlers';
import { drainConnections, endConnections } from './drain';

/** Connections that have not finished the handshake, at most, at once; more are closed at once. */
export const MAX_UNPROVEN = 16;

export interface EngineServerOptions {
  storeDir: string;
  engine: MemoryEngine;
  handlers: HandlerTable;
  info: () => ReadyInfo;
  log?: (line: string) => void;
  /** How long a connection may take to complete the handshake (ms). */
  helloTimeoutMs?: number;
}

interface Served {
  secret: string;
  handlers: HandlerTable;
  opts: EngineServerOptions;
}

export class EngineServer {
  private readonly clients = new Set<net.Socket>();
  private readonly unproven = new Set<net.Socket>();
  /** The RpcServer of each proven connection (a closing owner drains them: server/drain.ts). */
  private readonly rpcs = new Map<net.Socket, RpcServer>();
  private closed = false;
  private refusedForLoad = 0;

  private constructor(
    private readonly server: net.Server,
    readonly path: string,
    private readonly storeDir: string,
  ) {}

  static async start(opts: EngineServerOptions): Promise<EngineServer> {
    // We hold the store's lock: the folder is ours to make private (0700), unless it belongs to someone else.
    assertPrivateFolder(opts.storeDir, {
      what: 'The store folder',
      otherwise: 'choose a store home of your own (AGENT_MEMORY_HOME, --home or the agentMemory.storeHome setting).',
      followLink: true,
      tighten: true,
    });
    const where = socketPath(opts.storeDir);
    // We hold the store's lock, in a folder private to us: a socket file left here belongs to a dead owner.
    if (process.platform !== 'win32') fs.rmSync(where, { force: true });
    const served: Served = { secret: newSecret(), handlers: remoteHandlers(opts.handlers), opts };
    const server = net.createServer();
    const self = new EngineServer(server, where, opts.storeDir);
    server.on('connection', (socket) => self.accept(socket, served));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(where, () => {
        server.off('error', reject);
        resolve();
      });
    });
    if (process.platform !== 'win32') fs.chmodSync(where, 0o600);
    // Written once we listen: a client that finds this record finds us.
    writeOwnerRecord(opts.storeDir, { secret: served.secret, socket: where });
    server.on('error', (e) => opts.log?.(`engine server: ${e.message}`));
    return self;
  }

  get clientCount(): number {
    return this.clients.size;
  }

  /** An engine event to every connected client. */
  broadcast(event: EngineEvent): void {
    for (const c of this.clients) writeFrame(c, { kind: 'event', event } satisfies FromEngineMessage);
  }

  /**
   * Stops listening and drains (server/drain.ts): what the clients sent from now on is refused
   * with `engine_closing` (they send it again to the next owner), what is running is answered;
   * then every connection is closed (the clients reconnect or take over).
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const stopped = new Promise<void>((resolve) => this.server.close(() => resolve()));
    // A connection that has not proved itself has nothing running: it is closed at once.
    for (const s of this.unproven) s.destroy();
    await drainConnections([...this.rpcs.values()], this.storeDir);
    await endConnections([...this.clients], stopped);
  }

  private accept(socket: net.Socket, served: Served): void {
    socket.on('error', () => undefined); // a client that vanishes mid-write: its close is what counts
    if (this.closed) {
      socket.destroy();
      return;
    }
    if (this.unproven.size >= MAX_UNPROVEN) {
      // Logged once per burst: a flood of connections must not flood the log either.
      if (this.refusedForLoad++ === 0)
        served.opts.log?.(`engine server: more than ${MAX_UNPROVEN} connections were still unproven; closing new ones`);
      socket.destroy();
      return;
    }
    this.refusedForLoad = 0;
    this.unproven.add(socket);
    const listeners: ((m: ToEngineMessage) => void)[] = [];
    const handshake = new OwnerHandshake(served.secret);
    let proven = false;
    const timer = setTimeout(() => socket.destroy(), served.opts.helloTimeoutMs ?? 5000);
    // The refused peer is told why; the handshake deadline destroys the connection if it does not close it.
    const refuse = (message: string) => {
      writeFrame(socket, { kind: 'fatal', error: { code: 'engine_unavailable', message } } satisfies FromEngineMessage);
      socket.end();
    };
    readFrames(
      socket,
      (m) => {
        if (proven) {
          for (const l of listeners) l(m as ToEngineMessage);
          return;
        }
        const step = handshake.next(m);
        if (step.kind === 'refuse') return refuse(step.message);
        if (step.kind === 'send') return void writeFrame(socket, step.message);
        if (step.kind === 'ignore') return;
        clearTimeout(timer);
        proven = true;
        this.unproven.delete(socket);
        this.clients.add(socket);
        const port: Port = {
          postMessage: (out: FromEngineMessage) => void writeFrame(socket, out),
          on: (_event, listener) => listeners.push(listener),
        };
        this.rpcs.set(socket, new RpcServer(port, served.opts.engine, served.handlers, () => undefined));
        writeFrame(socket, { kind: 'ready', info: served.opts.info() } satisfies FromEngineMessage);
      },
      (reason) => served.opts.log?.(`engine server: dropped a client: ${reason}`),
      () => (proven ? MAX_FRAME_BYTES : HANDSHAKE_FRAME_BYTES),
    );
    socket.on('close', () => {
      clearTimeout(timer);
      this.unproven.delete(socket);
      this.clients.delete(socket);
      this.rpcs.delete(socket);
    });
  }
}

type Step = { kind: 'send'; message: ChallengeMessage } | { kind: 'refuse'; message: string } | { kind: 'proven' } | { kind: 'ignore' };

/** The owner's side of handshake.ts for one connection: hello → challenge, proof → proven; anything else → refuse. */
class OwnerHandshake {
  private state: 'hello' | 'proof' | 'done' = 'hello';
  private readonly ownerNonce = newNonce();
  private clientNonce = '';

  constructor(private readonly secret: string) {}

  next(m: unknown): Step {
    if (this.state === 'done') return { kind: 'ignore' };
    const step = this.state === 'hello' ? this.onHello(m) : this.onProof(m);
    if (step.kind === 'refuse' || step.kind === 'proven') this.state = 'done';
    return step;
  }

  private onHello(m: unknown): Step {
    const version = helloVersion(m);
    if (version === undefined) return { kind: 'refuse', message: 'The first message must be a hello.' };
    if (version !== PROTOCOL_VERSION) {
      return {
        kind: 'refuse',
        message:
          `This store is served by a version of Agent Memory that speaks protocol ${PROTOCOL_VERSION}, and the program connecting ` +
          `speaks protocol ${version}. Update Agent Memory everywhere it runs (the VS Code extension, and the CLI your agents start), then try again.`,
      };
    }
    if (!isHello(m)) return { kind: 'refuse', message: 'The hello carries no valid nonce.' };
    this.clientNonce = m.nonce;
    this.state = 'proof';
    const proof = ownerProof(this.secret, this.clientNonce, this.ownerNonce);
    return { kind: 'send', message: { kind: 'challenge', protocolVersion: PROTOCOL_VERSION, nonce: this.ownerNonce, proof } };
  }

  private onProof(m: unknown): Step {
    if (!isProof(m)) return { kind: 'refuse', message: 'The second message must be the proof of the store secret.' };
    if (!sameProof(m.proof, clientProof(this.secret, this.clientNonce, this.ownerNonce))) {
      return { kind: 'refuse', message: "Wrong proof of the store secret: only the owner's OS user may connect." };
    }
    return { kind: 'proven' };
  }
}
