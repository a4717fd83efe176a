// Extension entry point (UI thread of the extension host). Minimal for now: it proves the
// extension loads in a real VS Code and gives a diagnostics command; the engine, views and
// chat integration plug in here later (see shared DESIGN.md, "Shape").
import * as vscode from 'vscode';

export const OUTPUT_CHANNEL_NAME = 'Agent Memory';
export const COMMAND_SHOW_DIAGNOSTICS = 'agentMemory.showDiagnostics';

/** What "Agent Memory: Show Diagnostics" reports (also its return value, used by tests). */
export interface Diagnostics {
  active: true;
  extensionVersion: string;
  vscodeVersion: string;
  appHost: string;
  uiKind: 'desktop' | 'web';
  extensionMode: 'production' | 'development' | 'test';
  node: string;
  platform: string;
  workspaceFolders: string[];
  globalStorage: string;
  workspaceStorage: string | undefined;
}

/** The API returned by `activate` (what `vscode.extensions.getExtension(...).exports` gives). */
export interface AgentMemoryApi {
  diagnostics(): Diagnostics;
}

function modeName(mode: vscode.ExtensionMode): Diagnostics['extensionMode'] {
  switch (mode) {
    case vscode.ExtensionMode.Development: return 'development';
    case vscode.ExtensionMode.Test: return 'test';
    default: return 'production';
  }
}

function collectDiagnostics(context: vscode.ExtensionContext): Diagnostics {
  const pkg = context.extension.packageJSON as { version?: unknown };
  return {
    active: true,
    extensionVersion: typeof pkg.version === 'string' ? pkg.version : 'unknown',
    vscodeVersion: vscode.version,
    appHost: vscode.env.appHost,
    uiKind: vscode.env.uiKind === vscode.UIKind.Web ? 'web' : 'desktop',
    extensionMode: modeName(context.extensionMode),
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
    workspaceFolders: (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath),
    globalStorage: context.globalStorageUri.fsPath,
    workspaceStorage: context.storageUri?.fsPath,
  };
}

export function activate(context: vscode.ExtensionContext): AgentMemoryApi {
  const output = vscode.window.createOutputChannel(OUTPUT_CHANNEL_NAME);
  const log = (line: string) => output.appendLine(`[${new Date().toISOString()}] ${line}`);
  context.subscriptions.push(output);

  context.subscriptions.push(
    vscode.commands.registerCommand(COMMAND_SHOW_DIAGNOSTICS, (): Diagnostics => {
      const d = collectDiagnostics(context);
      log('Diagnostics');
      for (const [key, value] of Object.entries(d)) {
        output.appendLine(`  ${key}: ${Array.isArray(value) ? value.join(', ') || '(none)' : String(value)}`);
      }
      output.show(true);
      // Not awaited: the promise settles only when the notification is dismissed.
      void vscode.window.showInformationMessage('Agent Memory is active');
      return d;
    }),
  );

  log(`Agent Memory ${collectDiagnostics(context).extensionVersion} activated ` +
    `(VS Code ${vscode.version}, ${modeName(context.extensionMode)} mode)`);
  return { diagnostics: () => collectDiagnostics(context) };
}

export function deactivate(): void {
  // Disposables registered on context.subscriptions are released by VS Code.
}
