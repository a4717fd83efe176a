/** A scratch project and the stdio transport of `agent-memory mcp` over it, as the MCP tests start it. */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { tmpDir } from './tmp';
import { fakeClone } from './clones';
import { CLI_TS, ROOT } from './cliProcess';

export interface McpProject {
  /** The scratch folder holding the project and the store home. */
  root: string;
  /** The project folder (a fake clone) the server serves. */
  ws: string;
  /** The server's store home (AGENT_MEMORY_HOME). */
  home: string;
  /** Not connected yet: give it to `client.connect`. */
  transport: StdioClientTransport;
}

/** A fake clone with `agentYaml` (default: the hash embedder, no model) and `agent-memory mcp --workspace` over it. */
export function mcpProject(prefix: string, agentYaml = 'embedding:\n  provider: hash\n'): McpProject {
  const root = tmpDir(prefix);
  const ws = fakeClone(root, 'repo');
  fs.writeFileSync(path.join(ws, 'agent.yaml'), agentYaml);
  const home = path.join(root, 'home');
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', 'tsx', CLI_TS, 'mcp', '--workspace', ws],
    cwd: ROOT,
    env: { ...(process.env as Record<string, string>), AGENT_MEMORY_HOME: home },
    stderr: 'pipe',
  });
  return { root, ws, home, transport };
}
