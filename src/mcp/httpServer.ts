/**
 * `agent-memory mcp --http <port>`: the MCP SDK's Streamable HTTP transport on 127.0.0.1 only,
 * at `http://127.0.0.1:<port>/mcp`. Every request passes httpGuard.ts (Host, Origin, bearer
 * token) first; the SDK's own DNS-rebinding protection checks Host and Origin again. Each MCP
 * session (initialize → mcp-session-id) gets its own McpServer over the one engine connection.
 *
 * The token is fixed, not OAuth. An MCP client that meets a 401 starts OAuth discovery whatever
 * the challenge says (the SDK's client with an auth provider, VS Code), so every other path —
 * `/.well-known/oauth-protected-resource`, `/.well-known/oauth-authorization-server`,
 * `/register`, … — answers 404, without a token, with an OAuth-shaped error whose description
 * says how to send the token: discovery ends at the registration it cannot do, with that
 * sentence, and no sign-in page is opened.
 */
import { randomUUID } from 'node:crypto';
import * as http from 'node:http';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { allowedHosts, allowedOrigins, refusal } from './httpGuard';
import { REST_PREFIX } from './restApi';
import { SessionEventStore } from './eventStore';

export const MCP_HTTP_PATH = '/mcp';
/** Sessions kept at once; the oldest is closed beyond this (a client that never says goodbye). */
const MAX_SESSIONS = 64;
/** How soon a client whose stream the server closed should reconnect (the SSE `retry` field). */
const RETRY_MS = 1000;

export interface McpHttpOptions {
  /** 0 = any free port. */
  port: number;
  token: string;
  /** A new MCP server (tools registered) for one session. */
  newServer: () => McpServer;
  /** The REST API (restApi.ts), answering under /api/v1 behind the same guard. */
  rest?: (req: http.IncomingMessage, res: http.ServerResponse) => Promise<void>;
  log: (line: string) => void;
}

interface Session {
  transport: StreamableHTTPServerTransport;
  server: McpServer;
}

export class McpHttpServer {
  private readonly sessions = new Map<string, Session>();

  private constructor(
    private readonly http: http.Server,
    readonly port: number,
  ) {}

  static async start(opts: McpHttpOptions): Promise<McpHttpServer> {
    const server = http.createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ port: opts.port, host: '127.0.0.1' }, () => {
        server.off('error', reject);
        resolve();
      });
    });
    const port = (server.address() as { port: number }).port;
    const self = new McpHttpServer(server, port);
    server.on('request', (req, res) => {
      self.handle(req, res, opts).catch((e: unknown) => {
        opts.log(`mcp http: ${(e as Error).message}`);
        if (!res.headersSent) reply(res, 500, 'Internal error.');
      });
    });
    return self;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}${MCP_HTTP_PATH}`;
  }

  async close(): Promise<void> {
    for (const s of this.sessions.values()) await closeSession(s);
    this.sessions.clear();
    this.http.closeAllConnections();
    await new Promise<void>((resolve) => this.http.close(() => resolve()));
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse, opts: McpHttpOptions): Promise<void> {
    const refused = refusal(req, this.port, opts.token);
    const pathname = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
    const onEndpoint = pathname === MCP_HTTP_PATH;
    const onRest = !!opts.rest && (pathname === REST_PREFIX || pathname.startsWith(`${REST_PREFIX}/`));
    if (refused && (refused.status === 403 || onEndpoint || onRest)) {
      if (refused.challenge) res.setHeader('WWW-Authenticate', refused.challenge);
      if (onRest) {
        res.writeHead(refused.status, { 'Content-Type': 'application/json' });
        return void res.end(JSON.stringify({ error: { message: refused.message } }));
      }
      return reply(res, refused.status, refused.message);
    }
    if (onRest) return opts.rest!(req, res);
    if (!onEndpoint) return notFound(res);
    const id = req.headers['mcp-session-id'];
    if (typeof id === 'string') {
      const session = this.sessions.get(id);
      if (!session) return reply(res, 404, 'Unknown or expired MCP session: initialize again.');
      return session.transport.handleRequest(req, res);
    }
    if (req.method !== 'POST') return reply(res, 400, 'An MCP session starts with an initialize request (POST).');
    await this.newSession(opts).then((s) => s.handle(req, res));
  }

  /** A transport + MCP server that becomes a session once the client's initialize succeeds. */
  private async newSession(opts: McpHttpOptions): Promise<{ handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> }> {
    const server = opts.newServer();
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableDnsRebindingProtection: true,
      // Resumable streams: a client that reconnects with Last-Event-ID gets what it missed (eventStore.ts).
      eventStore: new SessionEventStore(),
      retryInterval: RETRY_MS,
      allowedHosts: allowedHosts(this.port),
      allowedOrigins: allowedOrigins(this.port),
      onsessioninitialized: (sid) => {
        this.sessions.set(sid, { transport, server });
        this.evictOldest();
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) this.sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    return {
      handle: async (req, res) => {
        await transport.handleRequest(req, res);
        // Not an initialize (or a failed one): nothing to keep.
        if (!transport.sessionId) await closeSession({ transport, server });
      },
    };
  }

  private evictOldest(): void {
    while (this.sessions.size > MAX_SESSIONS) {
      const [oldest, session] = this.sessions.entries().next().value as [string, Session];
      this.sessions.delete(oldest);
      void closeSession(session);
    }
  }
}

async function closeSession(s: Session): Promise<void> {
  await s.server.close().catch(() => undefined);
  await s.transport.close().catch(() => undefined);
}

/** Any path but the endpoint, OAuth's discovery and registration among them: an OAuth-shaped error (RFC 6749 §5.2 characters). */
function notFound(res: http.ServerResponse): void {
  const description =
    `Not found: the endpoints here are ${MCP_HTTP_PATH} (MCP) and ${REST_PREFIX}/ (REST). This server does not use OAuth: send its token in the header ` +
    "Authorization: Bearer <token> (printed when the server starts, and kept in mcp-http-<port>.token in the project's store " +
    'folder, or the file given with --token-file).';
  res.writeHead(404, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify({ error: 'not_found', error_description: description }));
}

/** A JSON-RPC error body, as the SDK answers its own refusals. */
function reply(res: http.ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}
