/**
 * Serves an open MemoryEngine on its project store's local socket (transport/endpoint.ts), so
 * every other window, the CLI and the MCP server use this owner's engine instead of opening a
 * second writer (ARCHITECTURE.md "One owner, many clients"). Each connection gets its own
 * RpcServer over the same handler table as the worker's port; events go to every client.
 *
 * Only the same OS user gets in: the socket is 0600 in a 0700 store folder, and the first
 * frame must carry the secret of engine.secret (0600, new for every owner).
 */
import { timingSafeEqual } from 'node:crypto';
import * as fs from 'node:fs';
import * as net from 'node:net';
import type { MemoryEngine } from '../engine';
import type { HandlerTable } from '../handlers';
import { RpcServer, type Port } from '../rpcServer';
import { PROTOCOL_VERSION, type EngineEvent, type FromEngineMessage, type ReadyInfo, type ToEngineMessage } from '../protocol';
import { readFrames, writeFrame } from '../transport/framing';
import { isHello } from '../transport/handshake';
import { socketPath, writeSecret } from '../transport/endpoint';
import { remoteHandlers } from './remoteHandlers';
import { drainConnections, endConnections } from './drain';

export interface EngineServerOptions {
  storeDir: string;
  engine: MemoryEngine;
  handlers: HandlerTable;
  info: () => ReadyInfo;
  log?: (line: string) => void;
  /** How long a connection may take to send its hello (ms). */
  helloTimeoutMs?: number;
}

export class EngineServer {
  private readonly clients = new Set<net.Socket>();
  /** Every connection, greeted or not. */
  private readonly sockets = new Set<net.Socket>();
  private readonly rpcs = new Map<net.Socket, RpcServer>();
  private closed = false;

  private constructor(
    private readonly server: net.Server,
    readonly path: string,
    private readonly storeDir: string,
  ) {}

  static async start(opts: EngineServerOptions): Promise<EngineServer> {
    const where = socketPath(opts.storeDir);
    if (process.platform !== 'win32') {
      fs.chmodSync(opts.storeDir, 0o700);
      // We hold the store's lock: a socket file left here belongs to a dead owner.
      fs.rmSync(where, { force: true });
    }
    const secret = writeSecret(opts.storeDir);
    const handlers = remoteHandlers(opts.handlers);
    const server = net.createServer();
    const self = new EngineServer(server, where, opts.storeDir);
    server.on('connection', (socket) => self.accept(socket, secret, handlers, opts));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(where, () => {
        server.off('error', reject);
        resolve();
      });
    });
    if (process.platform !== 'win32') fs.chmodSync(where, 0o600);
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
    for (const s of this.sockets) if (!this.clients.has(s)) s.destroy();
    await drainConnections([...this.rpcs.values()], this.storeDir);
    await endConnections([...this.sockets], stopped);
  }

  private accept(socket: net.Socket, secret: string, handlers: HandlerTable, opts: EngineServerOptions): void {
    if (this.closed) {
      socket.destroy();
      return;
    }
    socket.on('error', () => undefined); // a client that vanishes mid-write: its close is what counts
    this.sockets.add(socket);
    const listeners: ((m: ToEngineMessage) => void)[] = [];
    const port: Port = {
      postMessage: (m: FromEngineMessage) => void writeFrame(socket, m),
      on: (_event, listener) => listeners.push(listener),
    };
    let greeted = false;
    const helloTimer = setTimeout(() => socket.destroy(), opts.helloTimeoutMs ?? 5000);
    readFrames(
      socket,
      (m) => {
        if (greeted) {
          for (const l of listeners) l(m as ToEngineMessage);
          return;
        }
        clearTimeout(helloTimer);
        const refusal = checkHello(m, secret);
        if (refusal) {
          writeFrame(socket, { kind: 'fatal', error: { code: 'engine_unavailable', message: refusal } } satisfies FromEngineMessage);
          socket.end();
          return;
        }
        greeted = true;
        this.clients.add(socket);
        this.rpcs.set(socket, new RpcServer(port, opts.engine, handlers, () => undefined));
        writeFrame(socket, { kind: 'ready', info: opts.info() } satisfies FromEngineMessage);
      },
      (reason) => opts.log?.(`engine server: dropped a client: ${reason}`),
    );
    socket.on('close', () => {
      clearTimeout(helloTimer);
      this.clients.delete(socket);
      this.sockets.delete(socket);
      this.rpcs.delete(socket);
    });
  }
}

function checkHello(m: unknown, secret: string): string | undefined {
  if (!isHello(m)) return 'The first message must be a hello with the store secret.';
  const given = Buffer.from(m.secret);
  const expected = Buffer.from(secret);
  if (given.length !== expected.length || !timingSafeEqual(given, expected))
    return "Wrong store secret: only the owner's OS user may connect.";
  if (m.protocolVersion !== PROTOCOL_VERSION)
    return `Protocol ${m.protocolVersion} is not spoken here (the owner speaks ${PROTOCOL_VERSION}): update Agent Memory.`;
  return undefined;
}
