/**
 * Documents the extension shows for reading only (a reminder's runs): a virtual, read-only
 * Markdown document per title. An untitled document would be left dirty, so closing it, or the
 * window, asked to save a file nobody meant to keep, and VS Code restored it in the next window.
 */
import * as vscode from 'vscode';

const SCHEME = 'agent-memory-view';
const texts = new Map<string, string>();
const changed = new vscode.EventEmitter<vscode.Uri>();

/** Registers the provider of the read-only documents (once, at activation). */
export function registerReadOnlyDocuments(context: vscode.ExtensionContext): void {
  context.subscriptions.push(
    changed,
    vscode.workspace.registerTextDocumentContentProvider(SCHEME, {
      onDidChange: changed.event,
      provideTextDocumentContent: (uri) => texts.get(uri.path) ?? '',
    }),
  );
}

/** Shows `text` as the read-only Markdown document `title` (its content replaced when shown again). */
export async function showReadOnlyMarkdown(title: string, text: string): Promise<void> {
  const uri = vscode.Uri.from({ scheme: SCHEME, path: `/${title.replace(/[/\\]/g, '-')}.md` });
  texts.set(uri.path, text);
  changed.fire(uri);
  const doc = await vscode.workspace.openTextDocument(uri);
  await vscode.languages.setTextDocumentLanguage(doc, 'markdown');
  await vscode.window.showTextDocument(doc, { preview: true });
}
