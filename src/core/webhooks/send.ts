/**
 * One attempt of a delivery: an HTTP(S) POST with one deadline over the whole exchange
 * (connecting, sending, the answer's head and the start of its body). A 2xx answer delivers it.
 * A redirect is followed only to the same origin (scheme, host and port), at most
 * {@link MAX_REDIRECTS} times: a redirect to another host is a failure that says so, never a
 * delivery to a host nobody configured. Every failure comes back as a sentence, never thrown.
 */
import * as http from 'node:http';
import * as https from 'node:https';
import type { AttemptOutcome } from '../changes/outbox';

export const MAX_REDIRECTS = 3;
/** Of an error answer only this much is read, for the reason shown. */
const ERROR_BODY_BYTES = 512;

export interface SendOptions {
  timeoutMs: number;
  /** Aborts the attempt (the owner is stopping). */
  signal?: AbortSignal;
}

export async function postDelivery(url: string, body: string, headers: Record<string, string>, opts: SendOptions): Promise<AttemptOutcome> {
  const deadline = AbortSignal.timeout(opts.timeoutMs);
  const signal = opts.signal ? AbortSignal.any([opts.signal, deadline]) : deadline;
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return { ok: false, status: null, error: `${url} is not a valid URL` };
  }
  for (let hop = 0; ; hop++) {
    const answer = await postOnce(target, body, headers, signal).catch((e: unknown) => ({ failure: reasonOf(e, deadline, opts) }));
    if ('failure' in answer) return { ok: false, status: null, error: answer.failure };
    if (answer.status >= 200 && answer.status < 300) return { ok: true, status: answer.status, error: null };
    if (answer.status >= 300 && answer.status < 400 && answer.location) {
      const next = redirectTarget(target, answer.location);
      if (typeof next === 'string') return { ok: false, status: answer.status, error: next };
      if (hop >= MAX_REDIRECTS) return { ok: false, status: answer.status, error: `redirected more than ${MAX_REDIRECTS} times` };
      target = next;
      continue;
    }
    const said = answer.text.trim().replace(/\s+/g, ' ').slice(0, 200);
    return { ok: false, status: answer.status, error: `answered ${answer.status}${said ? `: ${said}` : ''}` };
  }
}

/** The same origin's URL to follow, or why a redirect is not followed. */
function redirectTarget(from: URL, location: string): URL | string {
  let next: URL;
  try {
    next = new URL(location, from);
  } catch {
    return `redirected to ${JSON.stringify(location.slice(0, 100))}, which is not a URL`;
  }
  if (next.origin !== from.origin)
    return `redirected to another host (${next.origin}); redirects to another host are not followed: configure the final URL`;
  return next;
}

type Answer = { status: number; location: string | undefined; text: string };

/** One POST on a connection of its own (`agent: false`): a kept-alive socket the receiver closed meanwhile would fail it. */
function postOnce(url: URL, body: string, headers: Record<string, string>, signal: AbortSignal): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const lib = url.protocol === 'https:' ? https : http;
    const req = lib.request(
      url,
      {
        method: 'POST',
        signal,
        agent: false,
        headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        const status = res.statusCode ?? 0;
        const location = typeof res.headers.location === 'string' ? res.headers.location : undefined;
        if (status >= 200 && status < 400) {
          res.on('error', () => undefined);
          res.resume(); // the body of a success or a redirect is not needed
          resolve({ status, location, text: '' });
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        const done = () => resolve({ status, location, text: Buffer.concat(chunks).toString('utf8') });
        res.on('data', (c: Buffer) => {
          if (size >= ERROR_BODY_BYTES) return;
          chunks.push(c.subarray(0, ERROR_BODY_BYTES - size));
          size += c.length;
          if (size >= ERROR_BODY_BYTES) {
            res.destroy();
            done();
          }
        });
        res.on('end', done);
        res.on('error', done);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const NETWORK_REASONS: Record<string, string> = {
  ECONNREFUSED: 'the connection was refused (nothing listens there)',
  ECONNRESET: 'the connection was closed before an answer came',
  ENOTFOUND: 'the host name was not found',
  EAI_AGAIN: 'the host name could not be looked up now',
  EHOSTUNREACH: 'the host cannot be reached',
  ENETUNREACH: 'the network cannot be reached',
  ETIMEDOUT: 'connecting timed out',
  CERT_HAS_EXPIRED: 'its TLS certificate has expired',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'its TLS certificate is self-signed',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'its TLS certificate cannot be verified',
  ERR_TLS_CERT_ALTNAME_INVALID: 'its TLS certificate is for another host name',
};

function reasonOf(e: unknown, deadline: AbortSignal, opts: SendOptions): string {
  if (deadline.aborted) return `no answer within ${formatMs(opts.timeoutMs)}`;
  if (opts.signal?.aborted) return 'stopped before an answer came (the store was closing)';
  const code = (e as NodeJS.ErrnoException)?.code;
  if (code && NETWORK_REASONS[code]) return NETWORK_REASONS[code];
  return `the request failed: ${(e as Error)?.message ?? String(e)}`;
}

function formatMs(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}
