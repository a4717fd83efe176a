/**
 * The memory commands of the palette, the tree and the panels: add, search, open, edit, delete,
 * make permanent. Every command that acts on a memory accepts an id, a tree node, or nothing
 * (then asks with the memory picker, memoryPicker.ts). The handlers are a table (COMMAND_TABLE),
 * registered by registerCommands with the store-wide commands (storeCommands.ts); commands
 * return their outcome, so tests and other extensions can run them with arguments instead of prompts.
 */
import * as vscode from 'vscode';
import type { EngineClient } from '../../engine/client/engineClient';
import { memoryGoneError } from '../../present/errorText';
import type { CreateMemoryResult, MemorySummary, SearchResponse } from '../../engine/protocol';
import type { Logger } from '../host/log';
import type { MemoryTreeProvider, TreeNode } from './memoryTree';
import { openMemoryDocument } from './memoryDocument';
import type { PanelActions } from '../common/panels';
import { SearchPanel, registerSearchPanel } from '../search/searchPanel';
import { GraphPanel } from '../graph/graphPanel';
import { stripRecall } from '../../present/recall';
import { showWithOpen } from '../common/openAction';
import { commandRegistrar, registerCommandTable, reportError, type CommandEntry } from '../common/commandTable';
import { rememberUndo, undoChange } from '../history/undoLast';
import { askNewMemory } from './addMemoryInput';
import { createParams, defaultDraft, type AddMemoryDraft } from './addMemorySteps';
import { truncateLine } from '../../core/text/truncate';
import { plural } from '../../core/text/plural';
import { describeCreate } from '../../present/createResultText';
import { SUGGESTION_COMMANDS } from '../suggestions/suggestionCommands';
import { pickRow, typeHeading } from '../../present/memoryRowText';
import { deleteDetail } from '../history/lifetimeMessages';
import { memoryName } from './memoryFsNames';
import { pickMemory, type PickFilter } from './memoryPicker';
import { registerStoreCommands } from './storeCommands';
import type { CommandId } from '../commandIds';

export const COMMANDS = {
  addMemory: 'agentMemory.addMemory',
  addSelection: 'agentMemory.addSelection',
  search: 'agentMemory.search',
  openSearch: 'agentMemory.openSearch',
  openGraph: 'agentMemory.openGraph',
  openMemory: 'agentMemory.openMemory',
  editMemory: 'agentMemory.editMemory',
  deleteMemory: 'agentMemory.deleteMemory',
  promoteMemory: 'agentMemory.promoteMemory',
  refreshTree: 'agentMemory.refreshTree',
  treeLoadMore: 'agentMemory.treeLoadMore',
} as const satisfies Record<string, CommandId>;

type MemoryArg = string | TreeNode | { id: string } | undefined;

const SHORT_TERM: PickFilter = {
  keep: (m: MemorySummary) => m.expiresAt !== null,
  none: 'None of these memories is short-term: they are all permanent already.',
};

function idOf(arg: unknown): string | undefined {
  const a = arg as MemoryArg;
  if (typeof a === 'string') return a;
  if (a && typeof a === 'object') {
    if ('kind' in a) return a.kind === 'memory' ? a.memory.id : undefined;
    if ('id' in a && typeof a.id === 'string') return a.id;
  }
  return undefined;
}

export interface CommandDeps {
  context: vscode.ExtensionContext;
  engine: EngineClient;
  tree: MemoryTreeProvider;
  log: Logger;
  /** Called after each successful recall (time-to-first-recall measurement). */
  onRecall(r: SearchResponse): void;
  /** Whether this window serves the project's store or is a client (engineHost.ts). */
  role?: () => 'owner' | 'client' | undefined;
}

/** What the handlers share: the deps and the panels' actions. */
interface MemoryCommandContext extends CommandDeps {
  actions: PanelActions;
}

const REVIEW_MERGE = 'Review Merge…';

/** What "Save anyway" lifts: the near-duplicate or the low-value rule. */
type SaveAnyway = { allowNearDuplicate?: boolean; allowLowValue?: boolean };

/**
 * A save's outcome with "Open" where a memory is named, "Review Merge…" where it was kept apart
 * from a very similar memory (the merge preview of its suggestion), "Save anyway" where a rule
 * skipped the text.
 */
async function showCreateOutcome(r: CreateMemoryResult, message: string, saveAnyway: (o: SaveAnyway) => Promise<unknown>): Promise<void> {
  if (r.status !== 'skipped') {
    const show = r.status === 'created' ? vscode.window.showInformationMessage : vscode.window.showWarningMessage;
    const suggestion = r.similar?.[0]?.suggestionId;
    const pick = await show(message, 'Open', ...(suggestion ? [REVIEW_MERGE] : []));
    if (pick === 'Open') await vscode.commands.executeCommand(COMMANDS.openMemory, r.memory.id);
    if (pick === REVIEW_MERGE) await vscode.commands.executeCommand(SUGGESTION_COMMANDS.accept, suggestion);
    return;
  }
  const actions = r.reason === 'placeholder' ? [] : ['Save anyway', ...(r.existingId ? ['Open Existing'] : [])];
  const pick = await vscode.window.showWarningMessage(message, ...actions);
  if (pick === 'Open Existing') await vscode.commands.executeCommand(COMMANDS.openMemory, r.existingId);
  if (pick === 'Save anyway') await saveAnyway(r.reason === 'redundant' ? { allowNearDuplicate: true } : { allowLowValue: true });
}

/** A draft from a programmatic call: the engine's lifecycle default, not the form's "permanent". */
function programmatic(content: string, extra: Partial<AddMemoryDraft> = {}): AddMemoryDraft {
  const { ttlSeconds: _lifecycleDefault, ...draft } = defaultDraft(content, extra);
  return draft;
}

/** Saves a draft (fromRecall when the text carries the recall marker) and says what happened. */
async function create(c: MemoryCommandContext, draft: AddMemoryDraft, override: SaveAnyway = {}): Promise<CreateMemoryResult> {
  const { text, fromRecall } = stripRecall(draft.content);
  const r = await c.engine.request('memory.create', {
    ...createParams({ ...draft, content: text }),
    ...override,
    agentSource: 'user',
    origin: 'person',
    ...(fromRecall ? { fromRecall } : {}),
  });
  const message = describeCreate(r);
  c.log.info(message);
  showCreateOutcome(r, message, (o) => create(c, draft, o)).catch((e: unknown) => reportError(c.log, 'save anyway', e));
  return r;
}

// Opening a memory opens it for editing (docs/editing.md): a markdown document, saved with Ctrl+S.
async function openMemory(c: MemoryCommandContext, arg?: unknown) {
  const id = idOf(arg) ?? (await pickMemory(c.engine, 'Open which memory?'));
  if (!id) return undefined;
  // A person opening a memory is a deliberate use (docs/lifecycle.md "Access"); a failure only costs the count.
  c.engine
    .request('memory.recordAccess', { ids: [id] })
    .catch((e: unknown) => c.log.info(`access of ${id} not recorded: ${e instanceof Error ? e.message : String(e)}`));
  return openMemoryDocument(c.engine, id);
}

async function deleteMemory(c: MemoryCommandContext, arg?: unknown, opts?: unknown) {
  const { engine, log } = c;
  const id = idOf(arg) ?? (await pickMemory(engine, 'Delete which memory?'));
  if (!id) return undefined;
  if ((opts as { confirm?: boolean } | undefined)?.confirm !== false) {
    const m = await engine.request('memory.get', { id });
    if (!m) throw memoryGoneError();
    const { restorableForMs } = await engine.request('memory.listRemoved', { limit: 1 });
    const ok = await vscode.window.showWarningMessage(
      `Delete the memory "${truncateLine(m.title || m.content, 80)}"?`,
      { modal: true, detail: deleteDetail(restorableForMs) },
      'Delete',
    );
    if (ok !== 'Delete') return undefined;
  }
  // No reason: the history and the removed view already say who deleted it (a reason "deleted by the user" said it twice).
  const rec = await engine.request('memory.delete', { id });
  // Undo from the toast, or later from "Undo Last Change" / "Recently Deleted and Expired".
  const change = {
    label: `delete of “${truncateLine(rec.title || rec.content, 60)}”`,
    undo: () => engine.request('memory.restore', { id }),
    reopens: id,
  };
  rememberUndo(change);
  void vscode.window.showInformationMessage('Memory deleted.', 'Undo').then((pick) => {
    if (pick !== 'Undo') return;
    undoChange(change)
      .then(() => showWithOpen(`Restored: ${truncateLine(rec.title || rec.content, 60)}.`, id))
      .catch((e) => reportError(log, 'restore', e));
  });
  return rec;
}

// Offered on short-term memories only (tree: contextValue "memory"; search panel: no button on a
// permanent card); called on a permanent one anyway, it says so and changes nothing.
async function promoteMemory(c: MemoryCommandContext, arg?: unknown) {
  const id = idOf(arg) ?? (await pickMemory(c.engine, 'Make which short-term memory permanent?', SHORT_TERM));
  if (!id) return undefined;
  const m = await c.engine.request('memory.get', { id });
  if (!m) throw memoryGoneError();
  const name = memoryName(m.title, m.content);
  if (m.expiresAt === null) {
    void vscode.window.showInformationMessage(`“${name}” is already permanent: it is kept until you delete it.`);
    return undefined;
  }
  const rec = await c.engine.request('memory.promote', { id });
  void vscode.window.showInformationMessage(`Memory made permanent: ${name}.`);
  return rec;
}

// A string argument saves at once (general, this project, the engine's lifecycle default);
// an object may set the other fields; no argument asks step by step (addMemoryInput.ts),
// where a memory is permanent unless the person picks a lifetime.
async function addMemory(c: MemoryCommandContext, arg?: unknown) {
  if (typeof arg === 'string') return create(c, programmatic(arg));
  const fields = arg as Partial<AddMemoryDraft> | undefined;
  if (fields && typeof fields === 'object' && typeof fields.content === 'string') return create(c, defaultDraft('', fields));
  const draft = await askNewMemory();
  return draft ? create(c, draft) : undefined;
}

async function addSelection(c: MemoryCommandContext, opts?: unknown) {
  const editor = vscode.window.activeTextEditor;
  const text = editor?.document.getText(editor.selection);
  if (!editor || !text?.trim()) {
    void vscode.window.showWarningMessage('Select some text in an editor first.');
    return undefined;
  }
  const file = vscode.workspace.asRelativePath(editor.document.uri);
  const isCode = editor.document.languageId !== 'markdown' && editor.document.languageId !== 'plaintext';
  const extra = { source: `${file}:${editor.selection.start.line + 1}`, ...(isCode ? { type: 'code_pattern' } : {}) };
  if ((opts as { ask?: boolean } | undefined)?.ask === false) return create(c, programmatic(text, extra));
  const draft = await askNewMemory(text, extra);
  return draft ? create(c, draft) : undefined;
}

async function search(c: MemoryCommandContext, q?: unknown) {
  const query = typeof q === 'string' ? q : await vscode.window.showInputBox({ title: 'Search Memories', prompt: 'Search text' });
  if (!query) return undefined;
  const r = await c.engine.request('search', { query, limit: 30 });
  c.onRecall(r);
  if (typeof q === 'string') return r; // programmatic use: no UI
  if (!r.hits.length) {
    void vscode.window.showInformationMessage(`No relevant memories for "${query}".`);
    return r;
  }
  const pick = await vscode.window.showQuickPick(
    r.hits.map((h) => ({
      ...pickRow(h.memory.title, h.content), // the text once, under a title of its own
      description: `${typeHeading(h.memory.type)} · ${Math.round(h.relevance * 100)} %`,
      id: h.memory.id,
    })),
    { placeHolder: `${plural(r.hits.length, 'result')} for "${query}"`, matchOnDetail: true },
  );
  if (pick) await openMemory(c, pick.id);
  return r;
}

// Edit opens the memory's document; a patch argument (tests, other extensions) updates it directly.
async function editMemory(c: MemoryCommandContext, arg?: unknown, patch?: unknown) {
  const id = idOf(arg) ?? (await pickMemory(c.engine, 'Edit which memory?'));
  if (!id) return undefined;
  if (!patch || typeof patch !== 'object') return openMemoryDocument(c.engine, id);
  const m = await c.engine.request('memory.get', { id });
  if (!m) throw memoryGoneError();
  return c.engine.request('memory.update', { id, patch: { ...patch, expectedVersion: m.version } });
}

/** Every command of COMMANDS: what it does, in words, and its handler. */
const COMMAND_TABLE: Record<keyof typeof COMMANDS, CommandEntry<MemoryCommandContext>> = {
  addMemory: { what: 'add memory', run: addMemory },
  addSelection: { what: 'add selection', run: addSelection },
  search: { what: 'search', run: search },
  openSearch: {
    what: 'open search',
    run: async (c, q) => SearchPanel.show(c.context, c.engine, c.actions, typeof q === 'string' ? q : undefined),
  },
  openGraph: { what: 'open graph', run: async (c, arg) => GraphPanel.show(c.context, c.engine, c.actions, idOf(arg)) },
  openMemory: { what: 'open memory', run: openMemory },
  editMemory: { what: 'edit memory', run: editMemory },
  deleteMemory: { what: 'delete memory', run: deleteMemory },
  promoteMemory: { what: 'promote memory', run: promoteMemory },
  refreshTree: { what: 'refresh', run: async (c) => c.tree.refresh() },
  treeLoadMore: {
    what: 'load more',
    run: async (c, type) => {
      if (typeof type === 'string') c.tree.loadMore(type);
    },
  },
};

export function registerCommands(d: CommandDeps): void {
  const { context, engine, log } = d;
  const actions: PanelActions = {
    open: (id) => vscode.commands.executeCommand(COMMANDS.openMemory, id),
    edit: (id) => vscode.commands.executeCommand(COMMANDS.editMemory, id),
    delete: (id) => vscode.commands.executeCommand(COMMANDS.deleteMemory, id),
    promote: (id) => vscode.commands.executeCommand(COMMANDS.promoteMemory, id),
  };
  context.subscriptions.push(...registerSearchPanel(context, engine, actions));
  context.subscriptions.push(GraphPanel.registerSerializer(context, engine, actions));
  const run = commandRegistrar(context, log);
  registerCommandTable(run, COMMANDS, COMMAND_TABLE, { ...d, actions });
  registerStoreCommands(run, d);
}
