/**
 * `agent-memory mcp`: the Model Context Protocol over stdio (the official SDK), so Claude Code,
 * Cursor, Codex, Continue, Cline and VS Code's agent mode reach the project memory. The engine
 * connection is the CLI's (owner or client of the shared store). stdout belongs to the protocol:
 * logs go to stderr.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { CliArgs } from '../cli/args';
import { connectEngine } from '../cli/connect';
import { registerTools } from './tools';
import { MCP_SERVER_NAME } from './serverName';

export async function runMcp(args: CliArgs, io: { err: (s: string) => void }): Promise<number> {
  if (args.http !== undefined) {
    io.err('agent-memory mcp: --http is not available in this version; use stdio (no --http).');
    return 2;
  }
  const engine = connectEngine({
    workspace: args.workspace,
    ...(args.home ? { home: args.home } : {}),
    client: 'agent-memory mcp',
    ...(args.verbose ? { log: (l: string) => io.err(l) } : {}),
  });
  const server = new McpServer(
    { name: MCP_SERVER_NAME, version: '0.1.0' },
    {
      instructions:
        'Project memory shared by every agent and VS Code window of this project. Call get_project_context at the start of a ' +
        'session, recall_memories before answering questions about the project, store_memory for what is worth keeping.',
    },
  );
  registerTools(server, engine);
  // The engine starts in the background: requests wait for it, the handshake does not.
  engine.start().catch((e) => io.err(`agent-memory mcp: the memory engine could not start: ${(e as Error).message}`));
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    process.stdin.once('end', () => resolve());
  });
  await server.connect(transport);
  await closed;
  await engine.shutdown().catch(() => undefined);
  return 0;
}
