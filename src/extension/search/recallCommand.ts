/**
 * "Agent Memory: Recall…": the @memory answer without chat. VS Code 1.139 sends a chat request
 * only when a language model is selected (README "Chat"), so with no
 * model installed the participant's handler never runs. This command asks for the question,
 * recalls the memories (both stores, as @memory does), shows them in a results document and a
 * quick pick that opens the one chosen. Programmatic use (a string argument) skips the UI.
 */
import * as vscode from 'vscode';
import type { EngineClient } from '../../engine/client/engineClient';
import type { SearchResponse } from '../../engine/protocol';
import { commandRegistrar } from '../common/commandTable';
import type { Logger } from '../host/log';
import { recallAnswer, type RecallLink } from '../../present/recall';
import { memoryUri } from '../memories/memoryFs';
import { truncate } from '../../core/text/truncate';
import { pickRow, typeHeading } from '../../present/memoryRowText';

export const RECALL_COMMAND = 'agentMemory.recall';
const RECALL_SCHEME = 'agent-memory-recall';
const RECALL_LIMIT = 6;

export interface RecallOutcome {
  query: string;
  response: SearchResponse;
  text: string;
  /** The results document (read-only, with a link on each "Open"); shown unless the question came as an argument. */
  uri: vscode.Uri;
}

interface RecallDocument {
  text: string;
  /** Each "Open" of the text and the memory document it opens. */
  links: { at: RecallLink; target: vscode.Uri }[];
}

/**
 * Holds the latest answers, one document per question (read-only, in memory). Each memory's
 * "Open" is a link the editor underlines (Ctrl+click): the address lives here, not in the text.
 */
class RecallDocuments implements vscode.TextDocumentContentProvider, vscode.DocumentLinkProvider {
  private readonly docs = new Map<string, RecallDocument>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;

  put(query: string, response: SearchResponse): vscode.Uri {
    const name = truncate(query.replace(/[^\p{L}\p{N} _-]+/gu, '').trim(), 50) || 'recall';
    const uri = vscode.Uri.from({ scheme: RECALL_SCHEME, path: `/Recall - ${name}.md` });
    const { text, links } = recallAnswer(query, response.hits);
    const target = (i: number) => {
      const h = response.hits[i]!;
      return memoryUri(h.memory.id, h.memory.title, h.content);
    };
    this.docs.set(uri.toString(), { text, links: links.map((at) => ({ at, target: target(at.hit) })) });
    this.changed.fire(uri);
    return uri;
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.docs.get(uri.toString())?.text ?? '';
  }

  provideDocumentLinks(doc: vscode.TextDocument): vscode.DocumentLink[] {
    const kept = this.docs.get(doc.uri.toString());
    // Only while the document still shows the text the links were made for.
    if (!kept || doc.getText() !== kept.text) return [];
    return kept.links.map(({ at, target }) => {
      const link = new vscode.DocumentLink(new vscode.Range(doc.positionAt(at.start), doc.positionAt(at.end)), target);
      link.tooltip = 'Open this memory';
      return link;
    });
  }
}

export function registerRecallCommand(
  context: vscode.ExtensionContext,
  engine: EngineClient,
  log: Logger,
  onRecall: (r: SearchResponse) => void,
): void {
  const docs = new RecallDocuments();
  context.subscriptions.push(
    vscode.workspace.registerTextDocumentContentProvider(RECALL_SCHEME, docs),
    vscode.languages.registerDocumentLinkProvider({ scheme: RECALL_SCHEME }, docs),
  );
  const run = commandRegistrar(context, log);
  run(RECALL_COMMAND, 'recall', async (q?: unknown): Promise<RecallOutcome | undefined> => {
    const query =
      typeof q === 'string'
        ? q
        : await vscode.window.showInputBox({
            title: 'Recall',
            prompt: "Ask what this project's memory knows",
            ignoreFocusOut: true,
            placeHolder: 'e.g. which port does the staging database use?',
          });
    if (!query?.trim()) return undefined;
    // The recalled memories are the answer: a deliberate use (docs/lifecycle.md "Access").
    const response = await engine.request('search', { query, limit: RECALL_LIMIT, recordAccess: true });
    onRecall(response);
    const uri = docs.put(query, response);
    const text = docs.provideTextDocumentContent(uri);
    if (typeof q === 'string') return { query, response, text, uri };
    const doc = await vscode.workspace.openTextDocument(uri);
    await vscode.languages.setTextDocumentLanguage(doc, 'markdown');
    await vscode.window.showTextDocument(doc, { preview: true });
    if (response.hits.length) await pickAndOpen(query, response);
    else void vscode.window.showInformationMessage(`No relevant memories about "${query}".`);
    return { query, response, text, uri };
  });
}

async function pickAndOpen(query: string, r: SearchResponse): Promise<void> {
  const pick = await vscode.window.showQuickPick(
    r.hits.map((h) => ({
      // Untitled, or titled with the start of its text: the text once, as the label.
      ...pickRow(h.memory.title, h.content),
      description: `${typeHeading(h.memory.type)}${h.store === 'global' ? ' · global' : ''}`,
      id: h.memory.id,
    })),
    { title: `Recall: ${query}`, matchOnDetail: true, placeHolder: `${r.hits.length} recalled — pick one to open it` },
  );
  if (pick) await vscode.commands.executeCommand('agentMemory.openMemory', pick.id);
}
