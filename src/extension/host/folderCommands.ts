/**
 * The folders behind the engine: "Open Store Folder" (the project store's folder, in the OS file
 * manager or a new window) and "Switch Project Folder…" (multi-root: which workspace folder's
 * project the engine serves, projectFolder.ts), with the notice shown when that choice was a guess.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { EngineClient } from '../../engine/client/engineClient';
import type { Logger } from './log';
import { commandRegistrar, registerCommandTable, type CommandEntry } from '../common/commandTable';
import { fileFolders, pickProjectFolder, PROJECT_FOLDER_KEY } from './projectFolder';
import type { CommandId, ContextKey } from '../commandIds';

export const FOLDER_COMMANDS = {
  openStoreFolder: 'agentMemory.openStoreFolder',
  switchProjectFolder: 'agentMemory.switchProjectFolder',
} as const satisfies Record<string, CommandId>;

const KEY_MULTI_ROOT = 'agentMemory.multiRoot' satisfies ContextKey;

interface FolderContext {
  context: vscode.ExtensionContext;
  engine: EngineClient;
  /** Redraws the views after the engine serves another project. */
  refresh(): void;
}

async function openStoreFolder({ engine }: FolderContext) {
  const dir = (await engine.request('stats', {})).project.dir;
  const uri = vscode.Uri.file(dir);
  // The OS file manager only exists next to a desktop window on the same machine; in the
  // browser (code-server) or a remote window, offer a new window on the folder instead.
  if (vscode.env.uiKind === vscode.UIKind.Desktop && !vscode.env.remoteName) {
    await vscode.commands.executeCommand('revealFileInOS', uri);
    return { dir, action: 'revealed' as const };
  }
  void vscode.window.showInformationMessage(`Agent Memory store: ${dir}`, 'Open in New Window', 'Copy Path').then((pick) => {
    if (pick === 'Open in New Window') void vscode.commands.executeCommand('vscode.openFolder', uri, { forceNewWindow: true });
    if (pick === 'Copy Path') void vscode.env.clipboard.writeText(dir);
  });
  return { dir, action: 'offered' as const };
}

async function switchTo(c: FolderContext, folder: vscode.WorkspaceFolder) {
  const { context, engine } = c;
  await context.workspaceState.update(PROJECT_FOLDER_KEY, folder.uri.fsPath);
  if (engine.currentInit.workspaceRoot === folder.uri.fsPath && engine.state === 'ready') return engine.ready!;
  engine.updateInit({ workspaceRoot: folder.uri.fsPath });
  const info = await engine.restart();
  c.refresh();
  return info;
}

async function switchProjectFolder(c: FolderContext, arg?: unknown) {
  const { engine } = c;
  const folders = fileFolders();
  const wanted = arg instanceof vscode.Uri ? arg.fsPath : typeof arg === 'string' ? arg : undefined;
  let folder = wanted ? folders.find((f) => f.uri.fsPath === wanted || f.name === wanted) : undefined;
  if (wanted && !folder) throw new Error(`${wanted} is not a folder of this workspace.`);
  if (!folder) {
    if (folders.length < 2) {
      void vscode.window.showInformationMessage('This workspace has one folder: its project is the one in use.');
      return engine.ready;
    }
    const pick = await vscode.window.showQuickPick(
      folders.map((f) => ({
        label: f.name,
        description: f.uri.fsPath === engine.currentInit.workspaceRoot ? '(in use)' : '',
        detail: f.uri.fsPath,
        folder: f,
      })),
      { placeHolder: "Keep memories for which workspace folder's project?" },
    );
    folder = pick?.folder;
  }
  if (!folder) return engine.ready;
  const info = await switchTo(c, folder);
  void vscode.window.showInformationMessage(`Agent Memory: now serving project ${info.projectId} (${folder.name}).`);
  return info;
}

const FOLDER_COMMAND_TABLE: Record<keyof typeof FOLDER_COMMANDS, CommandEntry<FolderContext>> = {
  openStoreFolder: { what: 'open store folder', run: openStoreFolder },
  switchProjectFolder: { what: 'switch project folder', run: switchProjectFolder },
};

/** Tells the person which folder's project is in use when the workspace has several and nothing decided. */
function noticeAmbiguousFolder({ context, engine }: FolderContext): void {
  if (!pickProjectFolder(context.workspaceState).ambiguous) return;
  const f = engine.currentInit.workspaceRoot;
  void vscode.window
    .showInformationMessage(
      `Agent Memory keeps memories per project; this workspace has ${fileFolders().length} folders and uses ${f ? path.basename(f) : 'the first'}.`,
      'Switch…',
      'Keep',
    )
    .then((pick) => {
      if (pick === 'Switch…') void vscode.commands.executeCommand(FOLDER_COMMANDS.switchProjectFolder);
      if (pick === 'Keep' && f) void context.workspaceState.update(PROJECT_FOLDER_KEY, f);
    });
}

export function registerFolderCommands(d: FolderContext & { log: Logger }): void {
  void vscode.commands.executeCommand('setContext', KEY_MULTI_ROOT, fileFolders().length > 1);
  registerCommandTable(commandRegistrar(d.context, d.log), FOLDER_COMMANDS, FOLDER_COMMAND_TABLE, d);
  noticeAmbiguousFolder(d);
}
