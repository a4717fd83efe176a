/**
 * The commands on a store as a whole: rebuild the index, re-embed, scan for secrets, export and
 * import, find and review duplicates, restart the engine, show the log. A table of small
 * handlers (STORE_COMMAND_TABLE), registered with the memory commands (memoryCommands.ts).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { EngineClient } from '../../engine/client/engineClient';
import { errorLine } from '../../present/errorText';
import type { Logger } from '../host/log';
import { registerCommandTable, type CommandEntry, type Registrar } from '../common/commandTable';
import { reembedMessage, reindexMessage } from '../pipeline/maintenanceMessages';
import { describeSecretScan } from '../../present/secretScanText';
import { plural } from '../../core/text/plural';
import { defaultExportPath, LAST_EXPORT_FOLDER_KEY } from './exportTarget';
import { exportTo, importFrom } from '../../engine/client/transferClient';
import type { CommandId } from '../commandIds';

export const STORE_COMMANDS = {
  reindex: 'agentMemory.reindex',
  reembed: 'agentMemory.reembed',
  scanSecrets: 'agentMemory.scanSecrets',
  exportJson: 'agentMemory.exportJson',
  importJson: 'agentMemory.importJson',
  reviewSuggestions: 'agentMemory.reviewSuggestions',
  clearSuggestions: 'agentMemory.clearSuggestions',
  scanDuplicates: 'agentMemory.scanDuplicates',
  restartEngine: 'agentMemory.restartEngine',
  showLog: 'agentMemory.showLog',
} as const satisfies Record<string, CommandId>;

const REDACT_EVERYWHERE = 'Redact Everywhere';
const REDACT_DETAIL =
  'Each secret is replaced by [redacted: <kind>] in the memories, their history and the search indexes, and the store is compacted so none of its files keeps the old text. This cannot be undone.';

/** What the handlers share. */
interface StoreCommandContext {
  context: vscode.ExtensionContext;
  engine: EngineClient;
  log: Logger;
  /** Whether this window serves the project's store or is a client (engineHost.ts). */
  role?: () => 'owner' | 'client' | undefined;
}

// Scan Memories for Secrets (docs/secrets.md): the report first; redacting rewrites the history
// and compacts the store, so only after a yes. `{ redact: true }` (tests, other extensions) asks nothing.
async function scanSecrets({ engine }: StoreCommandContext, opts?: unknown) {
  const found = await withProgress('Scanning memories for secrets…', (signal) => engine.request('secrets.scan', {}, { signal }));
  const said = describeSecretScan(found, { ids: false });
  if (!found.stores.some((s) => Object.keys(s.kinds).length)) {
    void vscode.window.showInformationMessage(said);
    return found;
  }
  const redact =
    (opts as { redact?: boolean } | undefined)?.redact === true ||
    (await vscode.window.showWarningMessage(said, { modal: true, detail: REDACT_DETAIL }, REDACT_EVERYWHERE)) === REDACT_EVERYWHERE;
  if (!redact) return found;
  const done = await withProgress('Redacting secrets everywhere…', (signal) =>
    engine.request('secrets.scan', { redact: true }, { signal }),
  );
  void vscode.window.showInformationMessage(describeSecretScan(done, { ids: false }));
  return done;
}

async function exportJson({ context, engine }: StoreCommandContext, target?: unknown) {
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
}

async function importJson({ engine, log }: StoreCommandContext, source?: unknown) {
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
}

async function reviewSuggestions({ engine }: StoreCommandContext) {
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
}

async function restartEngine({ engine, log, role }: StoreCommandContext) {
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
    role?.() === 'client'
      ? "Agent Memory: Reconnected. Another window serves this project's memory: its engine was not restarted (Restart Engine there)."
      : 'Agent Memory: Engine restarted.',
  );
  return info;
}

/** Every command of STORE_COMMANDS: what it does, in words, and its handler. */
const STORE_COMMAND_TABLE: Record<keyof typeof STORE_COMMANDS, CommandEntry<StoreCommandContext>> = {
  reindex: {
    what: 'rebuild index',
    run: async ({ engine }) => {
      const r = await withProgress('Rebuilding the search index…', (signal) => engine.request('index.rebuild', {}, { signal }));
      void vscode.window.showInformationMessage(reindexMessage(r.memories));
      return r;
    },
  },
  reembed: {
    what: 're-embed',
    run: async ({ engine }) => {
      const r = await withProgress('Queueing memories for re-embedding…', (signal) => engine.request('embeddings.reembed', {}, { signal }));
      void vscode.window.showInformationMessage(reembedMessage(r.queued));
      return r;
    },
  },
  scanSecrets: { what: 'scan for secrets', run: scanSecrets },
  exportJson: { what: 'export', run: exportJson },
  importJson: { what: 'import', run: importJson },
  reviewSuggestions: { what: 'review suggestions', run: reviewSuggestions },
  scanDuplicates: {
    what: 'scan for duplicates',
    run: async ({ engine }) => {
      const r = await withProgress('Scanning memories for duplicates…', (signal) => engine.request('suggestions.scan', {}, { signal }));
      const pick = await vscode.window.showInformationMessage(
        `${plural(r.created, 'new consolidation suggestion')}.`,
        ...(r.created ? ['Review'] : []),
      );
      if (pick === 'Review') await vscode.commands.executeCommand(STORE_COMMANDS.reviewSuggestions);
      return r;
    },
  },
  clearSuggestions: {
    what: 'clear suggestions',
    run: async ({ engine }) => {
      const r = await engine.request('suggestions.clear', {});
      void vscode.window.showInformationMessage(`${plural(r.cleared, 'consolidation suggestion')} dismissed.`);
      return r;
    },
  },
  restartEngine: { what: 'restart engine', run: restartEngine },
  showLog: { what: 'show log', run: async ({ log }) => log.channel.show(true) },
};

export function registerStoreCommands(run: Registrar, c: StoreCommandContext): void {
  registerCommandTable(run, STORE_COMMANDS, STORE_COMMAND_TABLE, c);
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
