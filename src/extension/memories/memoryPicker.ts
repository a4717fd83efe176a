/**
 * "Which memory?": the one picker every command uses when it was given no memory (open, edit,
 * delete, make permanent, show history). It asks for search text first — empty lists the most
 * recent — and shows at most PICK_LIMIT memories, each as its row text (src/present/memoryRowText.ts)
 * with its kind and, for a global memory, "global".
 */
import * as vscode from 'vscode';
import type { EngineClient } from '../../engine/client/engineClient';
import type { MemorySummary } from '../../engine/protocol';
import { pickRow, typeHeading } from '../../present/memoryRowText';

/** How many memories the picker offers: the search's best, or the most recent. */
export const PICK_LIMIT = 30;

/** Keeps the memories an action applies to; `none` says why there are none (e.g. all are permanent already). */
export interface PickFilter {
  keep(m: MemorySummary): boolean;
  none: string;
}

/** A memory picked from a search (or the newest); undefined when the person cancelled or none applies. */
export async function pickMemory(engine: EngineClient, placeHolder: string, only?: PickFilter): Promise<string | undefined> {
  const query = await vscode.window.showInputBox({ prompt: placeHolder, placeHolder: 'Search text (empty: most recent)' });
  if (query === undefined) return undefined;
  const found = query.trim()
    ? (await engine.request('search', { query, limit: PICK_LIMIT, recordAccess: false })).hits.map((h) => h.memory)
    : (await engine.request('memory.list', { limit: PICK_LIMIT })).items;
  const items = only ? found.filter((m) => only.keep(m)) : found;
  if (only && found.length && !items.length) {
    void vscode.window.showInformationMessage(only.none);
    return undefined;
  }
  const pick = await vscode.window.showQuickPick(
    items.map((m) => ({
      ...pickRow(m.title, m.preview), // the text once, under a title of its own
      description: `${typeHeading(m.type)}${m.scope === 'global' ? ' · global' : ''}`,
      id: m.id,
    })),
    { placeHolder, matchOnDescription: true, matchOnDetail: true },
  );
  return pick?.id;
}
