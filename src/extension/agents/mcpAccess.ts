/** Other agents' way in: the MCP server registered with VS Code and "Set Up Other Agents…". */
import type * as vscode from 'vscode';
import type { Logger } from '../host/log';
import { registerMcpProvider } from './mcpProvider';
import { registerSetupAgents } from './setupAgents';

export function registerAgentAccess(context: vscode.ExtensionContext, log: Logger): void {
  registerMcpProvider(context, log);
  registerSetupAgents(context, log);
}
