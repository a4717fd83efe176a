// @tier process
// The REST API of `agent-memory mcp --http` (src/mcp/restApi.ts) through plain `fetch`, as a
// script or an agent without MCP uses it: refused without the token or with a wrong one; memories
// created, listed, read, changed, searched (with relevance), deleted and restored; suggestions
// listed and resolved; the briefing and stats; JSON errors with the engine's codes. Every answer
// is checked against the schema the served OpenAPI document gives for its route and status, and
// the document's paths are exactly the router's routes.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import Ajv from 'ajv';
import { ROUTES } from '../../src/mcp/restApi';
import { OPERATIONS } from '../../src/mcp/openapi';
import { serveMcpHttp, tokenWorkspace } from '../helpers/mcpHttp';

type Json = Record<string, any>;

test(
  'the REST API /api/v1 through fetch: token, memories CRUD, search, suggestions, context, stats, errors, OpenAPI',
  { timeout: 180_000 },
  async () => {
    const { ws, home, token, tokenFile } = tokenWorkspace('am-rest-');
    // Started, and it says where the REST API is (same port and token).
    const served = await serveMcpHttp(ws, home, {
      extra: ['--token-file', tokenFile],
      ready: (err) => /Streamable HTTP on http:\/\/127\.0\.0\.1:(\d+)\/mcp[^\n]*\nREST API: http:\/\/127\.0\.0\.1:\1\/api\/v1 /.test(err),
    });
    const base = `http://127.0.0.1:${served.port}/api/v1`;
    const ajv = new Ajv({ strict: false });
    const seen = new Set<string>();
    /** A request with the token; the answer checked against the OpenAPI schema of its route and status. */
    const call = async (method: string, route: string, url: string, body?: unknown, headers: Record<string, string> = {}) => {
      const res = await fetch(`${base}${url}`, {
        method,
        headers: { Authorization: `Bearer ${token}`, ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}), ...headers },
        ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
      });
      const json = (await res.json()) as Json;
      const schema = OPERATIONS[`${method} ${route}`]?.answers[res.status];
      assert.ok(schema, `${method} ${route} documents status ${res.status}: ${JSON.stringify(json)}`);
      assert.ok(
        ajv.validate(schema, json),
        `${method} ${route} ${res.status} fits its schema: ${ajv.errorsText()} in ${JSON.stringify(json)}`,
      );
      seen.add(`${method} ${route}`);
      return { status: res.status, json };
    };
    try {
      // The door: no token, a wrong one.
      for (const auth of [undefined, 'Bearer wrong-token']) {
        const res = await fetch(`${base}/memories`, { headers: auth ? { Authorization: auth } : {} });
        assert.equal(res.status, 401);
        assert.match(((await res.json()) as Json).error.message, /token/i);
      }

      // The document is the router.
      const doc = (await call('GET', '/openapi.json', '/openapi.json')).json;
      assert.equal(doc.openapi, '3.1.0');
      const documented = Object.entries(doc.paths as Record<string, Json>).flatMap(([p, ops]) =>
        Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`),
      );
      assert.deepEqual(documented.sort(), ROUTES.map((r) => `${r.method} ${r.path}`).sort());
      for (const key of documented) assert.ok(OPERATIONS[key], `${key} is described`);

      const created = await call(
        'POST',
        '/memories',
        '/memories',
        {
          content: 'The payments service retries webhooks 5 times with exponential backoff.',
          title: 'webhook retries',
          tags: ['payments'],
          type: 'decision',
        },
        { 'X-Agent-Name': 'deploy-bot' },
      );
      assert.equal(created.status, 201);
      const id = created.json.memory.id as string;
      const again = await call('POST', '/memories', '/memories', {
        content: 'The payments service retries webhooks 5 times with exponential backoff.',
      });
      assert.equal(again.status, 200, 'an exact duplicate is not created again');
      assert.notEqual(again.json.status, 'created');

      assert.equal((await call('GET', '/memories', '/memories?limit=10&tag=payments')).json.total, 1);
      assert.equal(
        (await call('GET', '/memories/{id}', `/memories/${id}`)).json.content,
        'The payments service retries webhooks 5 times with exponential backoff.',
      );
      const patched = await call('PATCH', '/memories/{id}', `/memories/${id}`, {
        content: 'The payments service retries webhooks 8 times with exponential backoff.',
      });
      assert.equal(patched.json.version, 2);
      const history = (await call('GET', '/memories/{id}/history', `/memories/${id}/history`)).json.entries as Json[];
      assert.deepEqual(
        history.map((h) => [h.event, h.changedBy]),
        [
          ['created', 'deploy-bot'],
          ['updated', 'REST API'],
        ],
      );

      const found = (await call('GET', '/search', '/search?q=webhook%20retries&limit=5')).json;
      assert.equal(found.hits[0].memory.id, id);
      assert.ok(found.hits[0].relevance > 0 && found.hits[0].relevance <= 1);

      assert.ok((await call('DELETE', '/memories/{id}', `/memories/${id}?reason=obsolete`)).json.deletedAt);
      assert.equal((await call('GET', '/memories/{id}', `/memories/${id}`)).status, 404);
      assert.equal((await call('POST', '/memories/{id}/restore', `/memories/${id}/restore`)).json.deletedAt, null);
      assert.equal((await call('GET', '/memories/{id}', `/memories/${id}`)).status, 200, 'restored');

      // Suggestions: a near-duplicate pair.
      await call('POST', '/memories', '/memories', { content: 'Postgres connection pool size is 20 in production and 5 in staging.' });
      await call('POST', '/memories', '/memories', {
        content: 'Postgres connection pool size is 20 in production and 5 in staging. Timeouts are 30 seconds.',
      });
      const pending = (await call('GET', '/suggestions', '/suggestions?status=pending')).json.suggestions as Json[];
      assert.ok(pending.length >= 1, 'a suggestion');
      assert.deepEqual((await call('POST', '/suggestions/{id}/reject', `/suggestions/${pending[0]!.id}/reject`)).json, {
        rejected: pending[0]!.id,
      });
      const twice = await call('POST', '/suggestions/{id}/accept', `/suggestions/${pending[0]!.id}/accept`);
      assert.equal(twice.status, 409);
      assert.equal(twice.json.error.code, 'suggestion_resolved');

      const ctx = (await call('GET', '/context', '/context?max_tokens=400')).json;
      assert.ok(ctx.briefing.includes(id));
      const stats = (await call('GET', '/stats', '/stats')).json;
      assert.deepEqual([stats.project.memories, stats.suggestionsPending], [3, 0], 'three live memories, the one suggestion rejected');

      // Errors: JSON with the engine's codes.
      const missing = await call('GET', '/memories/{id}', '/memories/no-such-id');
      assert.deepEqual([missing.status, missing.json.error.code], [404, 'not_found']);
      const notJson = await call('POST', '/memories', '/memories', '{oops');
      assert.deepEqual([notJson.status, notJson.json.error.code], [400, 'invalid_input']);
      assert.match(notJson.json.error.message, /not JSON/);
      const typo = await call('POST', '/memories', '/memories', { content: 'x', tag: 'oops' });
      assert.match(typo.json.error.message, /Unknown field tag/);
      assert.equal((await call('GET', '/search', '/search')).json.error.code, 'invalid_input');
      const route = await fetch(`${base}/nothing-here`, { headers: { Authorization: `Bearer ${token}` } });
      assert.deepEqual([route.status, ((await route.json()) as Json).error.code], [404, 'not_found']);
      const verb = await fetch(`${base}/stats`, { method: 'DELETE', headers: { Authorization: `Bearer ${token}` } });
      assert.deepEqual([verb.status, verb.headers.get('allow')], [405, 'GET']);

      assert.deepEqual([...seen].sort(), ROUTES.map((r) => `${r.method} ${r.path}`).sort(), 'every route was called');
    } finally {
      served.proc.kill('SIGTERM');
    }
  },
);
