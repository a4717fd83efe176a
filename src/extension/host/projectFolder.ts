/**
 * Multi-root workspaces: which folder's project the engine serves. Each workspace folder
 * resolves its own project id (src/core/project); one engine serves one project at a time.
 * Order: the folder chosen before (per workspace, "Switch Project Folder…"), else the folder
 * of the active editor, else the first folder — then the choice is ambiguous and the user is
 * told and offered to switch.
 */
import * as vscode from 'vscode';

export const PROJECT_FOLDER_KEY = 'agentMemory.projectFolder';

export interface FolderChoice {
  folder: vscode.WorkspaceFolder | undefined;
  /** More than one folder and nothing decided which: the user should be asked. */
  ambiguous: boolean;
}

export function fileFolders(): readonly vscode.WorkspaceFolder[] {
  return (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file');
}

export function pickProjectFolder(state: vscode.Memento): FolderChoice {
  const folders = fileFolders();
  if (folders.length <= 1) return { folder: folders[0], ambiguous: false };
  const saved = state.get<string>(PROJECT_FOLDER_KEY);
  const chosen = saved ? folders.find((f) => f.uri.fsPath === saved) : undefined;
  if (chosen) return { folder: chosen, ambiguous: false };
  const active = vscode.window.activeTextEditor?.document.uri;
  const ofEditor = active ? vscode.workspace.getWorkspaceFolder(active) : undefined;
  if (ofEditor && ofEditor.uri.scheme === 'file') return { folder: ofEditor, ambiguous: false };
  return { folder: folders[0], ambiguous: true };
}
