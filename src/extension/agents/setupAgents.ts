/**
 * "Agent Memory: Set Up Other Agents…" (README "Other agents (MCP)"): writes the
 * agent-memory MCP server into the configuration of Claude Code, Cursor, Codex, Continue, Gemini CLI,
 * GitHub Copilot CLI, Windsurf or Zed —
 * for the person in every project (the agent's user-level file), or for everyone on the
 * project (`.mcp.json`, `.cursor/mcp.json`, shared through git) — or shows every agent's
 * entry. What each file holds: agentConfigs.ts; how it is merged: agentConfigFiles.ts.
 *
 * Every entry starts the launcher in the store home (agentLauncher.ts), which this file keeps
 * current: on every activation and when `agentMemory.storeHome` changes.
 */
import * as os from 'node:os';
import * as path from 'node:path';
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import { resolveStoreHome } from '../../engine/storeLocation';
import { ConfigFileError, readJsonEntry, removeJsonEntry, writeAgentConfig } from './agentConfigFiles';
import {
  SERVER_KEY,
  agentConfigsMarkdown,
  agentTargets,
  namesExtensionFolder,
  projectFilesOffered,
  tildePath,
  type AgentSetupInput,
  type AgentTarget,
} from './agentConfigs';
import { ensureLauncher, writeIfChanged, type LauncherInput } from './agentLauncher';
import type { Logger } from '../host/log';
import { pickProjectFolder } from '../host/projectFolder';
import { SETTINGS_SECTION } from '../config/settingsSchema';
import type { CommandId } from '../commandIds';

export const COMMAND_SETUP_AGENTS = 'agentMemory.setupAgents' satisfies CommandId;

export function cliPath(context: vscode.ExtensionContext): string {
  return vscode.Uri.joinPath(context.extensionUri, 'dist', 'cli.js').fsPath;
}

function launcherInput(context: vscode.ExtensionContext): LauncherInput {
  return {
    home: resolveStoreHome(vscode.workspace.getConfiguration(SETTINGS_SECTION).get<string>('storeHome')),
    cliPath: cliPath(context),
    runtime: process.execPath,
    runtimeIsElectron: process.versions.electron !== undefined,
    extensionId: context.extension.id,
  };
}

/** Writes the launcher when it changed; a failure is logged (agents then report the old one's error). */
function keepLauncherCurrent(context: vscode.ExtensionContext, log: Logger): { file: string; home: string } | undefined {
  const input = launcherInput(context);
  try {
    const { file, outcome } = ensureLauncher(input);
    if (outcome !== 'unchanged') log.info(`the launcher other agents start is ${outcome === 'created' ? 'in' : 'updated:'} ${file}`);
    return { file, home: input.home };
  } catch (e) {
    log.error(`could not write the launcher other agents start in ${input.home}`, e);
    return undefined;
  }
}

function setupInput(context: vscode.ExtensionContext, launcher: { file: string; home: string }): AgentSetupInput {
  const workspace = pickProjectFolder(context.workspaceState).folder?.uri.fsPath;
  return {
    launcher: launcher.file,
    home: launcher.home,
    userHome: os.homedir(),
    ...(workspace ? { workspace } : {}),
    env: {
      CLAUDE_CONFIG_DIR: process.env.CLAUDE_CONFIG_DIR,
      CODEX_HOME: process.env.CODEX_HOME,
      CONTINUE_GLOBAL_DIR: process.env.CONTINUE_GLOBAL_DIR,
      COPILOT_HOME: process.env.COPILOT_HOME,
      // Zed's settings folder.
      XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME,
    },
    // Cline keeps its servers in VS Code's storage of its own extension.
    clineSettings: path.join(
      path.dirname(context.globalStorageUri.fsPath),
      'saoudrizwan.claude-dev',
      'settings',
      'cline_mcp_settings.json',
    ),
  };
}

const WHO = { user: 'for you, in every project', project: 'for everyone on this project' } as const;

export function registerSetupAgents(context: vscode.ExtensionContext, log: Logger): void {
  keepLauncherCurrent(context, log);
  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration(`${SETTINGS_SECTION}.storeHome`)) keepLauncherCurrent(context, log);
    }),
    vscode.commands.registerCommand(COMMAND_SETUP_AGENTS, async () => {
      const launcher = keepLauncherCurrent(context, log);
      if (!launcher) {
        void vscode.window.showErrorMessage(
          'Agent Memory: could not write the launcher other agents start, in your memory folder. The log (Agent Memory output) says why.',
        );
        return;
      }
      const input = setupInput(context, launcher);
      const targets = agentTargets(input);
      const picks = [
        ...targets
          .filter((t) => t.writable)
          .map((t) => ({
            label: `${t.label ?? t.agent}: ${WHO[t.scope]}`,
            description: tildePath(t.file, input.userHome) + (t.scope === 'project' ? ' (shared through git)' : ''),
            target: t as AgentTarget | undefined,
          })),
        { label: 'Show the configuration of every agent', description: 'Cline, and the entries to copy by hand', target: undefined },
      ];
      const pick = await vscode.window.showQuickPick(picks, {
        title: 'Agent Memory: Set Up Other Agents',
        placeHolder: 'Which agent should reach this memory?',
      });
      if (!pick) return;
      if (!pick.target) {
        await showConfigurations(context, agentConfigsMarkdown(targets, input));
        return;
      }
      if (writeTarget(pick.target, input, log)) await offerStaleFix(pick.target, input, log);
    }),
  );
}

function writeTarget(t: AgentTarget, input: AgentSetupInput, log: Logger): boolean {
  const shown = tildePath(t.file, input.userHome);
  const hooks = t.format === 'claude-hooks';
  const what = hooks ? 'the agent-memory hooks' : 'the agent-memory server';
  const name = t.label ?? t.agent;
  try {
    const outcome = writeAgentConfig(t);
    log.info(`${name} (${WHO[t.scope]}): ${outcome === 'unchanged' ? 'already set up in' : `wrote ${what} into`} ${t.file}`);
    void vscode.window.showInformationMessage(
      outcome === 'unchanged'
        ? `Agent Memory: ${name} ${hooks ? 'were' : 'was'} already set up ${WHO[t.scope]} (${shown}). Nothing changed.`
        : `Agent Memory: ${name} ${hooks ? 'are' : 'is'} set up ${WHO[t.scope]} (${shown}). Start a new ${t.agent} session to use ${hooks ? 'them' : 'it'}.` +
            (outcome === 'created' && t.createdNote ? ` ${t.createdNote}` : ''),
    );
    return true;
  } catch (e) {
    const reason = e instanceof ConfigFileError ? e.message : (e as Error).message;
    log.error(`could not add ${what} to ${t.file}`, e);
    void vscode.window.showErrorMessage(
      `Agent Memory: could not add ${what} to ${shown}: ${reason}. Nothing was changed: correct the file, or choose "Show the configuration of every agent" and add the entry yourself.`,
    );
    return false;
  }
}

/**
 * An earlier version wrote project files that start the CLI inside the extension's own folder;
 * Claude Code and Cursor prefer that project entry to the person's own. Offers to replace it
 * (with the shared form, when offered) or to remove it.
 */
async function offerStaleFix(written: AgentTarget, input: AgentSetupInput, log: Logger): Promise<void> {
  if ((written.agent !== 'Claude Code' && written.agent !== 'Cursor') || written.format === 'claude-hooks') return;
  const rel = written.agent === 'Claude Code' ? '.mcp.json' : path.join('.cursor', 'mcp.json');
  const file = input.workspace ? path.join(input.workspace, rel) : undefined;
  if (!file || file === written.file || !fs.existsSync(file)) return;
  const text = fs.readFileSync(file, 'utf8');
  if (!namesExtensionFolder(readJsonEntry(text, ['mcpServers', SERVER_KEY]))) return;
  const shared = projectFilesOffered(input)
    ? agentTargets(input).find((t) => t.scope === 'project' && t.agent === written.agent)
    : undefined;
  const action = shared ? 'Update It for Everyone' : 'Remove It';
  const answer = await vscode.window.showWarningMessage(
    `Agent Memory: this project's ${rel} still starts Agent Memory from a folder of an earlier version, which updates remove, and ${written.agent} uses it before yours.`,
    action,
    'Leave It',
  );
  if (answer !== action) return;
  if (shared) {
    writeTarget(shared, input, log);
    return;
  }
  writeIfChanged(file, removeJsonEntry(text, ['mcpServers', SERVER_KEY]));
  log.info(`removed the agent-memory entry of an earlier version from ${file}`);
}

/**
 * The entries to copy by hand, as a read-only Markdown document: an untitled one was left
 * dirty, so closing it (or the window) asked to save a file nobody meant to keep.
 */
const CONFIGURATIONS_SCHEME = 'agent-memory-setup';
const CONFIGURATIONS_URI = vscode.Uri.from({ scheme: CONFIGURATIONS_SCHEME, path: '/Connect other agents to Agent Memory.md' });
let configurations: { text: string; changed: vscode.EventEmitter<vscode.Uri> } | undefined;

async function showConfigurations(context: vscode.ExtensionContext, text: string): Promise<void> {
  if (!configurations) {
    const state = { text, changed: new vscode.EventEmitter<vscode.Uri>() };
    configurations = state;
    context.subscriptions.push(
      state.changed,
      vscode.workspace.registerTextDocumentContentProvider(CONFIGURATIONS_SCHEME, {
        onDidChange: state.changed.event,
        provideTextDocumentContent: () => state.text,
      }),
    );
  }
  configurations.text = text;
  configurations.changed.fire(CONFIGURATIONS_URI);
  const doc = await vscode.workspace.openTextDocument(CONFIGURATIONS_URI);
  await vscode.languages.setTextDocumentLanguage(doc, 'markdown');
  await vscode.window.showTextDocument(doc, { preview: true });
}
