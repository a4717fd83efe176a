/**
 * "Agent Memory: Undo Last Change": the last change made in this window that can be undone (a
 * delete, a restore), reachable from the palette after its toast is gone. One entry: a newer
 * change replaces it; undoing clears it, so the toast's Undo and the command never undo twice.
 */
import * as vscode from 'vscode';
import { showWithOpen } from '../common/openAction';

export const UNDO_LAST_COMMAND = 'agentMemory.undoLastChange';

export interface UndoableChange {
  /** What was done, for the messages ("delete of “Deploy from main”"). */
  label: string;
  /** Reverts it (e.g. restores a deleted memory). */
  undo(): Promise<unknown>;
  /** The memory the undo brings back, offered with "Open" in the message that says it is undone. */
  reopens?: string;
}

let last: UndoableChange | undefined;

/** Remembers `change` as the one "Undo Last Change" reverts. */
export function rememberUndo(change: UndoableChange): void {
  last = change;
}

/** The change "Undo Last Change" would revert, if any. */
export function lastUndoable(): UndoableChange | undefined {
  return last;
}

/** Reverts the last change (once); undefined when there is nothing to undo. */
export async function undoLast(): Promise<string | undefined> {
  return last ? undoChange(last) : undefined;
}

/** Reverts `change` (a toast's Undo); it is no longer the last change to undo. */
export async function undoChange(change: UndoableChange): Promise<string> {
  const wasLast = last === change;
  if (wasLast) last = undefined;
  try {
    await change.undo();
  } catch (e) {
    if (wasLast) last = change; // still there to retry
    throw e;
  }
  return change.label;
}

/** The palette command; `run` is the registrar that turns failures into notifications. */
export function registerUndoCommand(run: (id: string, what: string, fn: () => Promise<string | undefined>) => void): void {
  run(UNDO_LAST_COMMAND, 'undo last change', async () => {
    const change = last;
    const label = await undoLast();
    if (label && change?.reopens) void showWithOpen(`Undone: ${label}.`, change.reopens);
    else if (label) void vscode.window.showInformationMessage(`Undone: ${label}.`);
    else void vscode.window.showInformationMessage('Nothing to undo: no memory was deleted or restored in this window since it opened.');
    return label;
  });
}
