/**
 * The checks every request to `agent-memory mcp --http` passes before the MCP SDK sees it
 * (README "Connecting agents"): the server listens on 127.0.0.1 only, and
 *
 * - Host must name this server (127.0.0.1:<port> or localhost:<port>): a page that rebinds its
 *   own DNS name to 127.0.0.1 still sends its own name as Host (DNS-rebinding protection) → 403;
 * - Origin, when a browser sends one, must be this server's own → 403 otherwise (a web page
 *   cannot drive the memory); clients that are not browsers send none;
 * - `Authorization: Bearer <token>` must carry the token of this start → 401 otherwise, with a
 *   `WWW-Authenticate` challenge as RFC 6750 writes it: the Bearer scheme and realm, plus
 *   `error="invalid_token"` when a bearer token was sent but is not this one. It names no OAuth
 *   resource metadata: this server has a fixed token, not OAuth (httpServer.ts answers the
 *   OAuth discovery and registration paths with a 404 that says so).
 */
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export interface Refusal {
  status: 401 | 403;
  message: string;
  /** The WWW-Authenticate value of a 401. */
  challenge?: string;
}

const REALM = 'Bearer realm="agent-memory"';

export function allowedHosts(port: number): string[] {
  return [`127.0.0.1:${port}`, `localhost:${port}`];
}

export function allowedOrigins(port: number): string[] {
  return allowedHosts(port).map((h) => `http://${h}`);
}

/** Why `req` is refused, or undefined when it may go on. */
export function refusal(req: IncomingMessage, port: number, token: string): Refusal | undefined {
  const host = req.headers.host;
  if (!host || !allowedHosts(port).includes(host.toLowerCase())) {
    return {
      status: 403,
      message: `Host ${host ?? '(none)'} is not this server: only 127.0.0.1:${port} and localhost:${port} are served.`,
    };
  }
  const origin = req.headers.origin;
  if (origin !== undefined && !allowedOrigins(port).includes(origin.toLowerCase())) {
    return { status: 403, message: `Origin ${origin} may not use this server.` };
  }
  const auth = req.headers.authorization ?? '';
  const match = /^Bearer\s+(\S+)\s*$/i.exec(auth);
  if (!match) {
    // No credentials (or another scheme): RFC 6750 §3.1 gives no error code then.
    return { status: 401, message: 'A bearer token is required (Authorization: Bearer <token>).', challenge: REALM };
  }
  if (!sameToken(match[1]!, token)) {
    return {
      status: 401,
      message:
        'Wrong bearer token. A new token is made each time the server starts (unless it was given --token-file): ' +
        "take the current one from mcp-http-<port>.token in the project's store folder.",
      challenge: `${REALM}, error="invalid_token", error_description="The bearer token is not the current token of this server."`,
    };
  }
  return undefined;
}

function sameToken(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
