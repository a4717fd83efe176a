/**
 * Memory documents in the editor (docs/editing.md): registers the `agent-memory:` file system
 * (memoryFs.ts), gives every editable memory document the "agent-memory" language (markdown with
 * word wrap, no auto save), confirms each save
 * in the status bar, and opens a memory for editing ("Open" and "Edit" both do).
 */
import * as vscode from 'vscode';
import type { EngineClient } from '../../engine/client/engineClient';
import type { MemoryRecord } from '../../engine/protocol';
import { editableAddress, MEMORY_LANGUAGE, MEMORY_SCHEME, MemoryFileSystem, memoryUri } from './memoryFs';
import { renderMemory } from './memoryFsFormat';
import { memoryName } from './memoryFsNames';
import { memoryGoneError } from '../../present/errorText';
import { describeRedacted } from '../../present/createResultText';

export { MEMORY_SCHEME, memoryUri };

/** Gives an editable memory document its language (a document opened any way: tree, chat reference, quick open). */
async function adopt(doc: vscode.TextDocument): Promise<vscode.TextDocument> {
  if (!editableAddress(doc.uri) || doc.languageId === MEMORY_LANGUAGE) return doc;
  return vscode.languages.setTextDocumentLanguage(doc, MEMORY_LANGUAGE);
}

/**
 * After a save the editor keeps the text as typed, but the engine stores it normalized (tags in
 * lower case, whitespace collapsed, a new version number in the comment line): show what is
 * stored, so the next edit starts from it. Revert of an unmodified document re-reads it.
 * A new title renames the tab: the document reopens under its new name.
 */
async function showStored(engine: EngineClient, doc: vscode.TextDocument): Promise<void> {
  const a = editableAddress(doc.uri);
  if (!a) return;
  const m = await engine.request('memory.get', { id: a.id });
  const editor = vscode.window.activeTextEditor;
  if (!m || doc.isDirty || editor?.document !== doc) return;
  const named = memoryUri(m.id, m.title, m.content);
  // Only a title renames: an untitled memory keeps its tab name while its first words are edited.
  if (m.title.trim() && named.path !== doc.uri.path) return reopenAs(doc, named, editor.viewColumn);
  if (doc.getText() === renderMemory(m)) return;
  await vscode.commands.executeCommand('workbench.action.files.revert', doc.uri);
}

async function reopenAs(doc: vscode.TextDocument, uri: vscode.Uri, viewColumn: vscode.ViewColumn | undefined): Promise<void> {
  const old = vscode.window.tabGroups.all
    .flatMap((g) => g.tabs)
    .filter((t) => t.input instanceof vscode.TabInputText && t.input.uri.toString() === doc.uri.toString());
  await vscode.window.showTextDocument(await adopt(await vscode.workspace.openTextDocument(uri)), { viewColumn, preview: false });
  await vscode.window.tabGroups.close(old, true);
}

export function registerMemoryDocuments(context: vscode.ExtensionContext, engine: EngineClient): MemoryFileSystem {
  const fs = new MemoryFileSystem(engine, {
    saved: (m, moved) => {
      const name = memoryName(m.title, m.content);
      vscode.window.setStatusBarMessage(`$(check) Memory saved: ${name} (version ${m.version})`, 5000);
      // The secret guard changed the text (docs/secrets.md): say so where it cannot be missed.
      if (m.redacted?.length) void vscode.window.showWarningMessage(`“${name}”: ${describeRedacted(m.redacted)}`);
      if (moved) {
        // A scope change moves the memory to the other store under a new id: open it there.
        void vscode.window.showInformationMessage(`"${name}" moved to the ${m.scope === 'global' ? 'global' : 'project'} store.`);
        void openMemoryDocument(engine, m.id);
      }
    },
  });
  context.subscriptions.push(
    fs,
    vscode.workspace.registerFileSystemProvider(MEMORY_SCHEME, fs, { isCaseSensitive: true }),
    vscode.workspace.onDidOpenTextDocument((d) => void adopt(d)),
    vscode.workspace.onDidSaveTextDocument((d) => void showStored(engine, d).catch(() => undefined)),
  );
  for (const d of vscode.workspace.textDocuments) void adopt(d);
  return fs;
}

/** Opens a memory as an editable document (a pinned tab: it is meant to be edited). */
export async function openMemoryDocument(engine: EngineClient, id: string): Promise<MemoryRecord> {
  const m = await engine.request('memory.get', { id });
  if (!m) throw memoryGoneError();
  const doc = await adopt(await vscode.workspace.openTextDocument(memoryUri(m.id, m.title, m.content)));
  await vscode.window.showTextDocument(doc, { preview: false });
  return m;
}
