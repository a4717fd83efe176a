/**
 * "Agent Memory: Show Memory History…" (docs/editing.md "History"): a memory's versions in a
 * quick pick, newest first; for each, "Compare with Current" (a diff of the read-only old
 * version and the editable document) and "Restore This Version" (memory.restoreVersion: a new
 * version with the old text and fields, undoable from the notification or this same history).
 */
import * as vscode from 'vscode';
import type { EngineClient } from '../../engine/client/engineClient';
import { EngineError } from '../../engine/errors';
import type { MemoryRecord } from '../../engine/protocol';
import { commandRegistrar } from '../common/commandTable';
import type { Logger } from '../host/log';
import { editableAddress, memoryIdOfUri, memoryUri, versionUri } from '../memories/memoryFs';
import { memoryName, parseAddress } from '../memories/memoryFsNames';
import { timelineEntries, type TimelineEntry } from './historyTimeline';
import { pickMemory } from '../memories/memoryPicker';
import { memoryGoneError } from '../../present/errorText';
import type { CommandId } from '../commandIds';

export const HISTORY_COMMANDS = {
  showHistory: 'agentMemory.showHistory',
  compareVersion: 'agentMemory.compareVersion',
  restoreVersion: 'agentMemory.restoreVersion',
} as const satisfies Record<string, CommandId>;

type VersionItem = vscode.QuickPickItem & { entry: TimelineEntry };
type Action = 'compare' | 'restore' | 'open';

const COMPARE: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon('diff'), tooltip: 'Compare with Current' };
const RESTORE: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon('discard'), tooltip: 'Restore This Version' };

/** A memory id from a command argument: an id, a tree node, `{ id }`, a memory document's URI, or the active memory editor. */
function idFrom(arg: unknown): string | undefined {
  if (typeof arg === 'string') return arg;
  if (arg instanceof vscode.Uri) return memoryIdOfUri(arg);
  if (arg && typeof arg === 'object') {
    const o = arg as { kind?: string; memory?: { id?: unknown }; id?: unknown };
    if (o.kind === 'memory' && typeof o.memory?.id === 'string') return o.memory.id;
    if (typeof o.id === 'string') return o.id;
  }
  const active = vscode.window.activeTextEditor?.document.uri;
  return active ? memoryIdOfUri(active) : undefined;
}

async function getMemory(engine: EngineClient, id: string): Promise<MemoryRecord> {
  const m = await engine.request('memory.get', { id });
  if (!m) throw memoryGoneError();
  return m;
}

/** The compare tab's title: the memory's name and the version compared (redone when the name changes). */
function compareLabel(m: MemoryRecord, version: number): string {
  return `${memoryName(m.title, m.content)}: Version ${version} ↔ Current`;
}

/** Old version (read-only) on the left, the editable memory on the right. */
export async function compareWithCurrent(engine: EngineClient, id: string, version: number): Promise<void> {
  const m = await getMemory(engine, id);
  await vscode.commands.executeCommand(
    'vscode.diff',
    versionUri(m, version),
    memoryUri(m.id, m.title, m.content),
    compareLabel(m, version),
  );
}

/** Open "Version N ↔ Current" tabs of memory `id`, with the version each compares. */
function compareTabs(id: string): { tab: vscode.Tab; input: vscode.TabInputTextDiff; version: number }[] {
  return vscode.window.tabGroups.all.flatMap((g) =>
    g.tabs.flatMap((tab) => {
      const input = tab.input;
      if (!(input instanceof vscode.TabInputTextDiff) || editableAddress(input.modified)?.id !== id) return [];
      const left = input.original.scheme === input.modified.scheme ? parseAddress(input.original.path, input.original.query) : undefined;
      return left?.id === id && left.version !== undefined ? [{ tab, input, version: left.version }] : [];
    }),
  );
}

/**
 * A compare tab's title is fixed when it opens (vscode.diff's label), so after a change of the
 * memory's name (a restore, an edit elsewhere) it kept the old name. The compare opens again in
 * its place, its left side addressed by the new name (a new editor: VS Code would otherwise show
 * the open one again), then the old tab closes. One whose right side has unsaved changes is left as it is.
 */
async function retitleCompareTabs(engine: EngineClient, id: string): Promise<void> {
  const tabs = compareTabs(id);
  if (!tabs.length) return;
  const m = await engine.request('memory.get', { id });
  if (!m) return;
  for (const { tab, input, version } of tabs) {
    const original = versionUri(m, version);
    const dirty = vscode.workspace.textDocuments.some((d) => d.isDirty && d.uri.toString() === input.modified.toString());
    if (tab.label === compareLabel(m, version) || original.toString() === input.original.toString() || dirty) continue;
    const group = tab.group;
    await vscode.commands.executeCommand('vscode.diff', original, input.modified, compareLabel(m, version), {
      viewColumn: group.viewColumn,
      preview: tab.isPreview,
      preserveFocus: !tab.isActive,
    });
    const old = group.tabs.filter(
      (t) => t.input instanceof vscode.TabInputTextDiff && t.input.original.toString() === input.original.toString(),
    );
    if (old.length) await vscode.window.tabGroups.close(old, true);
  }
}

/** Restores a version and offers Undo (restoring the version that was current). */
export async function restoreVersion(engine: EngineClient, log: Logger, id: string, version: number): Promise<MemoryRecord> {
  const before = await getMemory(engine, id);
  const after = await engine.request('memory.restoreVersion', { id, version, expectedVersion: before.version });
  const name = memoryName(after.title, after.content);
  const message =
    after.version === before.version
      ? `"${name}" already has the text and fields of version ${version}.`
      : `Restored version ${version} of "${name}" (saved as version ${after.version}).`;
  log.info(message);
  void vscode.window.showInformationMessage(message, ...(after.version === before.version ? [] : ['Undo'])).then(async (pick) => {
    if (pick !== 'Undo') return;
    try {
      await engine.request('memory.restoreVersion', { id, version: before.version, expectedVersion: after.version });
    } catch (e) {
      log.error('undo restore', e);
      void vscode.window.showErrorMessage(`Could not undo the restore: ${(e as Error).message}`);
    }
  });
  return after;
}

/** The timeline quick pick; resolves when it closes (after the chosen action ran). */
async function showTimeline(engine: EngineClient, log: Logger, id: string): Promise<{ version: number; action: Action } | undefined> {
  const m = await getMemory(engine, id);
  const entries = timelineEntries(await engine.request('memory.versions', { id }), m.version);
  const qp = vscode.window.createQuickPick<VersionItem>();
  qp.title = `History of "${memoryName(m.title, m.content)}"`;
  qp.placeholder = 'Pick a version to compare with the current one or to restore it';
  qp.matchOnDetail = true;
  qp.items = entries.map((entry) => ({
    entry,
    label: entry.label,
    description: entry.description,
    detail: entry.detail,
    tooltip: entry.when,
    buttons: entry.current ? [] : [COMPARE, RESTORE],
  }));
  const chosen = await new Promise<{ version: number; action: Action } | undefined>((resolve) => {
    qp.onDidTriggerItemButton((e) => resolve({ version: e.item.entry.version, action: e.button === COMPARE ? 'compare' : 'restore' }));
    qp.onDidAccept(() => {
      const item = qp.selectedItems[0];
      resolve(item ? { version: item.entry.version, action: 'open' } : undefined);
    });
    qp.onDidHide(() => resolve(undefined));
    qp.show();
  });
  qp.dispose();
  if (!chosen) return undefined;
  const action = chosen.action === 'open' ? await pickAction(chosen.version, chosen.version === m.version) : chosen.action;
  if (!action) return undefined;
  if (action === 'compare') await compareWithCurrent(engine, id, chosen.version);
  else if (action === 'restore') await restoreVersion(engine, log, id, chosen.version);
  else await vscode.window.showTextDocument(versionUri(m, chosen.version), { preview: true });
  return { version: chosen.version, action };
}

async function pickAction(version: number, current: boolean): Promise<Action | undefined> {
  const items: (vscode.QuickPickItem & { action: Action })[] = [
    ...(current
      ? []
      : [
          { label: '$(diff) Compare with Current', action: 'compare' as const },
          {
            label: '$(discard) Restore This Version',
            detail: 'Saved as a new version; the current one stays in the history.',
            action: 'restore' as const,
          },
        ]),
    { label: '$(go-to-file) Open This Version', detail: 'Read-only', action: 'open' as const },
  ];
  return (
    await vscode.window.showQuickPick(items, { title: `Version ${version}`, placeHolder: 'What do you want to do with this version?' })
  )?.action;
}

export function registerHistoryCommands(context: vscode.ExtensionContext, engine: EngineClient, log: Logger): void {
  const run = commandRegistrar(context, log);
  context.subscriptions.push(
    engine.onEvent((e) => {
      if (e.type !== 'memory.changed' || e.kind === 'deleted' || e.kind === 'expired') return;
      for (const id of e.ids) retitleCompareTabs(engine, id).catch((err: unknown) => log.error('compare tab title', err));
    }),
  );
  run(HISTORY_COMMANDS.showHistory, 'show memory history', async (arg?: unknown) => {
    const id = idFrom(arg) ?? (await pickMemory(engine, 'Show the history of which memory?'));
    return id ? showTimeline(engine, log, id) : undefined;
  });
  // With arguments (tests, other extensions): the same actions without the pick.
  run(HISTORY_COMMANDS.compareVersion, 'compare memory versions', async (id: unknown, version: unknown) => {
    if (typeof id !== 'string' || typeof version !== 'number')
      throw new EngineError('invalid_input', 'Give a memory id and a version number.');
    await compareWithCurrent(engine, id, version);
  });
  run(HISTORY_COMMANDS.restoreVersion, 'restore memory version', async (id: unknown, version: unknown) => {
    if (typeof id !== 'string' || typeof version !== 'number')
      throw new EngineError('invalid_input', 'Give a memory id and a version number.');
    return restoreVersion(engine, log, id, version);
  });
}
