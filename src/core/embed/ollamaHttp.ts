/**
 * HTTP plumbing for talking to Ollama through the `ollama` npm client, shared by the embedder
 * and (later) the LLM provider:
 *  - {@link normalizeOllamaHost}: always an explicit port (the client maps `http://localhost`
 *    to port 80);
 *  - {@link createOllamaFetch}: a `fetch` for the client that enforces a time limit (the
 *    client's non-streaming calls ignore AbortSignal) and turns HTTP errors into
 *    {@link OllamaError}s naming the status and the start of the body;
 *  - {@link toOllamaError}: maps whatever a call threw (refused connection, timeout, broken
 *    socket, bad JSON) to an {@link OllamaError} with a message fit for a person.
 */
import * as net from 'node:net';

export const DEFAULT_OLLAMA_HOST = 'http://127.0.0.1:11434';
export const DEFAULT_OLLAMA_PORT = '11434';

export type OllamaErrorCode = 'unreachable' | 'connection' | 'timeout' | 'http' | 'bad-response';

export interface OllamaErrorDetails {
  /** HTTP status for `code === 'http'`. */
  status?: number;
  /** First 200 characters of the error body for `code === 'http'`. */
  bodyPrefix?: string;
  /** What was thrown, when there was something (set as the error's `cause`). */
  cause?: unknown;
}

export class OllamaError extends Error {
  /** HTTP status for `code === 'http'`. */
  readonly status?: number;
  /** First 200 characters of the error body for `code === 'http'`. */
  readonly bodyPrefix?: string;

  constructor(
    message: string,
    readonly code: OllamaErrorCode,
    /** The Ollama origin, e.g. `http://127.0.0.1:11434`. */
    readonly host: string,
    details: OllamaErrorDetails = {},
  ) {
    super(message, 'cause' in details ? { cause: details.cause } : undefined);
    this.name = 'OllamaError';
    this.status = details.status;
    this.bodyPrefix = details.bodyPrefix;
  }
}

/**
 * `http://host:port` with the port always explicit and no trailing slash. Without a port,
 * `http://` gets Ollama's 11434 (what a person typing `http://localhost` means) and `https://`
 * keeps 443 (a reverse proxy). A bare `host` or `host:port` is taken as `http://`.
 */
export function normalizeOllamaHost(url: string | undefined): string {
  let raw = (url ?? '').trim();
  if (raw === '') return DEFAULT_OLLAMA_HOST;
  if (raw.startsWith(':')) raw = `127.0.0.1${raw}`;
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(raw)) raw = `http://${raw}`;
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new Error(`Not a valid Ollama URL: ${url}`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error(`Ollama URL must be http(s): ${url}`);
  const port = u.port || (u.protocol === 'https:' ? '443' : DEFAULT_OLLAMA_PORT);
  const auth = u.username ? `${u.username}${u.password ? `:${u.password}` : ''}@` : '';
  const pathname = u.pathname.replace(/\/+$/, '');
  return `${u.protocol}//${auth}${u.hostname}:${port}${pathname}`;
}

function requestUrl(input: unknown): string {
  if (typeof input === 'string') return input;
  if (input instanceof URL) return input.href;
  if (input && typeof input === 'object' && 'url' in input) return String((input as { url: unknown }).url);
  return String(input);
}

function pathOf(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return url;
  }
}

/**
 * The most an answer from Ollama may hold. The largest real ones are an /api/embed batch (32
 * vectors of 4096 numbers as JSON text: about 3 MB) and /api/show's details; a body past this is
 * not from an Ollama we can use, and reading (and parsing) it would cost the engine its memory.
 */
export const MAX_OLLAMA_ANSWER_BYTES = 16 * 1024 * 1024;
/** Of an error answer only its start is shown: reading stops here. */
const MAX_ERROR_BODY_BYTES = 64 * 1024;

export interface OllamaFetchOptions {
  /** Ollama origin (for messages), from {@link normalizeOllamaHost}. */
  host: string;
  /** Whole-request limit, body included (ms). */
  timeoutMs: number;
  /** Size limit of an answer's body, streamed or not (bytes). Default {@link MAX_OLLAMA_ANSWER_BYTES}. */
  maxBodyBytes?: number;
  /** The underlying fetch. Default: the global one. */
  fetchImpl?: typeof fetch;
}

/**
 * A `fetch` to hand to `new Ollama({ fetch })`: one deadline of `timeoutMs` over the WHOLE
 * request — connecting, waiting for the headers and reading the body — and an
 * {@link OllamaError} for any non-2xx answer, before the client's own error handling (which
 * logs to the console) sees it.
 *
 * The deadline is an explicit timer that aborts the request and rejects on its own, so it
 * holds even if the underlying fetch ignores the signal. A non-streaming answer (every call
 * but a streamed pull) is read completely inside the deadline and handed to the client as a
 * buffered Response: a server that sends headers and then stalls, or drips one token at a
 * time, is cut off at the limit instead of holding the caller (and the job behind it).
 * A streamed request (`"stream": true`) is only covered by the abort signal while it streams.
 */
export function createOllamaFetch(options: OllamaFetchOptions): typeof fetch {
  const base = options.fetchImpl ?? globalThis.fetch;
  const { host, timeoutMs } = options;
  const maxBytes = options.maxBodyBytes ?? MAX_OLLAMA_ANSWER_BYTES;
  return async (input, init) => {
    const path = pathOf(requestUrl(input));
    const deadline = new Deadline(timeoutMs, host, path);
    const signal = init?.signal ? AbortSignal.any([init.signal, deadline.signal]) : deadline.signal;
    const streaming = isStreamingRequest(init?.body);
    const tooLarge = () => new OllamaError(tooLargeMessage(host, path, maxBytes), 'bad-response', host);
    try {
      const res = await deadline.race(base(input, { ...init, signal }));
      if (!res.ok) throw httpError(host, path, res.status, res.statusText, await deadline.race(bodyText(res)));
      if (!res.body) return res;
      if (Number(res.headers.get('content-length')) > maxBytes) {
        void res.body.cancel().catch(() => undefined);
        throw tooLarge();
      }
      const init2 = { status: res.status, statusText: res.statusText, headers: res.headers };
      const body = res.body as ReadableStream<Uint8Array>;
      if (streaming) return new Response(body.pipeThrough(byteLimit(maxBytes, tooLarge)), init2);
      return new Response(await deadline.race(readAll(body, maxBytes, tooLarge)), init2);
    } catch (err) {
      deadline.abort(); // drops the connection of an answer not read to its end
      deadline.clear();
      throw toOllamaError(err, { host, path, timeoutMs });
    } finally {
      if (!streaming) deadline.clear();
    }
  };
}

function tooLargeMessage(host: string, path: string, maxBytes: number): string {
  return (
    `Ollama at ${host} sent more than ${Math.round(maxBytes / (1024 * 1024))} MB in its answer to ${path}, ` +
    'more than Ollama ever sends, so the answer was not read. Check that the Ollama URL points to an Ollama server.'
  );
}

/** The body's bytes, or the error of `tooLarge()` as soon as more than `maxBytes` arrived (the rest is not read). */
async function readAll(body: ReadableStream<Uint8Array>, maxBytes: number, tooLarge: () => Error): Promise<Uint8Array> {
  const r = await readUpTo(body, maxBytes);
  if (r.over) throw tooLarge();
  return r.bytes;
}

/** Reads until the end or until more than `max` bytes arrived (`over`: the rest is not read, the stream is cancelled). */
async function readUpTo(body: ReadableStream<Uint8Array>, max: number): Promise<{ bytes: Uint8Array; over: boolean }> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const next = await reader.read();
      if (next.done) return { bytes: Buffer.concat(chunks, total), over: false };
      chunks.push(next.value);
      total += next.value.byteLength;
      if (total > max) return { bytes: Buffer.concat(chunks, total), over: true };
    }
  } finally {
    void reader.cancel().catch(() => undefined);
  }
}

/** Passes a streamed body through, failing it with `tooLarge()` once more than `maxBytes` went by. */
function byteLimit(maxBytes: number, tooLarge: () => Error): TransformStream<Uint8Array, Uint8Array> {
  let total = 0;
  return new TransformStream({
    transform(chunk, controller) {
      total += chunk.byteLength;
      if (total > maxBytes) controller.error(tooLarge());
      else controller.enqueue(chunk);
    },
  });
}

/** A whole-request time limit: aborts its signal and rejects whatever it races when it expires. */
class Deadline {
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;
  private readonly expired: Promise<never>;

  constructor(timeoutMs: number, host: string, path: string) {
    let fire: (e: Error) => void = () => undefined;
    this.expired = new Promise<never>((_, reject) => (fire = reject));
    void this.expired.catch(() => undefined);
    this.timer = setTimeout(() => {
      const e = new DOMException(`Ollama at ${host} did not answer ${path} within ${timeoutMs} ms`, 'TimeoutError');
      this.controller.abort(e);
      fire(e);
    }, timeoutMs);
    // A streamed pull keeps the timer while it runs; it must not keep the process alive.
    this.timer.unref?.();
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Ends the request now (an answer that will not be read to its end). */
  abort(): void {
    if (!this.controller.signal.aborted) this.controller.abort(new Error('the answer was not read to its end'));
  }

  race<T>(p: Promise<T>): Promise<T> {
    void p.catch(() => undefined); // lost the race: a late rejection is not "unhandled"
    return Promise.race([p, this.expired]);
  }

  clear(): void {
    clearTimeout(this.timer);
  }
}

/** Whether the client asked for a streamed answer (only `pull` does here). */
function isStreamingRequest(body: unknown): boolean {
  return typeof body === 'string' && /"stream"\s*:\s*true/.test(body);
}

/** The start of an error answer: at most {@link MAX_ERROR_BODY_BYTES} are read (its first 200 characters are shown). */
async function bodyText(res: Response): Promise<string> {
  if (!res.body) return '';
  try {
    const { bytes } = await readUpTo(res.body as ReadableStream<Uint8Array>, MAX_ERROR_BODY_BYTES);
    return Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, MAX_ERROR_BODY_BYTES)).toString('utf8');
  } catch {
    return ''; // body unreadable (connection dropped): the status alone must do
  }
}

function httpError(host: string, path: string, status: number, statusText: string, body: string): OllamaError {
  const prefix = body.slice(0, 200);
  const shown = prefix.replace(/\s/g, ' ').trim(); // one line, same characters
  return new OllamaError(
    `Ollama at ${host} answered HTTP ${status}${statusText ? ` ${statusText}` : ''} to ${path}${shown ? `: ${shown}` : ''}${body.length > 200 ? '…' : ''}`,
    'http',
    host,
    { status, bodyPrefix: prefix },
  );
}

/**
 * Whether nothing listens at `host`, found with a bare TCP connection: the error when the
 * connection is refused (or the host unknown), else undefined (something listens, or the
 * answer is slow: then the HTTP call finds out). A probe asks this first, so a machine without
 * Ollama never loads Node's fetch (undici, a quarter of a second of start-up).
 */
export function refusedConnection(host: string, timeoutMs: number): Promise<Error | undefined> {
  let url: URL;
  try {
    url = new URL(host);
  } catch {
    return Promise.resolve(undefined);
  }
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  const hostname = url.hostname.replace(/^\[|\]$/g, '');
  return new Promise((resolve) => {
    const socket = net.connect({ host: hostname, port });
    const done = (err: Error | undefined) => {
      socket.destroy();
      resolve(err);
    };
    socket.setTimeout(Math.min(timeoutMs, 1000), () => done(undefined));
    socket.once('connect', () => done(undefined));
    socket.once('error', (err: NodeJS.ErrnoException) => done(err.code && UNREACHABLE_CODES.has(err.code) ? err : undefined));
  });
}

const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'EADDRNOTAVAIL']);

function causeCode(err: unknown): string | undefined {
  let e: unknown = err;
  for (let depth = 0; e && typeof e === 'object' && depth < 5; depth++) {
    const o = e as { code?: unknown; cause?: unknown; errors?: unknown };
    if (typeof o.code === 'string') return o.code;
    if (Array.isArray(o.errors)) {
      for (const inner of o.errors) {
        const c = causeCode(inner);
        if (c) return c;
      }
    }
    e = o.cause;
  }
  return undefined;
}

function isTimeout(err: unknown): boolean {
  for (let e: unknown = err, d = 0; e && typeof e === 'object' && d < 5; d++) {
    const name = (e as { name?: unknown }).name;
    if (name === 'TimeoutError') return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

/**
 * Whatever a call to Ollama threw, as an {@link OllamaError} (returned as is if it already is
 * one). `path` is the endpoint for the message; `timeoutMs` the limit that was in force.
 */
export function toOllamaError(err: unknown, ctx: { host: string; path: string; timeoutMs?: number }): OllamaError {
  if (err instanceof OllamaError) return err;
  const { host, path } = ctx;
  const fail = (message: string, code: OllamaErrorCode, details: OllamaErrorDetails = {}): OllamaError =>
    new OllamaError(message, code, host, { ...details, cause: err });
  if (isTimeout(err)) return fail(`Ollama at ${host} did not answer ${path} within ${ctx.timeoutMs ?? '?'} ms`, 'timeout');
  const code = causeCode(err);
  if (code && UNREACHABLE_CODES.has(code)) {
    return fail(
      `Ollama is not reachable at ${host} (${code}). Is it running? Start it with \`ollama serve\` or fix the Ollama URL.`,
      'unreachable',
    );
  }
  if (err instanceof SyntaxError) return fail(`Ollama at ${host} sent an unreadable answer to ${path}: ${err.message}`, 'bad-response');
  const e = err as ThrownShape | undefined;
  if (e && typeof e.status_code === 'number') {
    // The client's own ResponseError (only if a response slipped past createOllamaFetch).
    const text = String(e.message).slice(0, 200);
    return fail(`Ollama at ${host} answered HTTP ${e.status_code} to ${path}: ${text}`, 'http', {
      status: e.status_code,
      bodyPrefix: text,
    });
  }
  const what = describeThrown(err, code);
  if (e?.name === 'TypeError' || code)
    return fail(`The connection to Ollama at ${host} failed during ${path}: ${what || 'unknown error'}`, 'connection');
  return fail(`Ollama at ${host} failed on ${path}: ${what || String(err)}`, 'bad-response');
}

type ThrownShape = { message?: unknown; name?: unknown; status_code?: unknown };

/** The thrown value's message, its cause's message and the system error code, joined. */
function describeThrown(err: unknown, code: string | undefined): string {
  const e = err as ThrownShape | undefined;
  const inner = (err as { cause?: { message?: unknown } } | undefined)?.cause?.message;
  return [e?.message, inner, code]
    .filter((x) => x !== undefined && x !== '')
    .map(String)
    .join(' — ');
}
