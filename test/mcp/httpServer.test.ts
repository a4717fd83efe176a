// @tier process
// `agent-memory mcp --http` as a real process, driven by the MCP SDK's own Streamable HTTP
// client: tools, store, recall; and the locks on the door — 127.0.0.1 only, a bearer token on
// every request (401, which offers no OAuth), no foreign Origin or Host (403), a token file
// others can read refused; the token file it writes is gone once it stops.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { projectStoreDir } from '../../src/engine/transport/endpoint';
import { tmpDir } from '../helpers/tmp';
import { fakeClone } from '../helpers/clones';
import { runCli } from '../helpers/cliProcess';
import { serveMcpHttp, type ServedMcp as Served } from '../helpers/mcpHttp';
import { resultData } from '../helpers/mcpOutput';
import { until } from '../helpers/until';

type TextResult = { content: { type: string; text: string }[]; isError?: boolean };
const textOf = (r: unknown) => (r as TextResult).content.map((c) => c.text).join('\n');

/** `agent-memory mcp --http 0 …`, started once it has said its URL and where its token is (or was given one). */
const serve = (ws: string, home: string, extra: string[] = []) =>
  serveMcpHttp(ws, home, { extra, ready: (err) => extra.includes('--token-file') || /\(also in .*\)/.test(err) });

async function stop(s: Served): Promise<number | null> {
  const exited = new Promise<number | null>((resolve) => s.proc.once('exit', (code) => resolve(code)));
  s.proc.kill('SIGTERM');
  return exited;
}

interface RawAnswer {
  status: number;
  body: string;
  headers: http.IncomingHttpHeaders;
}

/** A raw POST of an initialize request with the headers given (node:http, so Host can be set). */
function rawPost(port: number, headers: Record<string, string>, where = '/mcp', method = 'POST'): Promise<RawAnswer> {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  });
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path: where,
        method,
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      },
      (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString('utf8')));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text, headers: res.headers }));
      },
    );
    req.on('error', reject);
    req.end(method === 'POST' ? body : undefined);
  });
}

test(
  'the SDK Streamable HTTP client lists the tools, stores and recalls through agent-memory mcp --http',
  { timeout: 180_000 },
  async () => {
    const root = tmpDir('am-mcp-http-');
    const ws = fakeClone(root, 'repo');
    fs.writeFileSync(path.join(ws, 'agent.yaml'), 'embedding:\n  provider: hash\n');
    const home = path.join(root, 'home');
    const s = await serve(ws, home);
    try {
      const token = /bearer token: (\S+)/.exec(s.stderr())![1]!;
      const file = /\(also in (.*), mode 0600\)/.exec(s.stderr())![1]!;
      assert.equal(fs.readFileSync(file, 'utf8').trim(), token, 'the token file holds the printed token');
      assert.equal(fs.statSync(file).mode & 0o777, 0o600);
      assert.equal(s.stderr().split(token).length - 1, 1, 'the token is printed once');

      const client = new Client({ name: 'agent-memory-http-test', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(s.url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }),
      );
      try {
        const { tools } = await client.listTools();
        assert.ok(
          ['store_memory', 'recall_memories', 'get_project_context'].every((n) => tools.some((t) => t.name === n)),
          tools.map((t) => t.name).join(', '),
        );
        const stored = resultData<{ status: string; id: string }>(
          await client.callTool({
            name: 'store_memory',
            arguments: { content: 'The staging database is restored from the nightly backup every Monday at 04:00.' },
          }),
        );
        assert.equal(stored.status, 'created');
        const recalled = textOf(await client.callTool({ name: 'recall_memories', arguments: { query: 'staging database backup' } }));
        assert.match(recalled, /nightly backup every Monday/);
        assert.match(recalled, new RegExp(`id=${stored.id}`));
      } finally {
        await client.close();
      }

      // A second client without the token is turned away by the SDK client itself (401).
      const anonymous = new Client({ name: 'no-token', version: '1.0.0' });
      await assert.rejects(anonymous.connect(new StreamableHTTPClientTransport(new URL(s.url))), /bearer token is required/);

      const ok = { authorization: `Bearer ${token}` };
      assert.equal((await rawPost(s.port, {})).status, 401, 'no token');
      assert.equal((await rawPost(s.port, { authorization: 'Bearer not-the-token' })).status, 401, 'wrong token');
      assert.equal((await rawPost(s.port, { authorization: `Basic ${token}` })).status, 401, 'not a bearer token');
      const foreign = await rawPost(s.port, { ...ok, origin: 'http://evil.example' });
      assert.equal(foreign.status, 403, 'a foreign Origin');
      assert.match(foreign.body, /Origin http:\/\/evil\.example/);
      assert.equal((await rawPost(s.port, { ...ok, origin: `http://127.0.0.1:${s.port + 1}` })).status, 403, 'another local port');
      assert.equal((await rawPost(s.port, { ...ok, host: `evil.example:${s.port}` })).status, 403, 'a rebound Host name');
      assert.equal((await rawPost(s.port, { ...ok, origin: `http://localhost:${s.port}` })).status, 200, "the server's own Origin");
      assert.equal((await rawPost(s.port, ok)).status, 200, 'no Origin (not a browser) with the token');
    } finally {
      assert.equal(await stop(s), 0, 'SIGTERM ends it cleanly');
    }
    const file = /\(also in (.*), mode 0600\)/.exec(s.stderr())![1]!;
    assert.equal(fs.existsSync(file), false, 'the token file is removed when the server stops');
  },
);

test(
  'agent-memory mcp --http: a given token file is used; a readable-by-others one and any host but 127.0.0.1 are refused',
  { timeout: 120_000 },
  async () => {
    const root = tmpDir('am-mcp-http-');
    const ws = fakeClone(root, 'repo');
    fs.writeFileSync(path.join(ws, 'agent.yaml'), 'embedding:\n  provider: hash\n');
    const home = path.join(root, 'home');
    const env = { AGENT_MEMORY_HOME: home };

    const host = await runCli(['mcp', '--http', '0', '--host', '0.0.0.0', '--workspace', ws], env);
    assert.equal(host.code, 2);
    assert.match(host.stderr, /127\.0\.0\.1 only/);

    const tokenFile = path.join(root, 'token');
    fs.writeFileSync(tokenFile, 'a-token-of-my-own-choosing-1234\n', { mode: 0o644 });
    fs.chmodSync(tokenFile, 0o644);
    const open = await runCli(['mcp', '--http', '0', '--token-file', tokenFile, '--workspace', ws], env);
    assert.equal(open.code, 1);
    assert.match(open.stderr, /chmod 600/);

    fs.chmodSync(tokenFile, 0o600);
    const s = await serve(ws, home, ['--token-file', tokenFile]);
    try {
      assert.doesNotMatch(s.stderr(), /a-token-of-my-own-choosing/, 'a given token is not printed');
      assert.equal((await rawPost(s.port, { authorization: 'Bearer a-token-of-my-own-choosing-1234' })).status, 200);
      assert.equal((await rawPost(s.port, { authorization: 'Bearer a-token-of-my-own-choosing-12345' })).status, 401);
    } finally {
      assert.equal(await stop(s), 0);
    }
  },
);

/** A free port on 127.0.0.1 (nothing listens on it once this returns). */
function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = http.createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

test(
  'a 401 names the Bearer scheme and offers no OAuth: the SDK client with an OAuth provider stops at a sentence, opens no sign-in',
  { timeout: 120_000 },
  async () => {
    const root = tmpDir('am-mcp-http-');
    const ws = fakeClone(root, 'repo');
    fs.writeFileSync(path.join(ws, 'agent.yaml'), 'embedding:\n  provider: hash\n');
    const home = path.join(root, 'home');
    // The token file of a server that was killed (kill -9): nothing listens on its port any more.
    const storeDir = await projectStoreDir({ home, workspaceRoot: ws });
    const stale = path.join(storeDir, `mcp-http-${await freePort()}.token`);
    fs.writeFileSync(stale, 'a-token-of-a-server-that-was-killed\n', { mode: 0o600 });
    const s = await serve(ws, home);
    try {
      assert.equal(fs.existsSync(stale), false, "a dead server's token file is removed at start");
      assert.match(s.stderr(), /removed .*mcp-http-\d+\.token.* no longer runs/);

      const none = await rawPost(s.port, {});
      assert.equal(none.status, 401);
      assert.equal(none.headers['www-authenticate'], 'Bearer realm="agent-memory"', 'no error code when no token was sent (RFC 6750)');
      const wrong = await rawPost(s.port, { authorization: 'Bearer not-the-token' });
      assert.match(
        String(wrong.headers['www-authenticate']),
        /^Bearer realm="agent-memory", error="invalid_token", error_description="[^"\\]+"$/,
      );
      assert.doesNotMatch(String(wrong.headers['www-authenticate']), /resource_metadata/, 'no OAuth metadata is advertised');

      // OAuth discovery finds nothing, and says why, without a token.
      for (const where of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-authorization-server', '/register']) {
        const r = await rawPost(s.port, {}, where, where === '/register' ? 'POST' : 'GET');
        assert.equal(r.status, 404, where);
        const body = JSON.parse(r.body) as { error: string; error_description: string };
        assert.match(body.error_description, /does not use OAuth.*Authorization: Bearer/, where);
        assert.match(body.error_description, /^[\x20-\x21\x23-\x5b\x5d-\x7e]+$/, 'an OAuth error_description (RFC 6749 characters)');
      }

      // The SDK's own client, as an agent that signs in with OAuth would use it.
      const asked: string[] = [];
      const redirected: URL[] = [];
      const provider: OAuthClientProvider = {
        redirectUrl: 'http://127.0.0.1:9/callback',
        clientMetadata: { redirect_uris: ['http://127.0.0.1:9/callback'], client_name: 'oauth-agent' },
        clientInformation: () => undefined,
        saveClientInformation: () => undefined,
        tokens: () => undefined,
        saveTokens: () => undefined,
        redirectToAuthorization: (url) => void redirected.push(url),
        saveCodeVerifier: () => undefined,
        codeVerifier: () => 'verifier',
      };
      const client = new Client({ name: 'oauth-agent', version: '1.0.0' });
      const transport = new StreamableHTTPClientTransport(new URL(s.url), {
        authProvider: provider,
        fetch: (url, init) => {
          asked.push(`${init?.method ?? 'GET'} ${new URL(String(url)).pathname}`);
          return fetch(url, init);
        },
      });
      await assert.rejects(client.connect(transport), /does not use OAuth.*Authorization: Bearer/);
      assert.deepEqual(redirected, [], 'no browser sign-in is started');
      assert.equal(asked[asked.length - 1], 'POST /register', `discovery ends at the registration it cannot do: ${asked.join(', ')}`);
    } finally {
      assert.equal(await stop(s), 0);
    }
  },
);

test(
  "over HTTP each client's logging level holds for its own session: one that asked for errors only gets no info message",
  { timeout: 180_000 },
  async () => {
    const root = tmpDir('am-mcp-http-');
    const ws = fakeClone(root, 'repo');
    fs.writeFileSync(path.join(ws, 'agent.yaml'), 'embedding:\n  provider: hash\n');
    fs.writeFileSync(path.join(ws, 'notes.jsonl'), `${JSON.stringify({ content: 'The release branch is cut on Thursdays.' })}\n`);
    const s = await serve(ws, path.join(root, 'home'));
    const token = /bearer token: (\S+)/.exec(s.stderr())![1]!;
    const connect = async (name: string) => {
      const client = new Client({ name, version: '1.0.0' });
      const logged: string[] = [];
      client.setNotificationHandler(
        LoggingMessageNotificationSchema,
        (n) => void logged.push(`${n.params.level} ${String(n.params.data)}`),
      );
      await client.connect(
        new StreamableHTTPClientTransport(new URL(s.url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }),
      );
      return { client, logged };
    };
    const quiet = await connect('errors-only');
    const chatty = await connect('info');
    try {
      await quiet.client.setLoggingLevel('error');
      await chatty.client.setLoggingLevel('info');
      // Each import's outcome is an info message (docs/mcp.md "Logging and progress").
      assert.ok(!(await quiet.client.callTool({ name: 'import_memories', arguments: { path: 'notes.jsonl' } })).isError);
      assert.ok(!(await chatty.client.callTool({ name: 'import_memories', arguments: { path: 'notes.jsonl' } })).isError);
      await until('the info client is told of its import', () => chatty.logged.some((l) => /^info .*1 duplicate/.test(l)), {
        timeoutMs: 30_000,
      });
      // Messages to one session come in the order sent: once the quiet client takes info again, the
      // next outcome it gets is the first it sees only if the earlier one was held back.
      await quiet.client.setLoggingLevel('info');
      assert.ok(!(await quiet.client.callTool({ name: 'import_memories', arguments: { path: 'notes.jsonl' } })).isError);
      await until('the quiet client is told of its second import', () => quiet.logged.length > 0, { timeoutMs: 30_000 });
      assert.equal(quiet.logged.length, 1, quiet.logged.join('\n'));
      assert.match(quiet.logged[0]!, /^info .*1 duplicate/, 'the message it gets is the second import (a duplicate), not the first');
    } finally {
      await quiet.client.close();
      await chatty.client.close();
      assert.equal(await stop(s), 0);
    }
  },
);
