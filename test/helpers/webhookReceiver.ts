/**
 * A real webhook receiver for the tests: an HTTP server on 127.0.0.1 (a free port) that checks
 * each delivery the way docs/changes.md tells a receiver to — HMAC-SHA256 of
 * `<timestamp>.<body>` with the shared secret, compared in constant time, and a timestamp within
 * five minutes — written here with node:crypto alone, not with the product's code.
 *
 * Scripting: `receiver.enqueue(a1, a2, …)` queues answers; each request takes the next one and
 * the default (200) resumes when the queue is empty. An answer can set the status, a Location
 * header (a redirect), or hang until the test ends.
 */
import * as http from 'node:http';
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { AddressInfo, Socket } from 'node:net';

export interface ScriptedAnswer {
  status?: number;
  location?: string;
  body?: string;
  /** Never answer (the request stays open until close()). */
  hang?: boolean;
}

export interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  raw: string;
  body: { id: string; webhook: string; attempt: number; event: Record<string, unknown> & { type: string; cursor?: number } };
  /** The signature and timestamp checked out with the secret. */
  verified: boolean;
  /** What this request was answered (undefined while it hangs). */
  answered?: number;
}

export class WebhookReceiver {
  readonly received: Received[] = [];
  private readonly queue: ScriptedAnswer[] = [];
  private readonly sockets = new Set<Socket>();
  private readonly waiters: (() => void)[] = [];

  private constructor(
    private readonly server: http.Server,
    readonly url: string,
    public secret: string,
  ) {}

  static async start(secret: string, path = '/hook'): Promise<WebhookReceiver> {
    const holder: { self?: WebhookReceiver } = {};
    const server = http.createServer((req, res) => holder.self!.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const self = new WebhookReceiver(server, `http://127.0.0.1:${port}${path}`, secret);
    holder.self = self;
    server.on('connection', (s) => {
      self.sockets.add(s);
      s.on('close', () => self.sockets.delete(s));
    });
    return self;
  }

  get origin(): string {
    return new URL(this.url).origin;
  }

  enqueue(...answers: ScriptedAnswer[]): void {
    this.queue.push(...answers);
  }

  /** Deliveries answered 2xx, in arrival order. */
  get delivered(): Received[] {
    return this.received.filter((r) => r.answered !== undefined && r.answered >= 200 && r.answered < 300);
  }

  /** Resolves once `pred` holds (checked on every request), or rejects after `ms`. */
  async until(pred: () => boolean, ms = 15_000): Promise<void> {
    const end = Date.now() + ms;
    while (!pred()) {
      if (Date.now() > end) throw new Error(`the receiver did not see what was expected within ${ms} ms (got ${this.received.length})`);
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 50).unref();
      });
    }
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const entry: Received = {
        path: req.url ?? '',
        headers: req.headers,
        raw,
        body: JSON.parse(raw) as Received['body'],
        verified: this.check(req.headers, raw),
      };
      this.received.push(entry);
      const a = this.queue.shift() ?? {};
      if (!a.hang) {
        entry.answered = a.status ?? 200;
        res.writeHead(entry.answered, a.location ? { location: a.location } : {});
        res.end(a.body ?? '');
      }
      for (const w of this.waiters.splice(0)) w();
    });
  }

  /** The receiver's check of docs/changes.md "Checking a delivery". */
  private check(headers: http.IncomingHttpHeaders, raw: string): boolean {
    const ts = Number(headers['x-agent-memory-timestamp']);
    if (!Number.isInteger(ts) || Math.abs(Date.now() / 1000 - ts) > 300) return false;
    const expected = Buffer.from(`sha256=${createHmac('sha256', this.secret).update(`${ts}.${raw}`).digest('hex')}`);
    const given = Buffer.from(String(headers['x-agent-memory-signature'] ?? ''));
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
