/**
 * A fake Ollama: a REAL HTTP server on 127.0.0.1 (random free port) that speaks enough of the
 * Ollama API for our embedding and LLM code to be tested end to end with the real `ollama`
 * client, without a model and without the network.
 *
 * Endpoints with default behaviour (used whenever no scripted response is queued):
 *   GET  /api/tags      → the installed models (`models` option; changed by pull/addModel)
 *   POST /api/show      → model details with `model_info["<arch>.embedding_length"]`; 404 if not installed
 *   POST /api/pull      → installs the model; NDJSON progress when `stream` is not false
 *   POST /api/embed     → one deterministic vector per input (feature hashing of the text, so
 *                         similar texts get similar vectors); 404 if the model is not installed
 *   POST /api/generate  → `{ response: <reply> }`; NDJSON chunks when `stream` is not false
 *   POST /api/chat      → `{ message: { role: 'assistant', content: <reply> } }`; NDJSON likewise
 *   anything else       → 404 `404 page not found` (text/plain), as Ollama does
 * The default generate/chat reply comes from the `reply` option (default: `'{}'`).
 *
 * Scripting: `fake.enqueue('generate', r1, r2, …)` queues responses for one endpoint; each
 * request to it takes the next one (FIFO), and the default handler resumes when the queue is
 * empty. A {@link ScriptedResponse} can set the status and body, delay, hang forever, destroy the
 * socket, stream NDJSON chunks, or give just the text of a generate/chat reply (`reply`), which
 * is wrapped in the endpoint's normal answer shape — handy for LLM tests:
 *
 *   fake.enqueue('generate', { reply: '```json\n{"facts":[]}\n```' });      // JSON in a fence
 *   fake.enqueue('chat', { reply: '<think>hmm</think>{"ok":true}' });        // <think> block
 *   fake.enqueue('generate', { reply: '{"facts":[{"text":"trunc' });          // truncated JSON
 *   fake.enqueue('embed', { status: 500, body: 'boom: out of memory' });      // plain-text 500
 *   fake.enqueue('embed', { status: 500, body: { error: 'model crashed' } }); // JSON 500
 *   fake.enqueue('generate', { hang: true });                                 // never answers
 *   fake.enqueue('generate', { reply: '{}', hangAfterHeaders: true });        // stalls after the headers
 *   fake.enqueue('generate', { reply: '{"facts":[]}', dripMs: 500 });         // one character every 500 ms
 *   fake.enqueue('chat', { destroySocket: true });                            // connection reset
 *   fake.enqueue('pull', { stream: [{ status: 'pulling manifest' }, { error: 'no space left' }] });
 *
 * Assertions: `fake.requests` logs every request (method, path, endpoint, parsed JSON body) in
 * arrival order; `fake.count('embed')` and `fake.requestsTo('embed')` filter it. `fake.reset()`
 * clears the log and the queues. `await fake.close()` ends hanging requests and stops the server.
 */
import * as http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { HashEmbedder } from '../../src/core/embed/hashEmbedder';

/** The endpoints with default handlers; scripted responses may also target any other path. */
export type FakeOllamaEndpoint = 'tags' | 'show' | 'pull' | 'embed' | 'generate' | 'chat';

/** A {@link FakeOllamaEndpoint} (`'embed'`, …) or any path (`'/api/version'`). */
export type FakeOllamaTarget = string;

/** How a streamed or scripted answer is sent. */
interface Delivery {
  status: number;
  headers?: Record<string, string>;
  /** Pause before each streamed line (ms). */
  chunkDelayMs: number;
  /** Send the headers (and the lines) but never end the response. */
  hangAfter?: boolean;
}

const PLAIN_DELIVERY: Delivery = { status: 200, chunkDelayMs: 0 };

export interface ScriptedResponse {
  /** HTTP status. Default 200. */
  status?: number;
  /**
   * Body. An object/array is sent as JSON (`application/json`); a string or Buffer as is
   * (`text/plain` unless `contentType` says otherwise). Ignored when `reply` or `stream` is set.
   */
  body?: unknown;
  /** Content-Type header to send. */
  contentType?: string;
  /** Extra response headers. */
  headers?: Record<string, string>;
  /**
   * generate/chat only: the model's text. Wrapped in the endpoint's normal answer (non-streaming
   * object, or NDJSON chunks of a few characters each when the request has `stream` not false).
   */
  reply?: string;
  /** generate/chat with `reply`: extra fields merged into the final answer (e.g. `done_reason`). */
  replyFields?: Record<string, unknown>;
  /** Send these values as NDJSON lines (`application/x-ndjson`), `chunkDelayMs` apart. */
  stream?: unknown[];
  /** Pause between NDJSON lines (ms). Default 0. */
  chunkDelayMs?: number;
  /** Wait this long before answering (ms). */
  delayMs?: number;
  /** Never answer (the request stays open until the client gives up or `close()`). */
  hang?: boolean;
  /** Stall after the headers: send the status line, headers and any stream lines, then never finish the body. */
  hangAfterHeaders?: boolean;
  /**
   * Drip the body: send the status line and headers at once, then the (non-streaming) body one
   * character every `dripMs` ms — a model or proxy that trickles tokens slower than any limit.
   */
  dripMs?: number;
  /** Destroy the connection without answering (the client sees a reset / "other side closed"). */
  destroySocket?: boolean;
}

export interface LoggedRequest {
  method: string;
  /** URL path without the query string, e.g. `/api/embed`. */
  path: string;
  /** `embed` for `/api/embed` etc.; the path for anything else. */
  endpoint: string;
  headers: http.IncomingHttpHeaders;
  /** Raw request body. */
  rawBody: string;
  /** Parsed JSON body, or undefined when the body is empty or not JSON. */
  body: any;
  /** `Date.now()` when the request arrived. */
  time: number;
}

export interface FakeOllamaOptions {
  /** Installed models, as `/api/tags` lists them. Default `['nomic-embed-text:latest']`. */
  models?: string[];
  /** Embedding length per model (name without `:latest`); others get `defaultDimension`. */
  dimensions?: Record<string, number>;
  /** Default 768 (nomic-embed-text). */
  defaultDimension?: number;
  /** Default reply text of generate/chat: a string, or a function of the request body. Default `'{}'`. */
  reply?: string | ((body: any, endpoint: 'generate' | 'chat') => string);
  /** Models `/api/pull` can install (default: any). Others get the error Ollama gives for unknown models. */
  pullable?: string[];
  /**
   * Every default `/api/embed` answer comes this much later (a slow model: writes stay in flight
   * that long); a function gets the request's texts.
   */
  embedDelayMs?: number | ((inputs: string[]) => number);
}

/** `nomic-embed-text:latest` → `nomic-embed-text`. */
function bareName(model: string): string {
  return model.endsWith(':latest') ? model.slice(0, -':latest'.length) : model;
}

const embedders = new Map<number, HashEmbedder>();

/** The vector the fake's default `/api/embed` returns for `text` (exact text, prefix included). */
export function fakeEmbedding(text: string, dimension = 768): number[] {
  let e = embedders.get(dimension);
  if (!e) {
    e = new HashEmbedder({ dimension });
    embedders.set(dimension, e);
  }
  return Array.from(e.embedOne(text));
}

/** A 127.0.0.1 URL on which nothing listens (a port that was free a moment ago). */
export async function closedPortUrl(): Promise<string> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

export class FakeOllama {
  /** Every request, in arrival order. */
  readonly requests: LoggedRequest[] = [];
  /** Installed models (full names as listed, e.g. `nomic-embed-text:latest`). Mutable. */
  readonly models: Set<string>;
  private readonly queues = new Map<string, ScriptedResponse[]>();
  private readonly sockets = new Set<Socket>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private closed = false;

  private constructor(
    private readonly server: http.Server,
    private readonly options: FakeOllamaOptions,
  ) {
    this.models = new Set(options.models ?? ['nomic-embed-text:latest']);
    server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    server.on('request', (req, res) => void this.handle(req, res));
  }

  /** Starts a fake on 127.0.0.1 on a free port. */
  static async start(options: FakeOllamaOptions = {}): Promise<FakeOllama> {
    const server = http.createServer();
    const fake = new FakeOllama(server, options);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    return fake;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** `http://127.0.0.1:<port>` — pass it as the Ollama host. */
  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Queues responses for an endpoint (`'embed'`, …) or any path (`'/api/version'`). */
  enqueue(endpoint: FakeOllamaTarget, ...responses: ScriptedResponse[]): this {
    const key = endpointKey(endpoint);
    const q = this.queues.get(key) ?? [];
    q.push(...responses);
    this.queues.set(key, q);
    return this;
  }

  /** Scripted responses not yet used, per endpoint. */
  pending(endpoint: FakeOllamaTarget): number {
    return this.queues.get(endpointKey(endpoint))?.length ?? 0;
  }

  requestsTo(endpoint: FakeOllamaTarget): LoggedRequest[] {
    const key = endpointKey(endpoint);
    return this.requests.filter((r) => r.endpoint === key);
  }

  count(endpoint?: FakeOllamaTarget): number {
    return endpoint === undefined ? this.requests.length : this.requestsTo(endpoint).length;
  }

  addModel(name: string): void {
    this.models.add(name.includes(':') ? name : `${name}:latest`);
  }

  removeModel(name: string): void {
    for (const m of [...this.models]) if (bareName(m) === bareName(name)) this.models.delete(m);
  }

  hasModel(name: string | undefined): boolean {
    if (!name) return false;
    const want = bareName(name);
    return [...this.models].some((m) => bareName(m) === want);
  }

  dimensionOf(model: string): number {
    return this.options.dimensions?.[bareName(model)] ?? this.options.defaultDimension ?? 768;
  }

  /** Clears the request log and every queue. */
  reset(): void {
    this.requests.length = 0;
    this.queues.clear();
  }

  /** Ends every open connection (hanging ones included) and stops listening. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  // ---------------------------------------------------------------------------------------

  private wait(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const t = setTimeout(() => {
        this.timers.delete(t);
        resolve();
      }, ms);
      this.timers.add(t);
    });
  }

  /** One vector per input (after `embedDelayMs`, unless the fake was closed meanwhile). */
  private async sendEmbeddings(res: http.ServerResponse, model: string, body: any): Promise<void> {
    const inputs: string[] = Array.isArray(body?.input) ? body.input : [String(body?.input ?? '')];
    const dim = this.dimensionOf(model);
    const delay = this.options.embedDelayMs;
    const ms = typeof delay === 'function' ? delay(inputs.map(String)) : delay;
    if (ms) await this.wait(ms);
    if (this.closed) return;
    this.json(res, 200, {
      model,
      embeddings: inputs.map((t) => fakeEmbedding(String(t), dim)),
      total_duration: 1_000_000,
      load_duration: 1000,
      prompt_eval_count: inputs.length * 8,
    });
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const rawBody = Buffer.concat(chunks).toString('utf8');
    let body: any;
    try {
      body = rawBody ? JSON.parse(rawBody) : undefined;
    } catch {
      body = undefined;
    }
    const path = (req.url ?? '/').split('?')[0]!;
    const endpoint = endpointKey(path);
    this.requests.push({ method: req.method ?? 'GET', path, endpoint, headers: req.headers, rawBody, body, time: Date.now() });

    const scripted = this.queues.get(endpoint)?.shift();
    try {
      if (scripted) await this.sendScripted(req, res, endpoint, body, scripted);
      else await this.sendDefault(req, res, endpoint, body);
    } catch {
      // the client went away mid-answer: nothing to do
    }
  }

  private async sendScripted(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    endpoint: string,
    body: any,
    r: ScriptedResponse,
  ): Promise<void> {
    if (r.delayMs) await this.wait(r.delayMs);
    if (this.closed) return;
    if (r.destroySocket) {
      req.socket.destroy();
      return;
    }
    if (r.hang) return; // keep the socket open; close() destroys it
    const status = r.status ?? 200;
    if (r.reply !== undefined && (endpoint === 'generate' || endpoint === 'chat')) {
      if (r.dripMs && body?.stream === false) {
        res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', ...r.headers });
        await this.drip(res, JSON.stringify(this.finalAnswer(endpoint, body, r.reply, r.replyFields ?? {})), r.dripMs);
        return;
      }
      const delivery = { status, headers: r.headers, chunkDelayMs: r.chunkDelayMs ?? 0, hangAfter: r.hangAfterHeaders };
      await this.sendReply(res, { endpoint, body, text: r.reply, extra: r.replyFields ?? {} }, delivery);
      return;
    }
    if (r.stream) {
      await this.sendStream(res, r.stream, {
        status,
        headers: r.headers,
        chunkDelayMs: r.chunkDelayMs ?? 0,
        hangAfter: r.hangAfterHeaders,
      });
      return;
    }
    let payload: string | Buffer;
    let type: string;
    if (Buffer.isBuffer(r.body) || typeof r.body === 'string') {
      payload = r.body;
      type = 'text/plain; charset=utf-8';
    } else if (r.body === undefined) {
      payload = '';
      type = 'text/plain; charset=utf-8';
    } else {
      payload = JSON.stringify(r.body);
      type = 'application/json; charset=utf-8';
    }
    res.writeHead(status, { 'Content-Type': r.contentType ?? type, ...r.headers });
    if (r.dripMs) {
      await this.drip(res, payload.toString(), r.dripMs);
      return;
    }
    if (r.hangAfterHeaders) {
      res.flushHeaders();
      if (payload.length) res.write(payload);
      return;
    }
    res.end(payload);
  }

  private async sendStream(res: http.ServerResponse, items: unknown[], delivery: Delivery): Promise<void> {
    const { status, headers, chunkDelayMs, hangAfter } = delivery;
    res.writeHead(status, { 'Content-Type': 'application/x-ndjson', ...headers });
    res.flushHeaders();
    for (const item of items) {
      if (chunkDelayMs) await this.wait(chunkDelayMs);
      if (this.closed) return;
      res.write(`${typeof item === 'string' ? item : JSON.stringify(item)}\n`);
    }
    if (!hangAfter) res.end();
  }

  private answerPart(endpoint: 'generate' | 'chat', body: any, content: string, done: boolean): Record<string, unknown> {
    const base = { model: body?.model ?? 'unknown', created_at: new Date().toISOString() };
    return endpoint === 'generate' ? { ...base, response: content, done } : { ...base, message: { role: 'assistant', content }, done };
  }

  /** The last (or only, when not streaming) object of a generate/chat answer. */
  private finalAnswer(endpoint: 'generate' | 'chat', body: any, text: string, extra: Record<string, unknown>): Record<string, unknown> {
    return {
      ...this.answerPart(endpoint, body, body?.stream === false ? text : '', true),
      done_reason: 'stop',
      total_duration: 1_000_000,
      load_duration: 1000,
      prompt_eval_count: 10,
      prompt_eval_duration: 1000,
      eval_count: Math.max(1, Math.ceil(text.length / 4)),
      eval_duration: 1000,
      ...extra,
    };
  }

  /** Writes `payload` one character every `ms` ms (headers already set), then ends it. */
  private async drip(res: http.ServerResponse, payload: string, ms: number): Promise<void> {
    res.flushHeaders();
    for (const ch of payload) {
      await this.wait(ms);
      if (this.closed || res.destroyed) return;
      res.write(ch);
    }
    res.end();
  }

  private replyText(endpoint: 'generate' | 'chat', body: any): string {
    const r = this.options.reply;
    if (typeof r === 'function') return r(body, endpoint);
    return r ?? '{}';
  }

  private async sendReply(
    res: http.ServerResponse,
    answer: { endpoint: 'generate' | 'chat'; body: any; text: string; extra: Record<string, unknown> },
    delivery: Delivery = PLAIN_DELIVERY,
  ): Promise<void> {
    const { endpoint, body, text, extra } = answer;
    const { status, headers, hangAfter } = delivery;
    const part = (content: string, done: boolean) => this.answerPart(endpoint, body, content, done);
    const final = this.finalAnswer(endpoint, body, text, extra);
    if (body?.stream === false) {
      res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', ...headers });
      if (hangAfter) {
        res.flushHeaders();
        return;
      }
      res.end(JSON.stringify(final));
      return;
    }
    const pieces: unknown[] = [];
    for (let i = 0; i < text.length; i += 8) pieces.push(part(text.slice(i, i + 8), false));
    pieces.push(final);
    await this.sendStream(res, pieces, delivery);
  }

  private json(res: http.ServerResponse, status: number, value: unknown): void {
    res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8' });
    res.end(JSON.stringify(value));
  }

  private async sendDefault(req: http.IncomingMessage, res: http.ServerResponse, endpoint: string, body: any): Promise<void> {
    const model: string | undefined = body?.model ?? body?.name;
    const notFound = () => this.json(res, 404, { error: `model "${model}" not found, try pulling it first` });
    switch (endpoint) {
      case 'tags':
        if (req.method !== 'GET') break;
        this.json(res, 200, {
          models: [...this.models].map((name) => ({
            name,
            model: name,
            modified_at: '2025-01-01T00:00:00Z',
            size: 274_302_450,
            digest: `sha256:${Buffer.from(name).toString('hex').padEnd(64, '0').slice(0, 64)}`,
            details: {
              parent_model: '',
              format: 'gguf',
              family: 'nomic-bert',
              families: ['nomic-bert'],
              parameter_size: '137M',
              quantization_level: 'F16',
            },
          })),
        });
        return;
      case 'show':
        if (!this.hasModel(model)) {
          this.json(res, 404, { error: `model '${model}' not found` });
          return;
        }
        this.json(res, 200, {
          license: '',
          modelfile: `FROM ${model}`,
          parameters: 'num_ctx 8192',
          template: '{{ .Prompt }}',
          details: {
            parent_model: '',
            format: 'gguf',
            family: 'nomic-bert',
            families: ['nomic-bert'],
            parameter_size: '137M',
            quantization_level: 'F16',
          },
          model_info: { 'general.architecture': 'nomic-bert', 'nomic-bert.embedding_length': this.dimensionOf(model!) },
          capabilities: ['embedding'],
          modified_at: '2025-01-01T00:00:00Z',
        });
        return;
      case 'pull': {
        if (!model) {
          this.json(res, 400, { error: 'model is required' });
          return;
        }
        const pullable = this.options.pullable;
        if (pullable && !pullable.some((p) => bareName(p) === bareName(model))) {
          if (body?.stream === false) this.json(res, 500, { error: 'pull model manifest: file does not exist' });
          else
            await this.sendStream(
              res,
              [{ status: 'pulling manifest' }, { error: 'pull model manifest: file does not exist' }],
              PLAIN_DELIVERY,
            );
          return;
        }
        this.addModel(model);
        if (body?.stream === false) {
          this.json(res, 200, { status: 'success' });
          return;
        }
        await this.sendStream(
          res,
          [
            { status: 'pulling manifest' },
            { status: 'pulling 970aa74c0a90', digest: 'sha256:970aa74c0a90', total: 1000, completed: 0 },
            { status: 'pulling 970aa74c0a90', digest: 'sha256:970aa74c0a90', total: 1000, completed: 1000 },
            { status: 'verifying sha256 digest' },
            { status: 'writing manifest' },
            { status: 'success' },
          ],
          PLAIN_DELIVERY,
        );
        return;
      }
      case 'embed':
        if (!this.hasModel(model)) return notFound();
        return this.sendEmbeddings(res, model!, body);
      case 'generate':
      case 'chat':
        if (!this.hasModel(model)) return notFound();
        await this.sendReply(res, { endpoint, body, text: this.replyText(endpoint, body), extra: {} });
        return;
    }
    res.writeHead(404, { 'Content-Type': 'text/plain' });
    res.end('404 page not found');
  }
}

function endpointKey(endpointOrPath: string): string {
  const m = /^\/api\/([a-z]+)$/.exec(endpointOrPath);
  if (m && ['tags', 'show', 'pull', 'embed', 'generate', 'chat'].includes(m[1]!)) return m[1]!;
  return endpointOrPath;
}
