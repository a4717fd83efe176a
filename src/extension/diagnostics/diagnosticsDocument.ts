/** The read-only "Agent Memory Diagnostics" document that Show Diagnostics opens (diagnosticsSummary.ts writes it). */
import * as vscode from 'vscode';
import { wrapLines } from '../../core/text/wrap';

/** The report's lines are broken at this width: the editor shows it without word wrap. */
const REPORT_WIDTH = 100;

const SCHEME = 'agent-memory-diagnostics';
const URI = vscode.Uri.from({ scheme: SCHEME, path: '/Agent Memory Diagnostics' });

class DiagnosticsDocument implements vscode.TextDocumentContentProvider {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  text = '';

  provideTextDocumentContent(): string {
    return this.text;
  }

  set(text: string): void {
    this.text = text;
    this.changed.fire(URI);
  }
}

let provider: DiagnosticsDocument | undefined;

/** Shows `text` in the diagnostics document (registered on first use). */
export async function showDiagnosticsDocument(context: vscode.ExtensionContext, text: string): Promise<void> {
  if (!provider) {
    provider = new DiagnosticsDocument();
    context.subscriptions.push(vscode.workspace.registerTextDocumentContentProvider(SCHEME, provider));
  }
  provider.set(wrapLines(text, REPORT_WIDTH));
  const doc = await vscode.workspace.openTextDocument(URI);
  await vscode.window.showTextDocument(doc, { preview: true });
}
