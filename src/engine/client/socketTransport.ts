/**
 * A client connection to the owner of a store (worker/owner/socketServer.ts) with the shape of an
 * engine worker (types.ts). Before anything else, handshake.ts: the owner must prove it knows
 * the store's secret, and only then does this side prove it too; the owner's ReadyMessage then
 * arrives as a worker's would. Messages posted before that wait, and are dropped if the owner
 * never proves itself. engine.shutdown from this side only closes the connection: a client
 * never stops the owner.
 */
import { EventEmitter } from 'node:events';
import * as net from 'node:net';
import { EngineError } from '../errors';
import { PROTOCOL_VERSION, type FromEngineMessage, type ToEngineMessage } from '../protocol';
import { checkSocket, readOwnerRecord, socketPath } from '../socket/endpoint';
import { MAX_FRAME_BYTES, readFrames, writeFrame } from '../socket/framing';
import {
  HANDSHAKE_FRAME_BYTES,
  clientProof,
  isChallenge,
  newNonce,
  ownerProof,
  sameProof,
  type HelloMessage,
  type ProofMessage,
} from '../socket/handshake';
import type { EngineTransport } from './transport';

/** Why a connection ended before the owner's ready; `final` when trying again cannot help. */
export interface Refusal {
  reason: string;
  final: boolean;
}

export class SocketTransport extends EventEmitter implements EngineTransport {
  private readonly socket: net.Socket;
  private exited = false;
  private terminated = false;
  /** hello sent → challenge checked (proof sent) → ready received (open). */
  private state: 'hello' | 'proof' | 'open' | 'refused' = 'hello';
  private readonly nonce = newNonce();
  private readonly waiting: ToEngineMessage[] = [];
  /** Set when the handshake failed. */
  refusal: Refusal | undefined;

  constructor(
    private readonly where: string,
    private readonly secret: string,
    private readonly client: string,
  ) {
    super();
    this.socket = net.connect(where);
    this.socket.on('error', (e) => {
      // Connection refused / no socket: the owner is gone; `close` follows and reports the exit.
      if (this.listenerCount('error')) this.emit('error', e);
    });
    // The hello carries a fresh nonce and nothing else: it is all an impostor ever gets.
    writeFrame(this.socket, { kind: 'hello', protocolVersion: PROTOCOL_VERSION, nonce: this.nonce } satisfies HelloMessage);
    readFrames(
      this.socket,
      (m) => this.onFrame(m as FromEngineMessage),
      (reason) => this.emit('error', new Error(`the store's owner sent ${reason}`)),
      () => (this.state === 'hello' ? HANDSHAKE_FRAME_BYTES : MAX_FRAME_BYTES),
    );
    this.socket.on('close', () => this.exit(this.terminated ? 0 : 1));
  }

  postMessage(message: ToEngineMessage): void {
    if (message.kind === 'prepare') return; // the owner's engine runs already: nothing to prepare
    if (message.kind === 'request' && message.method === 'engine.shutdown') {
      this.emit('message', { kind: 'response', id: message.id, ok: true, result: { snapshotted: false } } satisfies FromEngineMessage);
      void this.terminate();
      return;
    }
    if (this.state === 'open') writeFrame(this.socket, message);
    else if (this.state !== 'refused') this.waiting.push(message);
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

  private onFrame(m: FromEngineMessage): void {
    if (this.state === 'open') {
      this.emit('message', m);
    } else if (this.state === 'hello') {
      this.onChallenge(m);
    } else if (this.state === 'proof') {
      if (m.kind !== 'ready') return this.refuse(refusalOf(m, 'did not accept this program'), m.kind === 'fatal');
      this.state = 'open';
      this.emit('message', m);
      for (const w of this.waiting.splice(0)) writeFrame(this.socket, w);
    }
  }

  /** The owner's first answer: its proof of the secret (else nothing more is sent), then ours. */
  private onChallenge(m: unknown): void {
    if ((m as FromEngineMessage | null)?.kind === 'fatal')
      return this.refuse(refusalOf(m as FromEngineMessage, 'refused the connection'), true);
    if (!isChallenge(m) || !sameProof(m.proof, ownerProof(this.secret, this.nonce, m.nonce))) {
      return this.refuse(
        `the process listening on ${this.where} could not prove it serves this store (it does not know its secret)`,
        false,
      );
    }
    this.state = 'proof';
    const proof = clientProof(this.secret, this.nonce, m.nonce);
    writeFrame(this.socket, { kind: 'proof', proof, client: this.client } satisfies ProofMessage);
  }

  private refuse(reason: string, final: boolean): void {
    this.state = 'refused';
    this.refusal = { reason, final };
    this.waiting.length = 0;
    this.socket.destroy();
  }

  private exit(code: number): void {
    if (this.exited) return;
    this.exited = true;
    this.emit('exit', code);
  }
}

/** The sentence for an owner's refusal (a FatalMessage) or an unexpected frame. */
function refusalOf(m: FromEngineMessage, what: string): string {
  if (m?.kind !== 'fatal' || typeof m.error?.message !== 'string')
    return `the program serving this store ${what}: it answered with an unexpected message`;
  return (
    `the program serving this store (another VS Code window, the CLI or an agent's MCP server) ${what}: ${m.error.message} ` +
    'If it runs another version of Agent Memory, update Agent Memory everywhere it runs, or close that program.'
  );
}

/**
 * Connects to the owner of the store in `storeDir` and completes the handshake: its
 * ReadyMessage with a usable transport, or undefined when nobody answers as its owner (nothing
 * listens, a stale socket, the secret changed meanwhile, no answer within `timeoutMs`), so the
 * caller may try to become the owner. Throws when trying again cannot help: a socket, folder or
 * record that is not this user's own (`not_private`), an owner that refused this program
 * (`engine_unavailable`, e.g. another protocol version).
 */
export async function connectToOwner(
  storeDir: string,
  client: string,
  timeoutMs = 5000,
): Promise<{ transport: SocketTransport; ready: FromEngineMessage } | undefined> {
  socketPath(storeDir); // the runtime folder of this store is made and checked even before any owner wrote a record
  const record = readOwnerRecord(storeDir);
  if (!record || checkSocket(record.socket, storeDir) === 'absent') return undefined;
  const t = new SocketTransport(record.socket, record.secret, client);
  const ready = await new Promise<FromEngineMessage | undefined>((resolve) => {
    const done = (m: FromEngineMessage | undefined) => {
      clearTimeout(timer);
      t.removeListener('message', onFirst);
      t.removeListener('exit', onExit);
      resolve(m);
    };
    const timer = setTimeout(() => done(undefined), timeoutMs);
    const onFirst = (m: FromEngineMessage) => done(m.kind === 'ready' ? m : undefined);
    const onExit = () => done(undefined);
    t.on('message', onFirst);
    t.on('exit', onExit);
  });
  if (ready) return { transport: t, ready };
  void t.terminate();
  if (t.refusal?.final) throw new EngineError('engine_unavailable', capitalized(t.refusal.reason));
  return undefined;
}

const capitalized = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
