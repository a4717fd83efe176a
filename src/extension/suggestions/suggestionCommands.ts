/**
 * Commands of the Suggestions view (docs/consolidation.md "Reviewing suggestions"): accept shows
 * the merge first — a diff of both memories (left) against the memory the merge writes (right),
 * in read-only virtual documents — and merges only on "Merge"; the "Merged" notification offers
 * Undo, which brings both memories back. Reject, open either side, show and refresh the view.
 */
import * as vscode from 'vscode';
import type { EngineClient } from '../../engine/client/engineClient';
import type { MemoryRecord, Suggestion, SuggestionPreview } from '../../engine/protocol';
import { truncateLine } from '../../core/text/truncate';
import type { Logger } from '../host/log';
import { type commandRegistrar, reportError } from '../common/commandTable';
import { bothSidesText, mergePreviewTitle, sentenceLines } from './mergePreviewText';
import { SUGGESTIONS_VIEW_ID, type SuggestionNode, type SuggestionsProvider } from './suggestionsView';
import type { CommandId } from '../commandIds';

export const SUGGESTION_COMMANDS = {
  accept: 'agentMemory.acceptSuggestion',
  reject: 'agentMemory.rejectSuggestion',
  openA: 'agentMemory.openSuggestionMemoryA',
  openB: 'agentMemory.openSuggestionMemoryB',
  show: 'agentMemory.showSuggestions',
  refresh: 'agentMemory.refreshSuggestions',
} as const satisfies Record<string, CommandId>;

/** Scheme of the merge preview's read-only documents. */
export const MERGE_PREVIEW_SCHEME = 'agent-memory-merge';

/** Options of a programmatic acceptSuggestion(id, options). */
export interface AcceptOptions {
  /** Show the merge and ask first (default). Tests and other extensions may merge directly. */
  preview?: boolean;
}

export function suggestionIdOf(arg: unknown): string | undefined {
  if (typeof arg === 'string') return arg;
  const n = arg as SuggestionNode | { id?: unknown } | undefined;
  if (n && typeof n === 'object') {
    if ('kind' in n && n.kind === 'suggestion') return n.suggestion.id;
    if ('kind' in n && n.kind === 'side') return n.suggestionId;
    if ('id' in n && typeof n.id === 'string') return n.id;
  }
  return undefined;
}

/** The texts of the merge preview documents, by URI. */
class PreviewDocuments implements vscode.TextDocumentContentProvider {
  private readonly texts = new Map<string, string>();

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.toString()) ?? '';
  }

  set(suggestionId: string, name: string, text: string): vscode.Uri {
    const uri = vscode.Uri.from({ scheme: MERGE_PREVIEW_SCHEME, path: `/${suggestionId}/${name}` });
    this.texts.set(uri.toString(), text);
    return uri;
  }

  forget(uri: vscode.Uri): void {
    this.texts.delete(uri.toString());
  }
}

const memoryName = (m: { title: string; content?: string; preview?: string }) => truncateLine(m.title || m.content || m.preview || '', 50);

export function registerSuggestionCommands(d: {
  context: vscode.ExtensionContext;
  engine: EngineClient;
  log: Logger;
  suggestions: SuggestionsProvider;
  run: ReturnType<typeof commandRegistrar>;
}): void {
  const { context, engine, log, suggestions, run } = d;
  const docs = new PreviewDocuments();
  context.subscriptions.push(vscode.workspace.registerTextDocumentContentProvider(MERGE_PREVIEW_SCHEME, docs));

  const pickSuggestion = async (placeHolder: string): Promise<string | undefined> => {
    const list = await engine.request('suggestions.list', { status: 'pending' });
    if (!list.length) {
      void vscode.window.showInformationMessage('No consolidation suggestions are waiting.');
      return undefined;
    }
    const pick = await vscode.window.showQuickPick(
      list.map((s: Suggestion) => ({
        label: `${memoryName(s.a)} ↔ ${memoryName(s.b)}`,
        description: `${Math.round(s.similarity * 100)}% similar`,
        id: s.id,
      })),
      { placeHolder },
    );
    return pick?.id;
  };

  /** Opens the diff and asks; true on "Merge". The diff closes either way. */
  const confirmMerge = async (p: SuggestionPreview): Promise<boolean> => {
    const left = docs.set(p.id, 'A + B.md', bothSidesText(p.a, p.b));
    const right = docs.set(p.id, 'merged.md', sentenceLines(p));
    try {
      await vscode.commands.executeCommand('vscode.diff', left, right, mergePreviewTitle(p.a, p.b), { preview: true });
      const pick = await vscode.window.showInformationMessage(
        `Merge these two memories (${Math.round(p.similarity * 100)}% similar)? The editor shows both as they are (left) and the merged memory (right).`,
        'Merge',
        'Cancel',
      );
      return pick === 'Merge';
    } finally {
      await closeDiff(right);
      docs.forget(left);
      docs.forget(right);
    }
  };

  /** "Merged — Undo": Undo brings both memories back and the suggestion with them. */
  const offerUndo = async (id: string, merged: MemoryRecord): Promise<void> => {
    const pick = await vscode.window.showInformationMessage(
      `Merged — the two memories are now one: "${memoryName(merged)}".`,
      'Undo',
      'Open',
    );
    if (pick === 'Open') await vscode.commands.executeCommand('agentMemory.openMemory', merged.id);
    if (pick !== 'Undo') return;
    await engine.request('suggestions.undo', { id });
    suggestions.refresh();
    void vscode.window.showInformationMessage('Merge undone: both memories are back.');
  };

  run(SUGGESTION_COMMANDS.accept, 'accept suggestion', async (arg?: unknown, opts: AcceptOptions = {}) => {
    const id = suggestionIdOf(arg) ?? (await pickSuggestion('Merge which pair? (B is merged into A)'));
    if (!id) return undefined;
    if (opts.preview !== false && !(await confirmMerge(await engine.request('suggestions.preview', { id })))) return undefined;
    const merged = await engine.request('suggestions.accept', { id });
    suggestions.refresh();
    offerUndo(id, merged).catch((e: unknown) => reportError(log, 'undo merge', e));
    return merged;
  });
  run(SUGGESTION_COMMANDS.reject, 'reject suggestion', async (arg?: unknown) => {
    const id = suggestionIdOf(arg) ?? (await pickSuggestion('Dismiss which suggestion?'));
    if (!id) return undefined;
    const r = await engine.request('suggestions.reject', { id });
    suggestions.refresh();
    return r;
  });
  const openSide = (side: 'a' | 'b') => async (arg?: unknown) => {
    const n = arg as SuggestionNode | undefined;
    const memory = n?.kind === 'suggestion' ? n.suggestion[side] : undefined;
    if (!memory) throw new Error('Run this on a suggestion in the Suggestions view.');
    return vscode.commands.executeCommand('agentMemory.openMemory', memory.id);
  };
  run(SUGGESTION_COMMANDS.openA, 'open memory A', openSide('a'));
  run(SUGGESTION_COMMANDS.openB, 'open memory B', openSide('b'));
  run(SUGGESTION_COMMANDS.show, 'show suggestions', async () => {
    await vscode.commands.executeCommand(`${SUGGESTIONS_VIEW_ID}.focus`);
    return engine.request('suggestions.list', { status: 'pending' });
  });
  run(SUGGESTION_COMMANDS.refresh, 'refresh suggestions', async () => suggestions.refresh());
}

async function closeDiff(modified: vscode.Uri): Promise<void> {
  const tabs = vscode.window.tabGroups.all.flatMap((g) => g.tabs);
  const tab = tabs.find((t) => t.input instanceof vscode.TabInputTextDiff && t.input.modified.toString() === modified.toString());
  if (tab) await vscode.window.tabGroups.close(tab);
}
