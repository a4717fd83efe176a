/**
 * A client connection to the owner of a store (server/engineServer.ts) with the shape of an
 * engine worker (types.ts): the hello with the store secret goes first, then the owner's
 * ReadyMessage arrives as a worker's would. engine.shutdown from this side only closes the
 * connection: a client never stops the owner.
 */
import { EventEmitter } from 'node:events';
import * as net from 'node:net';
import { PROTOCOL_VERSION, type FromEngineMessage, type ToEngineMessage } from '../protocol';
import { readFrames, writeFrame } from './framing';
import type { HelloMessage } from './handshake';
import type { EngineTransport } from './types';

export class SocketTransport extends EventEmitter implements EngineTransport {
  private readonly socket: net.Socket;
  private exited = false;
  private terminated = false;

  constructor(where: string, secret: string, client: string) {
    super();
    this.socket = net.connect(where);
    this.socket.on('error', (e) => {
      // Connection refused / no socket: the owner is gone; `close` follows and reports the exit.
      if (this.listenerCount('error')) this.emit('error', e);
    });
    writeFrame(this.socket, { kind: 'hello', secret, protocolVersion: PROTOCOL_VERSION, client } satisfies HelloMessage);
    readFrames(
      this.socket,
      (m) => this.emit('message', m as FromEngineMessage),
      (reason) => this.emit('error', new Error(`the store's owner sent ${reason}`)),
    );
    this.socket.on('close', () => this.exit(this.terminated ? 0 : 1));
  }

  postMessage(message: ToEngineMessage): void {
    if (message.kind === 'request' && message.method === 'engine.shutdown') {
      this.emit('message', { kind: 'response', id: message.id, ok: true, result: { snapshotted: false } } satisfies FromEngineMessage);
      void this.terminate();
      return;
    }
    writeFrame(this.socket, message);
  }

  terminate(): Promise<number> {
    this.terminated = true;
    if (this.exited) return Promise.resolve(0);
    return new Promise((resolve) => {
      this.once('exit', () => resolve(0));
      this.socket.end();
      setTimeout(() => this.socket.destroy(), 500).unref();
    });
  }

  private exit(code: number): void {
    if (this.exited) return;
    this.exited = true;
    this.emit('exit', code);
  }
}

/** Connects and waits for the owner's first answer: its ReadyMessage (the transport is usable), or undefined. */
export function connectToOwner(
  where: string,
  secret: string,
  client: string,
  timeoutMs = 5000,
): Promise<{ transport: SocketTransport; ready: FromEngineMessage } | undefined> {
  return new Promise((resolve) => {
    const t = new SocketTransport(where, secret, client);
    const done = (ready: FromEngineMessage | undefined) => {
      clearTimeout(timer);
      t.removeListener('message', onFirst);
      t.removeListener('exit', onExit);
      if (!ready) void t.terminate();
      resolve(ready ? { transport: t, ready } : undefined);
    };
    const timer = setTimeout(() => done(undefined), timeoutMs);
    const onFirst = (m: FromEngineMessage) => done(m.kind === 'ready' ? m : undefined);
    const onExit = () => done(undefined);
    t.on('message', onFirst);
    t.on('exit', onExit);
  });
}
