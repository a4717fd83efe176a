/**
 * The first frames on a store socket (ARCHITECTURE.md "One owner, many clients"): a mutual
 * challenge–response over the store's secret, which never crosses the socket.
 *
 *   client → owner   hello      { protocolVersion, nonce: Nc }
 *   owner  → client  challenge  { protocolVersion, nonce: No, proof: HMAC(secret, "owner",  Nc, No) }
 *   client → owner   proof      { proof: HMAC(secret, "client", Nc, No), client }
 *   owner  → client  ready      (protocol.ts ReadyMessage) — or a FatalMessage, then close
 *
 * The client checks the owner's proof before it sends anything else: a process that does not
 * know the secret (another user listening where the client looks) learns one random nonce and
 * nothing more — no secret, no memory text, no query. The owner checks the client's proof
 * before it serves anything. Each side's nonce is fresh per connection, so a proof recorded on
 * one connection is worthless on the next, and the labels keep an owner's proof from serving as
 * a client's. Everything after `ready` is ToEngineMessage / FromEngineMessage (protocol.ts).
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** Bytes of each side's nonce (hex on the wire). */
const NONCE_BYTES = 32;
/** The longest frame either side accepts before the other proved it knows the secret (a hello is ~120 bytes). */
export const HANDSHAKE_FRAME_BYTES = 4096;

export interface HelloMessage {
  kind: 'hello';
  protocolVersion: number;
  nonce: string;
}

export interface ChallengeMessage {
  kind: 'challenge';
  protocolVersion: number;
  nonce: string;
  proof: string;
}

export interface ProofMessage {
  kind: 'proof';
  proof: string;
  /** Who connects (a program's name, for diagnostics). */
  client?: string;
}

const isHex = (s: unknown, bytes: number): s is string => typeof s === 'string' && s.length === bytes * 2 && /^[0-9a-f]+$/.test(s);

export function newNonce(): string {
  return randomBytes(NONCE_BYTES).toString('hex');
}

function proofOf(secret: string, role: 'owner' | 'client', clientNonce: string, ownerNonce: string): string {
  return createHmac('sha256', Buffer.from(secret, 'utf8'))
    .update(`agent-memory store ${role}\n${clientNonce}\n${ownerNonce}`)
    .digest('hex');
}

/** What the owner sends to prove it knows the secret. */
export function ownerProof(secret: string, clientNonce: string, ownerNonce: string): string {
  return proofOf(secret, 'owner', clientNonce, ownerNonce);
}

/** What the client sends to prove it knows the secret. */
export function clientProof(secret: string, clientNonce: string, ownerNonce: string): string {
  return proofOf(secret, 'client', clientNonce, ownerNonce);
}

/** Timing-safe comparison of a proof off the wire with the expected one. */
export function sameProof(given: unknown, expected: string): boolean {
  if (typeof given !== 'string' || given.length !== expected.length) return false;
  return timingSafeEqual(Buffer.from(given, 'utf8'), Buffer.from(expected, 'utf8'));
}

/** The protocol version a first frame claims (any hello, including an older client's), if any. */
export function helloVersion(m: unknown): number | undefined {
  const h = m as { kind?: unknown; protocolVersion?: unknown } | null;
  return !!h && typeof h === 'object' && h.kind === 'hello' && typeof h.protocolVersion === 'number' ? h.protocolVersion : undefined;
}

export function isHello(m: unknown): m is HelloMessage {
  return helloVersion(m) !== undefined && isHex((m as HelloMessage).nonce, NONCE_BYTES);
}

export function isChallenge(m: unknown): m is ChallengeMessage {
  const c = m as Partial<ChallengeMessage> | null;
  return !!c && typeof c === 'object' && c.kind === 'challenge' && isHex(c.nonce, NONCE_BYTES) && typeof c.proof === 'string';
}

export function isProof(m: unknown): m is ProofMessage {
  const p = m as Partial<ProofMessage> | null;
  return !!p && typeof p === 'object' && p.kind === 'proof' && typeof p.proof === 'string';
}
