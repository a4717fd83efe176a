/**
 * How a delivery is signed, and how a receiver checks it (docs/changes.md "Checking a
 * delivery"): HMAC-SHA256 with the webhook's secret over `<timestamp>.<body>`, hex, in
 * `X-Agent-Memory-Signature: sha256=<hex>`; the timestamp (Unix seconds) in
 * `X-Agent-Memory-Timestamp`, so a receiver refuses old replays; the delivery id in
 * `X-Agent-Memory-Delivery`, the same on every attempt, so a receiver drops duplicates.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const HEADER_SIGNATURE = 'x-agent-memory-signature';
export const HEADER_TIMESTAMP = 'x-agent-memory-timestamp';
export const HEADER_DELIVERY = 'x-agent-memory-delivery';
export const HEADER_EVENT = 'x-agent-memory-event';

/** How old a timestamp a receiver should accept (docs/changes.md suggests it; the sender does not enforce it). */
export const SIGNATURE_TOLERANCE_S = 300;

/** `sha256=<hex>` of the body sent at `timestamp` (Unix seconds). */
export function signBody(secret: string, timestamp: number, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

/** A new signing secret: 32 random bytes, base64url (what `webhooks secret` prints). */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

/**
 * The receiver's check, as docs/changes.md shows it: the signature matches (timing-safe) and the
 * timestamp is within `toleranceS` of `nowS`. Returns why not, or undefined when it holds.
 */
export function verifySignature(
  secret: string,
  headers: { signature: string | undefined; timestamp: string | undefined },
  body: string,
  nowS: number,
  toleranceS = SIGNATURE_TOLERANCE_S,
): string | undefined {
  const ts = Number(headers.timestamp);
  if (!headers.timestamp || !Number.isInteger(ts)) return 'no timestamp';
  if (Math.abs(nowS - ts) > toleranceS) return 'the timestamp is too old or in the future';
  const expected = Buffer.from(signBody(secret, ts, body));
  const given = Buffer.from(headers.signature ?? '');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'the signature does not match';
  return undefined;
}
