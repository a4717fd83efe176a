/**
 * Blocks and records every attempt to open a network connection from the current thread:
 * `globalThis.fetch`, `http(s).request/get`, `net.connect/createConnection`,
 * `net.Socket.prototype.connect`, `tls.connect`. Installed at the top of the USE-lite worker so
 * the model library can never reach the internet, whatever it tries (its default
 * `initModel()` downloads from tfhub.dev). Module objects are per thread, so installing it in a
 * worker does not affect the thread that started the worker.
 */
// Default imports (not `import * as`): the guard must patch the real module objects, not the
// namespace copies that esModuleInterop would create; the default import is the module itself.
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import tls from 'node:tls';

export interface NetworkAttempt {
  /** Which API was called, e.g. `fetch`, `http.request`, `net.Socket.connect`. */
  api: string;
  /** What it was pointed at, as far as it can be told. */
  target: string;
}

export class NetworkBlockedError extends Error {
  constructor(readonly attempt: NetworkAttempt) {
    super(`network access is blocked in this thread (${attempt.api} → ${attempt.target})`);
    this.name = 'NetworkBlockedError';
  }
}

export interface NetworkGuard {
  /** Every blocked attempt, in order. */
  readonly attempts: readonly NetworkAttempt[];
}

let installed: { attempts: NetworkAttempt[] } | undefined;

/** A host, path or port as text (they are strings or numbers; anything else by its type). */
function scalar(v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean') return String(v);
  return v === null ? 'null' : `[${typeof v}]`;
}

function describe(arg: unknown): string {
  if (typeof arg === 'string') return arg;
  if (arg instanceof URL) return arg.href;
  if (arg && typeof arg === 'object') {
    const o = arg as Record<string, unknown>;
    if (typeof o.url === 'string') return o.url; // Request
    if (typeof o.href === 'string') return o.href;
    const host = o.hostname ?? o.host ?? o.path;
    if (host !== undefined) return `${scalar(host)}${o.port !== undefined ? `:${scalar(o.port)}` : ''}`;
    if (o.port !== undefined) return `port ${scalar(o.port)}`;
  }
  if (typeof arg === 'number') return `port ${arg}`;
  return String(arg);
}

/** Installs the guard (idempotent) and returns the shared record of attempts. */
export function installNetworkGuard(): NetworkGuard {
  if (installed) return installed;
  const state = { attempts: [] as NetworkAttempt[] };
  installed = state;
  const record = (api: string, target: unknown): NetworkBlockedError => {
    const attempt = { api, target: describe(target) };
    state.attempts.push(attempt);
    return new NetworkBlockedError(attempt);
  };
  const block = (api: string, target: unknown): never => {
    throw record(api, target);
  };
  const patch = (obj: object, key: string, api: string): void => {
    Object.defineProperty(obj, key, {
      configurable: true,
      writable: true,
      value: (...args: unknown[]) => block(api, args[0]),
    });
  };

  const blockedFetch = (input: unknown): Promise<never> => Promise.reject(record('fetch', input));
  Object.defineProperty(globalThis, 'fetch', { configurable: true, writable: true, value: blockedFetch });
  patch(http, 'request', 'http.request');
  patch(http, 'get', 'http.get');
  patch(https, 'request', 'https.request');
  patch(https, 'get', 'https.get');
  patch(net, 'connect', 'net.connect');
  patch(net, 'createConnection', 'net.createConnection');
  patch(tls, 'connect', 'tls.connect');
  patch(net.Socket.prototype, 'connect', 'net.Socket.connect');
  return state;
}
