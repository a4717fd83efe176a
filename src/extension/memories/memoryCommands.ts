/**
 * Command palette and context-menu actions. Every command that acts on a memory accepts an id,
 * a tree node, or nothing (then asks with a quick pick). Commands return their outcome, so
 * tests and other extensions can run them with arguments instead of prompts.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { EngineClient } from '../../engine/client/engineClient';
import { EngineError } from '../../engine/errors';
import { errorLine, errorNotification, memoryGoneError } from '../../present/errorText';
import type { CreateMemoryResult, MemorySummary, SearchResponse } from '../../engine/protocol';
import type { Logger } from '../host/log';
import type { MemoryTreeProvider, TreeNode } from './memoryTree';
import { openMemoryDocument } from './memoryDocument';
import type { PanelActions } from '../common/panels';
import { SearchPanel, registerSearchPanel } from '../search/searchPanel';
import { GraphPanel } from '../graph/graphPanel';
import { stripRecall } from '../../present/recall';
import { showWithOpen } from '../common/openAction';
import { reembedMessage, reindexMessage } from '../pipeline/maintenanceMessages';
import { describeSecretScan } from '../../present/secretScanText';

const REDACT_EVERYWHERE = 'Redact Everywhere';
const REDACT_DETAIL =
  'Each secret is replaced by [redacted: <kind>] in the memories, their history and the search indexes, and the store is compacted so none of its files keeps the old text. This cannot be undone.';
import { rememberUndo, undoChange } from '../history/undoLast';
import { askNewMemory } from './addMemoryInput';
import { createParams, defaultDraft, type AddMemoryDraft } from './addMemorySteps';
import { truncateLine } from '../../core/text/truncate';
import { plural } from '../../core/text/plural';
import { defaultExportPath, LAST_EXPORT_FOLDER_KEY } from './exportTarget';
import { exportTo, importFrom } from '../../engine/client/transferClient';
import { describeCreate } from '../../present/createResultText';
import { SUGGESTION_COMMANDS } from '../suggestions/suggestionCommands';
import { pickRow, typeHeading } from '../../present/memoryRowText';
import { deleteDetail } from '../history/lifetimeMessages';
import { memoryName } from './memoryFsNames';
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
  reindex: 'agentMemory.reindex',
  reembed: 'agentMemory.reembed',
  scanSecrets: 'agentMemory.scanSecrets',
  exportJson: 'agentMemory.exportJson',
  importJson: 'agentMemory.importJson',
  reviewSuggestions: 'agentMemory.reviewSuggestions',
  clearSuggestions: 'agentMemory.clearSuggestions',
  scanDuplicates: 'agentMemory.scanDuplicates',
  refreshTree: 'agentMemory.refreshTree',
  treeLoadMore: 'agentMemory.treeLoadMore',
  restartEngine: 'agentMemory.restartEngine',
  showLog: 'agentMemory.showLog',
} as const satisfies Record<string, CommandId>;

type MemoryArg = string | TreeNode | { id: string } | undefined;

const SHORT_TERM = {
  keep: (m: MemorySummary) => m.expiresAt !== null,
  none: 'None of these memories is short-term: they are all permanent already.',
};

function idOf(arg: MemoryArg): string | undefined {
  if (typeof arg === 'string') return arg;
  if (arg && typeof arg === 'object') {
    if ('kind' in arg) return arg.kind === 'memory' ? arg.memory.id : undefined;
    if ('id' in arg && typeof arg.id === 'string') return arg.id;
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

/** Shows an engine error as a notification (the code's sentence, the engine's message as detail) and logs it. */
export function reportError(log: Logger, what: string, e: unknown): void {
  log.error(what, e);
  if (e instanceof EngineError && e.code === 'cancelled') return;
  void vscode.window.showErrorMessage(errorNotification(what, e));
}

/**
 * Registers commands whose failures become a notification (reportError) instead of an
 * unhandled rejection; the command then returns undefined.
 */
export function commandRegistrar(context: vscode.ExtensionContext, log: Logger) {
  return <A extends unknown[], R>(id: string, what: string, fn: (...args: A) => Promise<R>): void => {
    context.subscriptions.push(
      vscode.commands.registerCommand(id, async (...args: A) => {
        try {
          return await fn(...args);
        } catch (e) {
          reportError(log, what, e);
          return undefined;
        }
      }),
    );
  };
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

export function registerCommands(d: CommandDeps): void {
  const { context, engine, tree, log } = d;
  const run = commandRegistrar(context, log);

  /** A memory picked from a search (or the newest); `only` keeps the ones an action applies to, `none` says there are none. */
  async function pickMemory(
    placeHolder: string,
    only?: { keep: (m: MemorySummary) => boolean; none: string },
  ): Promise<string | undefined> {
    const query = await vscode.window.showInputBox({ prompt: placeHolder, placeHolder: 'Search text (empty: most recent)' });
    if (query === undefined) return undefined;
    const found = query.trim()
      ? (await engine.request('search', { query, limit: 30, recordAccess: false })).hits.map((h) => h.memory)
      : (await engine.request('memory.list', { limit: 30 })).items;
    const items = only ? found.filter(only.keep) : found;
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

  const programmatic = (content: string, extra: Partial<AddMemoryDraft> = {}): AddMemoryDraft => {
    const { ttlSeconds: _lifecycleDefault, ...draft } = defaultDraft(content, extra);
    return draft;
  };

  /** Saves a draft (fromRecall when the text carries the recall marker) and says what happened. */
  async function create(draft: AddMemoryDraft, override: SaveAnyway = {}): Promise<CreateMemoryResult> {
    const { text, fromRecall } = stripRecall(draft.content);
    const r = await engine.request('memory.create', {
      ...createParams({ ...draft, content: text }),
      ...override,
      agentSource: 'user',
      origin: 'person',
      ...(fromRecall ? { fromRecall } : {}),
    });
    const message = describeCreate(r);
    log.info(message);
    showCreateOutcome(r, message, (o) => create(draft, o)).catch((e: unknown) => reportError(log, 'save anyway', e));
    return r;
  }

  // Opening a memory opens it for editing (docs/editing.md): a markdown document, saved with Ctrl+S.
  const openMemory = async (arg: MemoryArg) => {
    const id = idOf(arg) ?? (await pickMemory('Open which memory?'));
    if (!id) return undefined;
    // A person opening a memory is a deliberate use (docs/lifecycle.md "Access"); a failure only costs the count.
    engine
      .request('memory.recordAccess', { ids: [id] })
      .catch((e: unknown) => log.info(`access of ${id} not recorded: ${e instanceof Error ? e.message : String(e)}`));
    return openMemoryDocument(engine, id);
  };

  const deleteMemory = async (arg: MemoryArg, opts?: { confirm?: boolean }) => {
    const id = idOf(arg) ?? (await pickMemory('Delete which memory?'));
    if (!id) return undefined;
    if (opts?.confirm !== false) {
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
  };

  // Offered on short-term memories only (tree: contextValue "memory"; search panel: no button on a
  // permanent card); called on a permanent one anyway, it says so and changes nothing.
  const promoteMemory = async (arg: MemoryArg) => {
    const id = idOf(arg) ?? (await pickMemory('Make which short-term memory permanent?', SHORT_TERM));
    if (!id) return undefined;
    const m = await engine.request('memory.get', { id });
    if (!m) throw memoryGoneError();
    const name = memoryName(m.title, m.content);
    if (m.expiresAt === null) {
      void vscode.window.showInformationMessage(`“${name}” is already permanent: it is kept until you delete it.`);
      return undefined;
    }
    const rec = await engine.request('memory.promote', { id });
    void vscode.window.showInformationMessage(`Memory made permanent: ${name}.`);
    return rec;
  };

  const actions: PanelActions = {
    open: (id) => vscode.commands.executeCommand(COMMANDS.openMemory, id),
    edit: (id) => vscode.commands.executeCommand(COMMANDS.editMemory, id),
    delete: (id) => vscode.commands.executeCommand(COMMANDS.deleteMemory, id),
    promote: (id) => vscode.commands.executeCommand(COMMANDS.promoteMemory, id),
  };
  context.subscriptions.push(...registerSearchPanel(context, engine, actions));

  // A string argument saves at once (general, this project, the engine's lifecycle default);
  // an object may set the other fields; no argument asks step by step (addMemoryInput.ts),
  // where a memory is permanent unless the person picks a lifetime.
  run(COMMANDS.addMemory, 'add memory', async (arg?: unknown) => {
    if (typeof arg === 'string') return create(programmatic(arg));
    const fields = arg as Partial<AddMemoryDraft> | undefined;
    if (fields && typeof fields === 'object' && typeof fields.content === 'string') return create(defaultDraft('', fields));
    const draft = await askNewMemory();
    return draft ? create(draft) : undefined;
  });

  run(COMMANDS.addSelection, 'add selection', async (opts?: { ask?: boolean }) => {
    const editor = vscode.window.activeTextEditor;
    const text = editor?.document.getText(editor.selection);
    if (!editor || !text?.trim()) {
      void vscode.window.showWarningMessage('Select some text in an editor first.');
      return undefined;
    }
    const file = vscode.workspace.asRelativePath(editor.document.uri);
    const isCode = editor.document.languageId !== 'markdown' && editor.document.languageId !== 'plaintext';
    const extra = { source: `${file}:${editor.selection.start.line + 1}`, ...(isCode ? { type: 'code_pattern' } : {}) };
    if (opts?.ask === false) return create(programmatic(text, extra));
    const draft = await askNewMemory(text, extra);
    return draft ? create(draft) : undefined;
  });

  run(COMMANDS.search, 'search', async (q?: unknown) => {
    const query = typeof q === 'string' ? q : await vscode.window.showInputBox({ title: 'Search Memories', prompt: 'Search text' });
    if (!query) return undefined;
    const r = await engine.request('search', { query, limit: 30 });
    d.onRecall(r);
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
    if (pick) await openMemory(pick.id);
    return r;
  });

  run(COMMANDS.openSearch, 'open search', async (q?: unknown) => {
    SearchPanel.show(context, engine, actions, typeof q === 'string' ? q : undefined);
  });
  run(COMMANDS.openGraph, 'open graph', async (arg?: MemoryArg) => {
    GraphPanel.show(context, engine, actions, idOf(arg));
  });
  context.subscriptions.push(GraphPanel.registerSerializer(context, engine, actions));
  run(COMMANDS.openMemory, 'open memory', openMemory);
  run(COMMANDS.deleteMemory, 'delete memory', deleteMemory);
  run(COMMANDS.promoteMemory, 'promote memory', promoteMemory);

  // Edit opens the memory's document; a patch argument (tests, other extensions) updates it directly.
  run(COMMANDS.editMemory, 'edit memory', async (arg: MemoryArg, patch?: Record<string, unknown>) => {
    const id = idOf(arg) ?? (await pickMemory('Edit which memory?'));
    if (!id) return undefined;
    if (!patch || typeof patch !== 'object') return openMemoryDocument(engine, id);
    const m = await engine.request('memory.get', { id });
    if (!m) throw memoryGoneError();
    return engine.request('memory.update', { id, patch: { ...patch, expectedVersion: m.version } });
  });

  run(COMMANDS.reindex, 'rebuild index', async () =>
    withProgress('Rebuilding the search index…', (signal) => engine.request('index.rebuild', {}, { signal })).then((r) => {
      void vscode.window.showInformationMessage(reindexMessage(r.memories));
      return r;
    }),
  );

  run(COMMANDS.reembed, 're-embed', async () =>
    withProgress('Queueing memories for re-embedding…', (signal) => engine.request('embeddings.reembed', {}, { signal })).then((r) => {
      void vscode.window.showInformationMessage(reembedMessage(r.queued));
      return r;
    }),
  );

  // Scan Memories for Secrets (docs/secrets.md): the report first; redacting rewrites the history
  // and compacts the store, so only after a yes. `{ redact: true }` (tests, other extensions) asks nothing.
  run(COMMANDS.scanSecrets, 'scan for secrets', async (opts?: { redact?: boolean }) => {
    const found = await withProgress('Scanning memories for secrets…', (signal) => engine.request('secrets.scan', {}, { signal }));
    const said = describeSecretScan(found, { ids: false });
    if (!found.stores.some((s) => Object.keys(s.kinds).length)) {
      void vscode.window.showInformationMessage(said);
      return found;
    }
    const redact =
      opts?.redact === true ||
      (await vscode.window.showWarningMessage(said, { modal: true, detail: REDACT_DETAIL }, REDACT_EVERYWHERE)) === REDACT_EVERYWHERE;
    if (!redact) return found;
    const done = await withProgress('Redacting secrets everywhere…', (signal) =>
      engine.request('secrets.scan', { redact: true }, { signal }),
    );
    void vscode.window.showInformationMessage(describeSecretScan(done, { ids: false }));
    return done;
  });

  run(COMMANDS.exportJson, 'export', async (target?: unknown) => {
    const uri =
      typeof target === 'string'
        ? vscode.Uri.file(target)
        : await vscode.window.showSaveDialog({
            // JSONL (one memory per line) by default; a .json name writes the older JSON file.
            title: 'Export Memories',
            filters: { 'JSON Lines': ['jsonl'], JSON: ['json'] },
            defaultUri: vscode.Uri.file(
              defaultExportPath({
                lastFolder: context.globalState.get<string>(LAST_EXPORT_FOLDER_KEY),
                home: os.homedir(),
                workspaceFolders: (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath),
                isDirectory: (p) => fs.existsSync(p) && fs.statSync(p).isDirectory(),
                now: new Date(),
              }),
            ),
          });
    if (!uri) return undefined;
    if (typeof target !== 'string') await context.globalState.update(LAST_EXPORT_FOLDER_KEY, path.dirname(uri.fsPath));
    // Links followed, FIFOs and devices written directly, files replaced atomically and private (docs/transfer.md).
    const r = await withProgress('Exporting memories…', (signal) => exportTo(engine, uri.fsPath, {}, { request: { signal } }));
    if (typeof target !== 'string')
      void vscode.window.showInformationMessage(`Exported ${plural(r.count, 'memory', 'memories')} to ${uri.fsPath}.`);
    return r;
  });

  run(COMMANDS.importJson, 'import', async (source?: unknown) => {
    const uri =
      typeof source === 'string'
        ? vscode.Uri.file(source)
        : (
            await vscode.window.showOpenDialog({
              title: 'Import Memories',
              filters: { 'Agent Memory export': ['jsonl', 'json'] },
              canSelectMany: false,
            })
          )?.[0];
    if (!uri) return undefined;
    const r = await withProgress('Importing memories…', (signal, report) =>
      importFrom(engine, uri.fsPath, { request: { signal, onProgress: report } }),
    );
    const notes = r.warnings ?? [];
    const msg = `Imported ${r.created} of ${plural(r.total, 'memory', 'memories')} (${r.duplicates} already there, ${r.skipped} skipped, ${r.errors.length} invalid${notes.length ? `, ${notes.length} with a note` : ''}).`;
    log.info(msg + [...r.errors, ...notes].map((e) => `\n  ${e.message}`).join('')); // each message names its line
    // Bad lines were skipped, never fatal: the log lists each with its line number.
    void (
      r.errors.length || notes.length ? vscode.window.showWarningMessage(msg, 'Show Log') : vscode.window.showInformationMessage(msg)
    ).then((pick) => {
      if (pick === 'Show Log') log.channel.show(true);
    });
    return r;
  });

  run(COMMANDS.reviewSuggestions, 'review suggestions', async () => {
    const list = await engine.request('suggestions.list', {});
    if (!list.length) {
      void vscode.window.showInformationMessage('No consolidation suggestions are waiting.');
      return list;
    }
    const pick = await vscode.window.showQuickPick(
      list.map((s) => ({ label: `${(s.similarity * 100).toFixed(0)}% similar`, detail: `A: ${s.a.preview}\nB: ${s.b.preview}`, id: s.id })),
      { placeHolder: 'Pick a suggestion to merge or dismiss' },
    );
    if (!pick) return list;
    const action = await vscode.window.showQuickPick(['Merge B into A', 'Dismiss'], { placeHolder: 'What should happen?' });
    if (action === 'Merge B into A')
      await vscode.commands.executeCommand('agentMemory.acceptSuggestion', pick.id); // previews the merge first
    else if (action === 'Dismiss') await engine.request('suggestions.reject', { id: pick.id });
    return list;
  });

  run(COMMANDS.scanDuplicates, 'scan for duplicates', async () => {
    const r = await withProgress('Scanning memories for duplicates…', (signal) => engine.request('suggestions.scan', {}, { signal }));
    const pick = await vscode.window.showInformationMessage(
      `${plural(r.created, 'new consolidation suggestion')}.`,
      ...(r.created ? ['Review'] : []),
    );
    if (pick === 'Review') await vscode.commands.executeCommand(COMMANDS.reviewSuggestions);
    return r;
  });

  run(COMMANDS.clearSuggestions, 'clear suggestions', async () => {
    const r = await engine.request('suggestions.clear', {});
    void vscode.window.showInformationMessage(`${plural(r.cleared, 'consolidation suggestion')} dismissed.`);
    return r;
  });

  run(COMMANDS.refreshTree, 'refresh', async () => tree.refresh());
  run(COMMANDS.treeLoadMore, 'load more', async (type: unknown) => {
    if (typeof type === 'string') tree.loadMore(type);
  });
  run(COMMANDS.restartEngine, 'restart engine', async () => {
    // Other windows of the project are told it is a restart (they reconnect at once, engineHost.ts).
    let info;
    try {
      info = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: 'Agent Memory: Restarting the memory engine…' },
        () => engine.restart(),
      );
    } catch (e) {
      // It could not start: the window already says why, with the button that helps (engineHost.ts). One notice, not two.
      if (engine.state === 'failed') {
        log.info(`restart engine: the engine could not start (${errorLine(e)})`);
        return undefined;
      }
      throw e;
    }
    // A client restarts its connection only: the window that serves the store keeps its engine.
    void vscode.window.showInformationMessage(
      d.role?.() === 'client'
        ? "Agent Memory: Reconnected. Another window serves this project's memory: its engine was not restarted (Restart Engine there)."
        : 'Agent Memory: Engine restarted.',
    );
    return info;
  });
  run(COMMANDS.showLog, 'show log', async () => log.channel.show(true));
}

/** A notification with a progress bar and a Cancel button wired to the request's AbortSignal. */
function withProgress<T>(
  title: string,
  fn: (signal: AbortSignal, report: (done: number, total: number, message?: string) => void) => Promise<T>,
): Promise<T> {
  return Promise.resolve(
    vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title, cancellable: true }, async (progress, token) => {
      const ac = new AbortController();
      token.onCancellationRequested(() => ac.abort());
      let last = 0;
      return fn(ac.signal, (done, total, message) => {
        const pct = total ? (done / total) * 100 : 0;
        progress.report({ increment: pct - last, message: message ?? `${done}/${total}` });
        last = pct;
      });
    }),
  );
}
