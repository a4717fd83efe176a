/**
 * Wrong values in a memory document are shown where people look (docs/editing.md): each is
 * underlined at the value and listed in the Problems panel while the person types, and Ctrl+S on
 * a document with one says in words what is wrong and selects it, instead of the save failing
 * with VS Code's "Unable to write file … (FileSystemError)". Other ways of saving (Save All,
 * closing with Save) still reach the file system provider, which refuses with the same words.
 */
import * as vscode from 'vscode';
import { editableAddress } from './memoryFs';
import { memoryDocumentProblems, notSavedMessage } from './memoryFsFormat';
import type { CommandId, ContextKey } from '../commandIds';

export const SAVE_MEMORY_DOCUMENT = 'agentMemory.saveMemoryDocument' satisfies CommandId;
/** True while the active editor shows a memory document with a wrong value (package.json keybinding). */
const INVALID_CONTEXT = 'agentMemory.memoryDocumentInvalid' satisfies ContextKey;

export function registerMemoryDiagnostics(context: vscode.ExtensionContext): vscode.DiagnosticCollection {
  const collection = vscode.languages.createDiagnosticCollection('agent-memory-documents');
  let invalid: boolean | undefined;
  const setInvalid = (value: boolean) => {
    if (value === invalid) return;
    invalid = value;
    void vscode.commands.executeCommand('setContext', INVALID_CONTEXT, value);
  };
  const activeChanged = () => {
    const doc = vscode.window.activeTextEditor?.document;
    setInvalid(!!doc && (collection.get(doc.uri)?.length ?? 0) > 0);
  };
  const check = (doc: vscode.TextDocument) => {
    if (!editableAddress(doc.uri)) return;
    collection.set(doc.uri, problemsOf(doc));
    if (doc === vscode.window.activeTextEditor?.document) activeChanged();
  };

  context.subscriptions.push(
    collection,
    vscode.workspace.onDidOpenTextDocument(check),
    vscode.workspace.onDidChangeTextDocument((e) => check(e.document)),
    vscode.workspace.onDidCloseTextDocument((d) => collection.delete(d.uri)),
    vscode.window.onDidChangeActiveTextEditor(activeChanged),
    vscode.commands.registerCommand(SAVE_MEMORY_DOCUMENT, saveOrExplain),
  );
  for (const d of vscode.workspace.textDocuments) check(d);
  activeChanged();
  return collection;
}

function problemsOf(doc: vscode.TextDocument): vscode.Diagnostic[] {
  return memoryDocumentProblems(doc.getText()).map((p) => {
    const range = new vscode.Range(doc.positionAt(p.start), doc.positionAt(p.end));
    const d = new vscode.Diagnostic(range, p.message, vscode.DiagnosticSeverity.Error);
    d.source = 'Agent Memory';
    return d;
  });
}

/**
 * Ctrl+S on a memory document with a wrong value (the keybinding's `when`): select the first
 * wrong value and say what is wrong; without one (fixed meanwhile), the ordinary save.
 */
async function saveOrExplain(): Promise<boolean> {
  const editor = vscode.window.activeTextEditor;
  const doc = editor?.document;
  const problem = doc && editableAddress(doc.uri) ? memoryDocumentProblems(doc.getText())[0] : undefined;
  if (!editor || !doc || !problem) {
    await vscode.commands.executeCommand('workbench.action.files.save');
    return true;
  }
  const range = new vscode.Range(doc.positionAt(problem.start), doc.positionAt(problem.end));
  editor.selection = new vscode.Selection(range.start, range.end);
  editor.revealRange(range, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
  void vscode.window.showErrorMessage(notSavedMessage(problem), 'Show Problems').then((pick) => {
    if (pick) void vscode.commands.executeCommand('workbench.actions.view.problems');
  });
  return false;
}
