/**
 * Registers `agent-memory mcp` with VS Code (package.json contributes.mcpServerDefinitionProviders),
 * so agent mode lists the memory tools of this project. The server is the bundled CLI run by the
 * extension host's own runtime as plain Node (ELECTRON_RUN_AS_NODE), in the project folder, with
 * the server's Node options where that runtime is Node itself (src/mcp/serverNodeFlags.ts).
 */
import * as vscode from 'vscode';
import { MCP_SERVER_NAME } from '../../mcp/serverName';
import { mcpServerNodeFlags } from '../../mcp/serverNodeFlags';
import type { Logger } from '../host/log';
import { pickProjectFolder } from '../host/projectFolder';
import { cliPath } from './setupAgents';

export const MCP_PROVIDER_ID = 'agentMemory.mcp';

export function registerMcpProvider(context: vscode.ExtensionContext, log: Logger): void {
  if (typeof vscode.lm?.registerMcpServerDefinitionProvider !== 'function') {
    log.info('this VS Code has no MCP server API: agent mode will not list the memory tools (other agents: Set Up Other Agents…)');
    return;
  }
  const changed = new vscode.EventEmitter<void>();
  context.subscriptions.push(
    changed,
    vscode.lm.registerMcpServerDefinitionProvider(MCP_PROVIDER_ID, {
      onDidChangeMcpServerDefinitions: changed.event,
      provideMcpServerDefinitions: () => {
        const workspace = pickProjectFolder(context.workspaceState).folder?.uri.fsPath;
        const args = [
          ...mcpServerNodeFlags({ electron: process.versions.electron !== undefined }),
          cliPath(context),
          'mcp',
          ...(workspace ? ['--workspace', workspace] : []),
        ];
        const storeHome = vscode.workspace.getConfiguration('agentMemory').get<string>('storeHome');
        const env: Record<string, string> = { ELECTRON_RUN_AS_NODE: '1', ...(storeHome ? { AGENT_MEMORY_HOME: storeHome } : {}) };
        return [
          new vscode.McpStdioServerDefinition(
            MCP_SERVER_NAME,
            process.execPath,
            args,
            env,
            (context.extension.packageJSON as { version: string }).version,
          ),
        ];
      },
    }),
  );
  context.subscriptions.push(vscode.workspace.onDidChangeWorkspaceFolders(() => changed.fire()));
}
