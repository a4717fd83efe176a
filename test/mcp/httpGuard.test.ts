// The door of `agent-memory mcp --http` (src/mcp/httpGuard.ts): Host must be this server,
// Origin (when sent) this server's own, and the bearer token this start's.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { refusal } from '../../src/mcp/httpGuard';

const TOKEN = 'tok_0123456789abcdef0123456789abcdef';
const req = (headers: Record<string, string>) => ({ headers }) as unknown as IncomingMessage;
const ok = { host: '127.0.0.1:7391', authorization: `Bearer ${TOKEN}` };

test('a request with this server as Host, no or its own Origin, and the token goes through', () => {
  assert.equal(refusal(req(ok), 7391, TOKEN), undefined);
  assert.equal(refusal(req({ ...ok, host: 'localhost:7391' }), 7391, TOKEN), undefined);
  assert.equal(refusal(req({ ...ok, origin: 'http://localhost:7391' }), 7391, TOKEN), undefined);
  assert.equal(refusal(req({ ...ok, origin: 'http://127.0.0.1:7391' }), 7391, TOKEN), undefined);
});

test('a missing, wrong or non-bearer token is 401; a foreign Host or Origin is 403', () => {
  assert.equal(refusal(req({ host: ok.host }), 7391, TOKEN)?.status, 401);
  assert.equal(refusal(req({ ...ok, authorization: `Bearer ${TOKEN}x` }), 7391, TOKEN)?.status, 401);
  assert.equal(refusal(req({ ...ok, authorization: `Basic ${TOKEN}` }), 7391, TOKEN)?.status, 401);
  assert.equal(refusal(req({ ...ok, host: 'evil.example:7391' }), 7391, TOKEN)?.status, 403, 'DNS rebinding');
  assert.equal(refusal(req({ ...ok, host: '127.0.0.1:7392' }), 7391, TOKEN)?.status, 403);
  assert.equal(refusal(req({ authorization: ok.authorization }), 7391, TOKEN)?.status, 403, 'no Host at all');
  const foreign = refusal(req({ ...ok, origin: 'https://evil.example' }), 7391, TOKEN);
  assert.equal(foreign?.status, 403);
  assert.match(foreign?.message ?? '', /evil\.example/);
  assert.equal(refusal(req({ ...ok, origin: 'null' }), 7391, TOKEN)?.status, 403, 'a sandboxed page');
  // The Origin/Host checks come first: a page of another origin learns nothing about the token.
  assert.equal(refusal(req({ host: ok.host, origin: 'https://evil.example' }), 7391, TOKEN)?.status, 403);
});
