/**
 * The REST API under `/api/v1/` of `agent-memory mcp --http` (httpServer.ts): for agents and
 * scripts that speak plain HTTP rather than MCP, on the same loopback port behind the same
 * bearer token. Each route is a thin call of the engine protocol, as the MCP tools are; the
 * routes below are also the paths of the OpenAPI document (openapi.ts), which is served at
 * `/api/v1/openapi.json`. Errors are JSON `{ "error": { "code", "message" } }` with the engine's
 * error code (src/core/util/errorCatalogue.ts) and the HTTP status that fits it. Writes are
 * recorded as made by the `X-Agent-Name` header's value, else "REST API".
 */
import type * as http from 'node:http';
import type { EngineClient } from '../engine/client/engineClient';
import { EngineError } from '../engine/errors';
import { stripRecall } from '../present/recall';
import { DEFAULT_CONTEXT_TOKENS, projectContext } from './projectContext';
import { openApiDocument } from './openapi';

export const REST_PREFIX = '/api/v1';
/** The largest request body read (a memory is far smaller). */
const MAX_BODY = 1024 * 1024;
const ACTOR_MAX = 100;

type Query = URLSearchParams;
type Body = Record<string, unknown>;
interface Call {
  engine: EngineClient;
  params: Record<string, string>;
  query: Query;
  body: Body;
  who: string;
}
/** What a route answers: a status and a JSON value. */
type Answer = { status: number; json: unknown };
type Handler = (c: Call) => Promise<Answer>;

export interface Route {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** OpenAPI path template, e.g. /memories/{id}. */
  path: string;
  handle: Handler;
}

const ok = (json: unknown, status = 200): Answer => ({ status, json });

function int(q: Query, name: string, min: number, max: number): number | undefined {
  const v = q.get(name);
  if (v === null) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min || n > max) throw new EngineError('invalid_input', `${name}: a whole number from ${min} to ${max}.`);
  return n;
}

const list = (q: Query, name: string): string[] | undefined => (q.getAll(name).length ? q.getAll(name) : undefined);

/** The fields of a write body that are the memory's (anything else is refused, so a typo is not lost silently). */
function fields(body: Body, allowed: readonly string[]): Body {
  const unknown = Object.keys(body).filter((k) => !allowed.includes(k));
  if (unknown.length) throw new EngineError('invalid_input', `Unknown field ${unknown.join(', ')}: give ${allowed.join(', ')}.`);
  return body;
}

const WRITE_FIELDS = ['content', 'title', 'type', 'tags', 'importance', 'scope'] as const;

export const ROUTES: Route[] = [
  {
    method: 'GET',
    path: '/memories',
    handle: async ({ engine, query }) =>
      ok(
        await engine.request('memory.list', {
          ...(int(query, 'limit', 1, 100) !== undefined ? { limit: int(query, 'limit', 1, 100) } : {}),
          ...(int(query, 'offset', 0, Number.MAX_SAFE_INTEGER) !== undefined
            ? { offset: int(query, 'offset', 0, Number.MAX_SAFE_INTEGER) }
            : {}),
          ...(list(query, 'type') ? { types: list(query, 'type') } : {}),
          ...(list(query, 'tag') ? { tags: list(query, 'tag') } : {}),
          ...(query.get('scope') ? { scope: query.get('scope')! } : {}),
        }),
      ),
  },
  {
    method: 'POST',
    path: '/memories',
    handle: async ({ engine, body, who }) => {
      const b = fields(body, WRITE_FIELDS);
      if (typeof b.content !== 'string' || !b.content.trim())
        throw new EngineError('invalid_input', 'content: the memory text is required.');
      const { text, fromRecall } = stripRecall(b.content);
      const r = await engine.request('memory.create', {
        ...b,
        content: text,
        agentSource: 'rest',
        who,
        origin: 'agent',
        ...(fromRecall ? { fromRecall } : {}),
      });
      return ok(r, r.status === 'created' ? 201 : 200);
    },
  },
  {
    method: 'GET',
    path: '/memories/{id}',
    handle: async ({ engine, params }) => {
      const m = await engine.request('memory.get', { id: params.id! });
      if (!m) throw new EngineError('not_found', `No memory with id ${params.id}.`);
      return ok({ ...m, metadata: undefined });
    },
  },
  {
    method: 'PATCH',
    path: '/memories/{id}',
    handle: async ({ engine, params, body, who }) => {
      const patch = fields(body, ['content', 'title', 'type', 'tags', 'importance', 'expectedVersion']);
      if (!Object.keys(patch).length)
        throw new EngineError('invalid_input', 'Nothing to change: give content, title, type, tags or importance.');
      return ok(await engine.request('memory.update', { id: params.id!, patch: { ...patch, who } }));
    },
  },
  {
    method: 'DELETE',
    path: '/memories/{id}',
    handle: async ({ engine, params, query, who }) => {
      const reason = query.get('reason');
      const m = await engine.request('memory.delete', { id: params.id!, who, ...(reason ? { reason } : {}) });
      return ok({ id: m.id, deletedAt: m.deletedAt });
    },
  },
  {
    method: 'GET',
    path: '/memories/{id}/history',
    handle: async ({ engine, params }) => ok({ memoryId: params.id, entries: await engine.request('memory.history', { id: params.id! }) }),
  },
  {
    method: 'POST',
    path: '/memories/{id}/restore',
    handle: async ({ engine, params }) => {
      const m = await engine.request('memory.restore', { id: params.id! });
      return ok({ id: m.id, version: m.version, deletedAt: m.deletedAt, expiresAt: m.expiresAt });
    },
  },
  {
    method: 'GET',
    path: '/search',
    handle: async ({ engine, query }) => {
      const q = query.get('q');
      if (!q?.trim()) throw new EngineError('invalid_input', 'q: what to search for is required.');
      const r = await engine.request('search', {
        query: q,
        limit: int(query, 'limit', 1, 50) ?? 10,
        recordAccess: true,
        ...(list(query, 'type') ? { types: list(query, 'type') } : {}),
        ...(list(query, 'tag') ? { tags: list(query, 'tag') } : {}),
      });
      return ok({
        query: q,
        hits: r.hits.map((h) => ({
          memory: h.memory,
          content: h.content,
          store: h.store,
          relevance: h.relevance,
          score: h.score,
          matchedTerms: h.matchedTerms,
        })),
      });
    },
  },
  {
    method: 'GET',
    path: '/suggestions',
    handle: async ({ engine, query }) => {
      const status = query.get('status');
      const limit = int(query, 'limit', 1, 200);
      return ok({
        suggestions: await engine.request('suggestions.list', {
          ...(status ? { status: status as 'pending' } : {}),
          ...(limit !== undefined ? { limit } : {}),
        }),
      });
    },
  },
  {
    method: 'POST',
    path: '/suggestions/{id}/accept',
    handle: async ({ engine, params }) =>
      ok({ accepted: params.id, memory: (await engine.request('suggestions.accept', { id: params.id! })).id }),
  },
  {
    method: 'POST',
    path: '/suggestions/{id}/reject',
    handle: async ({ engine, params }) => ok({ rejected: (await engine.request('suggestions.reject', { id: params.id! })).id }),
  },
  {
    method: 'GET',
    path: '/context',
    handle: async ({ engine, query }) => {
      const maxTokens = int(query, 'max_tokens', 200, 20_000) ?? DEFAULT_CONTEXT_TOKENS;
      return ok({ briefing: await projectContext(engine, maxTokens), maxTokens });
    },
  },
  { method: 'GET', path: '/stats', handle: async ({ engine }) => ok(await engine.request('stats', {})) },
  { method: 'GET', path: '/openapi.json', handle: async () => ok(openApiDocument(ROUTES)) },
];

/** The HTTP status of an engine error code. */
export function statusOf(code: string): number {
  if (code === 'not_found') return 404;
  if (code === 'invalid_input' || code === 'secret_detected' || code === 'project_id_invalid') return 400;
  if (code === 'version_conflict' || code === 'duplicate_content' || code === 'suggestion_resolved' || code === 'suggestion_stale')
    return 409;
  if (code === 'engine_unavailable' || code === 'engine_closing' || code === 'store_locked' || code === 'engine_stopped') return 503;
  if (code === 'timeout') return 504;
  return 500;
}

function send(res: http.ServerResponse, status: number, json: unknown): void {
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' });
  res.end(JSON.stringify(json));
}

export function sendError(res: http.ServerResponse, status: number, code: string, message: string): void {
  send(res, status, { error: { code, message } });
}

async function readBody(req: http.IncomingMessage): Promise<Body> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req as AsyncIterable<Buffer>) {
    size += c.length;
    if (size > MAX_BODY) throw new EngineError('invalid_input', `The request body is larger than ${MAX_BODY / 1024 / 1024} MiB.`);
    chunks.push(c);
  }
  const text = Buffer.concat(chunks).toString('utf8').trim();
  if (!text) return {};
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw new EngineError('invalid_input', 'The request body is not JSON: send a JSON object.');
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new EngineError('invalid_input', 'The request body must be a JSON object.');
  return v as Body;
}

function match(template: string, pathname: string): Record<string, string> | undefined {
  const t = template.split('/');
  const p = pathname.split('/');
  if (t.length !== p.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < t.length; i++) {
    const m = /^\{(\w+)\}$/.exec(t[i]!);
    if (m) params[m[1]!] = decodeURIComponent(p[i]!);
    else if (t[i] !== p[i]) return undefined;
  }
  return params;
}

/** Answers one request under REST_PREFIX (the token was checked before). */
export async function handleRest(req: http.IncomingMessage, res: http.ServerResponse, engine: EngineClient): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  const sub = url.pathname.slice(REST_PREFIX.length).replace(/\/$/, '') || '/';
  const candidates = ROUTES.map((r) => ({ r, params: match(r.path, sub) })).filter((c) => c.params);
  if (!candidates.length)
    return sendError(res, 404, 'not_found', `No ${url.pathname} here: the routes are in ${REST_PREFIX}/openapi.json.`);
  const hit = candidates.find((c) => c.r.method === req.method);
  if (!hit) {
    res.setHeader('Allow', candidates.map((c) => c.r.method).join(', '));
    return sendError(
      res,
      405,
      'invalid_input',
      `${req.method} is not allowed on ${url.pathname}: use ${candidates.map((c) => c.r.method).join(' or ')}.`,
    );
  }
  const actor = req.headers['x-agent-name'];
  const who = typeof actor === 'string' && actor.trim() ? actor.trim().slice(0, ACTOR_MAX) : 'REST API';
  try {
    const body = req.method === 'POST' || req.method === 'PATCH' ? await readBody(req) : {};
    const a = await hit.r.handle({ engine, params: hit.params!, query: url.searchParams, body, who });
    send(res, a.status, a.json);
  } catch (e) {
    if (e instanceof EngineError) return sendError(res, statusOf(e.code), e.code, e.message);
    sendError(res, 500, 'internal', (e as Error).message);
  }
}
