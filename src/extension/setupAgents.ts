/**
 * "Agent Memory: Set Up Other Agents…": shows the exact MCP configuration of Claude Code,
 * Cursor, Codex, Continue and Cline for the installed CLI (agentConfigs.ts), and writes it
 * into the project's `.mcp.json` / `.cursor/mcp.json` when asked (other servers kept).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { agentConfigs, agentConfigsMarkdown, mergeMcpJson, type AgentConfig } from './agentConfigs';
import type { Logger } from './log';
import { pickProjectFolder } from './projectFolder';

export const COMMAND_SETUP_AGENTS = 'agentMemory.setupAgents';

export function cliPath(context: vscode.ExtensionContext): string {
  return vscode.Uri.joinPath(context.extensionUri, 'dist', 'cli.js').fsPath;
}

export function registerSetupAgents(context: vscode.ExtensionContext, log: Logger): void {
  context.subscriptions.push(
    vscode.commands.registerCommand(COMMAND_SETUP_AGENTS, async () => {
      const workspace = pickProjectFolder(context.workspaceState).folder?.uri.fsPath;
      const configs = agentConfigs({ cliPath: cliPath(context), ...(workspace ? { workspace } : {}) });
      const writable = configs.filter((c) => c.mergeableJson && workspace);
      const picks = [
        { label: 'Show the configuration of every agent', configs: [] as AgentConfig[] },
        ...writable.map((c) => ({ label: `Write ${c.agent}'s ${path.relative(workspace ?? '', c.file)}`, configs: [c] })),
      ];
      const pick = await vscode.window.showQuickPick(picks, { title: 'Agent Memory: Set Up Other Agents' });
      if (!pick) return;
      if (!pick.configs.length) {
        const doc = await vscode.workspace.openTextDocument({ language: 'markdown', content: agentConfigsMarkdown(configs) });
        await vscode.window.showTextDocument(doc);
        return;
      }
      for (const c of pick.configs) writeConfig(c, log);
    }),
  );
}

function writeConfig(c: AgentConfig, log: Logger): void {
  try {
    const existing = fs.existsSync(c.file) ? fs.readFileSync(c.file, 'utf8') : undefined;
    fs.mkdirSync(path.dirname(c.file), { recursive: true });
    fs.writeFileSync(c.file, mergeMcpJson(existing, c.content));
    log.info(`wrote the agent-memory MCP server into ${c.file}`);
    void vscode.window.showInformationMessage(`Agent Memory: ${c.agent} is set up (${c.file}).`);
  } catch (e) {
    void vscode.window.showErrorMessage(`Agent Memory: could not update ${c.file}: ${(e as Error).message}. Nothing was changed.`);
  }
}
