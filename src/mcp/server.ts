/**
 * `agent-memory mcp`: the Model Context Protocol over stdio (the official SDK), so Claude Code,
 * Cursor, Codex, Continue, Cline and VS Code's agent mode reach the project memory; with
 * `--http <port>`, Streamable HTTP on 127.0.0.1 with a bearer token (httpServer.ts). The engine
 * connection is the CLI's (owner or client of the shared store). stdout belongs to the protocol:
 * logs go to stderr.
 */
import * as path from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { CliArgs } from '../cli/args';
import type { EngineClient } from '../engine/client/engineClient';
import { resolveStoreHome } from '../engine/storeLocation';
import { projectStoreDir } from '../engine/socket/endpoint';
import type { McpHttpServer } from './httpServer';
import { newToken, removeStaleTokens, removeToken, writeToken } from './httpToken';
import { startMcp, type McpStart } from './start';
import { registerTools } from './tools';
import { registerChanges } from './changes';
import { registerResources } from './resources';
import { registerPrompts } from './prompts';
import { registerLongTools } from './longTools';
import { MCP_SERVER_NAME } from './serverName';
import { VERSION } from '../cli/version';

type Io = { err: (s: string) => void };

/**
 * More on every session's server, after ours: the MCP conformance suite's fixture tools, prompts
 * and resources (test/mcp/conformance.test.ts) — never in the product. `subscribable` lets a
 * resource of the extension be subscribed to besides the change feeds (changes.ts).
 */
export type McpExtension = (server: McpServer, hooks: { subscribable: (uri: string) => void }) => void;

function createMcpServer(engine: EngineClient, workspace: string, extend?: McpExtension): McpServer {
  const server = new McpServer(
    { name: MCP_SERVER_NAME, version: VERSION },
    {
      instructions:
        'Project memory shared by every agent and VS Code window of this project. Call get_project_context at the start of a ' +
        'session, recall_memories before answering questions about the project, store_memory for what is worth keeping, ' +
        'create_schedule for a reminder or a follow-up at a later time.',
      // Logging: a run of a schedule this client made is told to it (scheduleTools.ts), engine warnings and
      // the outcome of imports to every client (longTools.ts), at the level the client sets.
      capabilities: { logging: {} },
    },
  );
  registerTools(server, engine);
  registerLongTools(server, engine, workspace);
  const changes = registerChanges(server, engine);
  registerResources(server, engine);
  registerPrompts(server, engine);
  extend?.(server, changes);
  return server;
}

/** Serves MCP; `started` is what the CLI began before it loaded this module (start.ts), else it is begun here. */
export async function runMcp(args: CliArgs, io: Io, extend?: McpExtension, started?: McpStart): Promise<number> {
  const start = started ?? startMcp(args, io);
  if (typeof start === 'number') return start;
  const { engine, token } = start;
  const code =
    args.http === undefined
      ? await serveStdio(engine, path.resolve(args.workspace), extend)
      : await serveHttp(engine, args, token, io, extend);
  await engine.shutdown().catch(() => undefined);
  return code;
}

async function serveStdio(engine: EngineClient, workspace: string, extend?: McpExtension): Promise<number> {
  const server = createMcpServer(engine, workspace, extend);
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    process.stdin.once('end', () => resolve());
  });
  await server.connect(transport);
  await closed;
  return 0;
}

/** Serves until SIGINT / SIGTERM. A generated token is printed once, to stderr, with the file holding it. */
async function serveHttp(engine: EngineClient, args: CliArgs, given: string | undefined, io: Io, extend?: McpExtension): Promise<number> {
  const token = given ?? newToken();
  // Loaded here, not with this module: the HTTP stack (Hono's Node adapter) loads Node's fetch
  // (undici) as it initialises, which a stdio server, an agent's usual one, never needs.
  const { McpHttpServer } = await import('./httpServer.js');
  const { handleRest } = await import('./restApi.js');
  let http: McpHttpServer;
  try {
    http = await McpHttpServer.start({
      port: args.http!,
      token,
      newServer: () => createMcpServer(engine, path.resolve(args.workspace), extend),
      rest: (req, res) => handleRest(req, res, engine),
      log: (l) => io.err(l),
    });
  } catch (e) {
    io.err(`agent-memory mcp: cannot listen on 127.0.0.1:${args.http}: ${(e as Error).message}`);
    return 1;
  }
  const dir = await projectStoreDir({ home: resolveStoreHome(args.home), workspaceRoot: path.resolve(args.workspace) });
  for (const stale of await removeStaleTokens(dir, http.port)) {
    io.err(`agent-memory mcp: removed ${stale}: the server it was written for no longer runs`);
  }
  let file: string | undefined;
  // For agents without MCP: the REST API on the same port and token (docs/mcp.md "REST API").
  const rest = `REST API: ${http.url.replace(/\/mcp$/, '/api/v1')} (its OpenAPI document at /api/v1/openapi.json)`;
  if (given) {
    io.err(`agent-memory mcp: Streamable HTTP on ${http.url} (bearer token from ${args.tokenFile})\n${rest}`);
  } else {
    file = writeToken(dir, http.port, token);
    io.err(`agent-memory mcp: Streamable HTTP on ${http.url}\n${rest}\nbearer token: ${token}\n(also in ${file}, mode 0600)`);
  }
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await http.close();
  // The token dies with the server: its file goes too (a --token-file is the user's, and stays).
  if (file) removeToken(file, token);
  return 0;
}
