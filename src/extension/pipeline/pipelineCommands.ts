/**
 * The Suggestions and Pipeline views and their commands: accept / reject suggestions, pause /
 * resume the pipeline, switch its mode, review its proposals, undo its changes, ingest a file,
 * open the store folder, switch the project folder (multi-root), and workspace trust
 * (restricted engine until trust is granted, then a writable restart). Commands take their
 * target as an argument (tree node, id, path) or ask; they return their outcome for tests.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { showWithOpen } from '../common/openAction';
import type { EngineClient } from '../../engine/client/engineClient';
import type { DocumentIngestResult, PipelineModeName, PipelineReview, PipelineStatus } from '../../engine/protocol';
import type { Logger } from '../host/log';
import { commandRegistrar, reportError } from '../memories/memoryCommands';
import type { SettingsWriter } from '../config/settingsWriter';
import { PIPELINE_PAUSED_KEY } from '../host/engineHost';
import { fileFolders, pickProjectFolder, PROJECT_FOLDER_KEY } from '../host/projectFolder';
import { SUGGESTIONS_VIEW_ID, SuggestionsProvider } from '../suggestions/suggestionsView';
import { registerSuggestionCommands } from '../suggestions/suggestionCommands';
import { ingestMessage } from './ingestMessage';
import { PIPELINE_VIEW_ID, PipelineViewProvider, type PipelineNode } from './pipelineView';
import { checkPipelineModel, pullPipelineModel } from './pipelineReadiness';
import { truncateLine } from '../../core/text/truncate';
import { relativeTime } from '../../core/text/timeWords';
import type { ContextKey } from '../commandIds';

/** Options of a programmatic switchPipelineMode(mode, options). */
interface SwitchOptions {
  where?: 'workspace' | 'user';
  /** Probe Ollama and the model first (interactive switches always do). */
  check?: boolean;
  /** With `check`: pull a missing model instead of switching without it. */
  pull?: boolean;
}

export const PIPELINE_COMMANDS = {
  acceptSuggestion: 'agentMemory.acceptSuggestion',
  rejectSuggestion: 'agentMemory.rejectSuggestion',
  openSuggestionA: 'agentMemory.openSuggestionMemoryA',
  openSuggestionB: 'agentMemory.openSuggestionMemoryB',
  showSuggestions: 'agentMemory.showSuggestions',
  refreshSuggestions: 'agentMemory.refreshSuggestions',
  pause: 'agentMemory.pausePipeline',
  resume: 'agentMemory.resumePipeline',
  switchMode: 'agentMemory.switchPipelineMode',
  reviewProposals: 'agentMemory.reviewProposals',
  approveReview: 'agentMemory.approveReview',
  rejectReview: 'agentMemory.rejectReview',
  undoChange: 'agentMemory.undoPipelineChange',
  ingestFile: 'agentMemory.ingestFile',
  openStoreFolder: 'agentMemory.openStoreFolder',
  switchProjectFolder: 'agentMemory.switchProjectFolder',
  refreshPipeline: 'agentMemory.refreshPipeline',
} as const;

/** Context keys for `when`/`enablement` clauses in package.json. */
const KEY_PAUSED = 'agentMemory.pipelinePaused' satisfies ContextKey;
const KEY_RESTRICTED = 'agentMemory.restricted' satisfies ContextKey;
const KEY_MULTI_ROOT = 'agentMemory.multiRoot' satisfies ContextKey;

const MODES: { mode: PipelineModeName; label: string; detail: string }[] = [
  { mode: 'off', label: 'Off', detail: 'No extraction: memories are stored as given.' },
  { mode: 'shadow', label: 'Shadow', detail: 'Extract and decide, record every proposal in history, write nothing.' },
  { mode: 'controlled', label: 'Controlled', detail: 'Add extracted facts as new memories; never change existing ones.' },
  { mode: 'full', label: 'Full', detail: 'Also update/delete existing memories; contradictions wait for review; everything undo-able.' },
];

export interface PipelineSurfaces {
  suggestions: SuggestionsProvider;
  pipeline: PipelineViewProvider;
}

function reviewIdOf(arg: unknown): string | undefined {
  if (typeof arg === 'string') return arg;
  const n = arg as PipelineNode | { id?: unknown } | undefined;
  if (n && typeof n === 'object') {
    if ('kind' in n && n.kind === 'review') return n.review.id;
    if ('id' in n && typeof n.id === 'string') return n.id;
  }
  return undefined;
}

export function registerPipelineSurfaces(d: {
  context: vscode.ExtensionContext;
  engine: EngineClient;
  settings: SettingsWriter;
  log: Logger;
}): PipelineSurfaces {
  const { context, engine, settings, log } = d;
  const suggestions = new SuggestionsProvider(engine);
  const pipeline = new PipelineViewProvider(engine);
  const suggestionsView = vscode.window.createTreeView(SUGGESTIONS_VIEW_ID, { treeDataProvider: suggestions, showCollapseAll: true });
  const pipelineView = vscode.window.createTreeView(PIPELINE_VIEW_ID, { treeDataProvider: pipeline });
  suggestions.view = suggestionsView;
  pipeline.view = pipelineView;
  context.subscriptions.push(suggestions, pipeline, suggestionsView, pipelineView);

  const setKeys = (s: PipelineStatus) => {
    void vscode.commands.executeCommand('setContext', KEY_PAUSED, !!s.paused);
    void vscode.commands.executeCommand('setContext', KEY_RESTRICTED, !!s.restricted);
  };
  void vscode.commands.executeCommand('setContext', KEY_RESTRICTED, !vscode.workspace.isTrusted);
  void vscode.commands.executeCommand('setContext', KEY_MULTI_ROOT, fileFolders().length > 1);
  context.subscriptions.push(
    engine.onEvent((e) => {
      if (e.type === 'pipeline.state') setKeys(e.status);
    }),
    engine.onStateChange((s) => {
      if (s.state === 'ready') engine.request('pipeline.status', {}).then(setKeys, () => undefined);
    }),
  );

  const run = commandRegistrar(context, log);
  const refreshAll = () => {
    suggestions.refresh();
    pipeline.refresh();
  };

  // ── suggestions (suggestionCommands.ts) ─────────────────────────────────────────────────
  registerSuggestionCommands({ context, engine, log, suggestions, run });

  // ── pipeline: pause, resume, mode ───────────────────────────────────────────────────────
  const setPaused = async (paused: boolean): Promise<PipelineStatus> => {
    const s = await engine.request(paused ? 'pipeline.pause' : 'pipeline.resume', {});
    // Remembered per workspace: the next engine start (crash restart, reload) starts paused too.
    await context.workspaceState.update(PIPELINE_PAUSED_KEY, paused);
    engine.updateInit({ pipelinePaused: paused });
    setKeys(s);
    pipeline.refresh();
    return s;
  };
  run(PIPELINE_COMMANDS.pause, 'pause pipeline', () => setPaused(true));
  run(PIPELINE_COMMANDS.resume, 'resume pipeline', () => setPaused(false));

  // Interactive: pick the mode, check Ollama and the model (offer to pull it), then ask where
  // to save. Programmatic: switchPipelineMode(mode, { where, check, pull }) — without `check`
  // nothing is probed (tests and other extensions decide themselves).
  run(PIPELINE_COMMANDS.switchMode, 'switch pipeline mode', async (arg?: unknown, opts?: SwitchOptions) => {
    const interactive = typeof arg !== 'string';
    const mode = interactive ? await pickMode() : (arg as PipelineModeName);
    if (!mode) return undefined;
    if (interactive || opts?.check) {
      const go = await ensureReady(mode, interactive, opts?.pull === true);
      if (!go) return undefined;
    }
    const where = opts?.where ?? (interactive ? await pickTarget() : 'workspace');
    if (!where) return undefined;
    // Engine first: it validates the mode and applies it now.
    const r = await engine.request('pipeline.setMode', { mode });
    // Then the settings (the settings bridge), so the mode survives restarts: all keys as one
    // change, followed by one config reload with the same values.
    await settings.write(r.settings, `pipeline mode ${mode}`, where);
    pipeline.refresh();
    const saved = where === 'user' ? 'your user settings' : "this workspace's settings";
    if (interactive) void vscode.window.showInformationMessage(`Agent Memory: pipeline mode is now ${mode} (saved in ${saved}).`);
    return r;
  });

  const pickMode = async (): Promise<PipelineModeName | undefined> => {
    const current = (await engine.request('pipeline.status', {})).mode;
    const pick = await vscode.window.showQuickPick(
      MODES.map((m) => ({ label: m.label, description: m.mode === current ? '(current)' : '', detail: m.detail, mode: m.mode })),
      { placeHolder: `Pipeline mode (now ${current})` },
    );
    return pick?.mode;
  };

  const pickTarget = async (): Promise<'workspace' | 'user' | undefined> => {
    if (!vscode.workspace.workspaceFolders?.length) return 'user';
    const pick = await vscode.window.showQuickPick(
      [
        {
          label: 'This workspace',
          where: 'workspace' as const,
          detail: 'Saved in the workspace settings (.vscode/settings.json, which may be committed with the repository).',
        },
        {
          label: 'Me (user settings)',
          where: 'user' as const,
          detail: 'Saved in your user settings: every workspace without its own setting uses this mode.',
        },
      ],
      { placeHolder: 'Save the pipeline mode for…' },
    );
    return pick?.where;
  };

  /** Checks Ollama and the model; offers to pull a missing model. False: the person cancelled. */
  const ensureReady = async (mode: PipelineModeName, interactive: boolean, pull: boolean): Promise<boolean> => {
    const llm = (await engine.request('pipeline.diagnostics', {})).llm;
    const readiness = await checkPipelineModel(mode, llm);
    if (readiness.kind === 'ready') return true;
    log.info(`switch to ${mode}: ${readiness.message}`);
    if (readiness.kind === 'model-missing') {
      const choice = interactive
        ? await vscode.window.showWarningMessage(readiness.message, { modal: true }, `Pull ${readiness.model}`, 'Switch Anyway')
        : pull
          ? `Pull ${readiness.model}`
          : 'Switch Anyway';
      if (!choice) return false;
      if (choice === 'Switch Anyway') return true;
      await pullWithProgress(llm);
      return true;
    }
    if (!interactive) return true;
    const choice = await vscode.window.showWarningMessage(readiness.message, { modal: true }, 'Switch Anyway');
    return choice === 'Switch Anyway';
  };

  const pullWithProgress = (llm: { url: string; model: string }) =>
    vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `Pulling ${llm.model}` }, async (progress) => {
      let last = 0;
      await pullPipelineModel(llm, (message, percent) => {
        const increment = percent !== undefined ? Math.max(0, percent - last) : 0;
        if (percent !== undefined) last = Math.max(last, percent);
        progress.report({ message: percent !== undefined ? `${message} (${percent}%)` : message, increment });
      });
      log.info(`pulled ${llm.model} from ${llm.url}`);
      void vscode.window.showInformationMessage(`Agent Memory: ${llm.model} is installed in Ollama.`);
    });

  // ── reviews ─────────────────────────────────────────────────────────────────────────────
  const decide = async (id: string, decision: 'approve' | 'reject') => {
    const r = decision === 'approve' ? await engine.request('reviews.approve', { id }) : await engine.request('reviews.reject', { id });
    pipeline.refresh();
    return r;
  };
  run(PIPELINE_COMMANDS.approveReview, 'approve proposal', async (arg?: unknown) => {
    const id = reviewIdOf(arg);
    if (!id) return vscode.commands.executeCommand(PIPELINE_COMMANDS.reviewProposals);
    const r = await decide(id, 'approve');
    if ('status' in r && r.status === 'stale')
      void vscode.window.showWarningMessage(`Agent Memory: nothing applied: ${r.reason ?? 'the memory changed meanwhile'}.`);
    return r;
  });
  run(PIPELINE_COMMANDS.rejectReview, 'reject proposal', async (arg?: unknown) => {
    const id = reviewIdOf(arg);
    if (!id) return vscode.commands.executeCommand(PIPELINE_COMMANDS.reviewProposals);
    return decide(id, 'reject');
  });
  run(PIPELINE_COMMANDS.reviewProposals, 'review proposals', async (idArg?: unknown, decisionArg?: unknown) => {
    await vscode.commands.executeCommand(`${PIPELINE_VIEW_ID}.focus`);
    const reviews = await engine.request('reviews.list', {});
    let id = reviewIdOf(idArg);
    if (!id) {
      if (!reviews.length) {
        void vscode.window.showInformationMessage('No pipeline proposals are waiting for review.');
        return reviews;
      }
      const pick = await vscode.window.showQuickPick(
        reviews.map((r: PipelineReview) => ({
          label: `${r.action === 'DELETE' ? '$(trash) Delete' : '$(edit) Update'}: ${r.targetContent ?? r.targetId}`,
          detail: `${r.action === 'UPDATE' ? `→ ${r.factContent} · ` : ''}${r.reason}${r.conflict ? ` · held back: ${r.conflict}` : ''}`,
          id: r.id,
        })),
        { placeHolder: 'Pick a proposal to approve or reject', matchOnDetail: true },
      );
      id = pick?.id;
    }
    if (!id) return reviews;
    let decision: 'approve' | 'reject' | undefined = decisionArg === 'approve' || decisionArg === 'reject' ? decisionArg : undefined;
    if (!decision) {
      const a = await vscode.window.showQuickPick(
        [
          { label: 'Approve', d: 'approve' as const },
          { label: 'Reject', d: 'reject' as const },
        ],
        { placeHolder: 'Apply this change?' },
      );
      decision = a?.d;
    }
    return decision ? decide(id, decision) : reviews;
  });

  // ── undo ────────────────────────────────────────────────────────────────────────────────
  run(PIPELINE_COMMANDS.undoChange, 'undo pipeline change', async (arg?: unknown) => {
    let historyId = typeof arg === 'string' ? arg : undefined;
    if (!historyId) {
      const changes = await engine.request('history.pipelineChanges', { limit: 30 });
      if (!changes.length) {
        void vscode.window.showInformationMessage('The pipeline has made no changes that could be undone.');
        return undefined;
      }
      const pick = await vscode.window.showQuickPick(
        changes.map((c) => ({
          label: `${c.event === 'created' ? '$(add) Added' : c.event === 'updated' ? '$(edit) Updated' : '$(trash) Deleted'}: ${truncateLine(c.newContent ?? c.oldContent ?? c.memoryId, 80)}`,
          description: relativeTime(c.createdAt),
          detail: `${c.changedBy}${c.reason ? ` — ${c.reason}` : ''}`,
          id: c.historyId,
        })),
        { placeHolder: 'Undo which change? (newest first)' },
      );
      if (!pick) return undefined;
      const ok = await vscode.window.showWarningMessage(`Undo this change?\n${pick.label}`, { modal: true }, 'Undo');
      if (ok !== 'Undo') return undefined;
      historyId = pick.id;
    }
    const r = await engine.request('history.undo', { historyId });
    pipeline.refresh();
    const what = { created: 'creation', updated: 'update', deleted: 'deletion' }[r.undone];
    const message = `Undid the ${what} of “${truncateLine(r.memory.title || r.memory.content, 60)}”.`;
    // An undone creation removes the memory: nothing to open then.
    if (r.memory.deletedAt) void vscode.window.showInformationMessage(message);
    else void showWithOpen(message, r.memory.id);
    return r;
  });

  // ── documents ───────────────────────────────────────────────────────────────────────────
  run(PIPELINE_COMMANDS.ingestFile, 'ingest file', async (arg?: unknown): Promise<DocumentIngestResult | undefined> => {
    let file = arg instanceof vscode.Uri ? arg.fsPath : typeof arg === 'string' ? arg : undefined;
    if (!file) {
      const picked = await vscode.window.showOpenDialog({
        canSelectMany: false,
        openLabel: 'Ingest into Memory',
        title: 'Ingest a text file into Agent Memory',
        ...(fileFolders()[0] ? { defaultUri: fileFolders()[0]!.uri } : {}),
        filters: {
          'Text files': ['md', 'txt', 'rst', 'adoc', 'json', 'yaml', 'yml', 'toml', 'ts', 'js', 'py', 'go', 'rs', 'java'],
          'All files': ['*'],
        },
      });
      file = picked?.[0]?.fsPath;
    }
    if (!file) return undefined;
    const target = file;
    const r = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `Ingesting ${path.basename(target)}`, cancellable: true },
      (progress, token) => {
        const ac = new AbortController();
        token.onCancellationRequested(() => ac.abort());
        let last = 0;
        return engine.request(
          'documents.ingest',
          { path: target },
          {
            signal: ac.signal,
            onProgress: (done, total, message) => {
              const pct = total ? (done / total) * 100 : 0;
              progress.report({ increment: Math.max(0, pct - last), ...(message ? { message } : {}) });
              last = pct;
            },
          },
        );
      },
    );
    const name = path.basename(target);
    if (r.status === 'failed') void vscode.window.showErrorMessage(ingestMessage(name, r));
    else void showIngested(name, r);
    return r;
  });

  // ── store folder ────────────────────────────────────────────────────────────────────────
  run(PIPELINE_COMMANDS.openStoreFolder, 'open store folder', async () => {
    const dir = (await engine.request('stats', {})).project.dir;
    const uri = vscode.Uri.file(dir);
    // The OS file manager only exists next to a desktop window on the same machine; in the
    // browser (code-server) or a remote window, offer a new window on the folder instead.
    if (vscode.env.uiKind === vscode.UIKind.Desktop && !vscode.env.remoteName) {
      await vscode.commands.executeCommand('revealFileInOS', uri);
      return { dir, action: 'revealed' as const };
    }
    void vscode.window.showInformationMessage(`Agent Memory store: ${dir}`, 'Open in New Window', 'Copy Path').then((pick) => {
      if (pick === 'Open in New Window') void vscode.commands.executeCommand('vscode.openFolder', uri, { forceNewWindow: true });
      if (pick === 'Copy Path') void vscode.env.clipboard.writeText(dir);
    });
    return { dir, action: 'offered' as const };
  });

  // ── multi-root ──────────────────────────────────────────────────────────────────────────
  const switchTo = async (folder: vscode.WorkspaceFolder) => {
    await context.workspaceState.update(PROJECT_FOLDER_KEY, folder.uri.fsPath);
    if (engine.currentInit.workspaceRoot === folder.uri.fsPath && engine.state === 'ready') return engine.ready!;
    engine.updateInit({ workspaceRoot: folder.uri.fsPath });
    const info = await engine.restart();
    refreshAll();
    return info;
  };
  run(PIPELINE_COMMANDS.switchProjectFolder, 'switch project folder', async (arg?: unknown) => {
    const folders = fileFolders();
    const wanted = arg instanceof vscode.Uri ? arg.fsPath : typeof arg === 'string' ? arg : undefined;
    let folder = wanted ? folders.find((f) => f.uri.fsPath === wanted || f.name === wanted) : undefined;
    if (wanted && !folder) throw new Error(`${wanted} is not a folder of this workspace.`);
    if (!folder) {
      if (folders.length < 2) {
        void vscode.window.showInformationMessage('This workspace has one folder: its project is the one in use.');
        return engine.ready;
      }
      const pick = await vscode.window.showQuickPick(
        folders.map((f) => ({
          label: f.name,
          description: f.uri.fsPath === engine.currentInit.workspaceRoot ? '(in use)' : '',
          detail: f.uri.fsPath,
          folder: f,
        })),
        { placeHolder: "Keep memories for which workspace folder's project?" },
      );
      folder = pick?.folder;
    }
    if (!folder) return engine.ready;
    const info = await switchTo(folder);
    void vscode.window.showInformationMessage(`Agent Memory: now serving project ${info.projectId} (${folder.name}).`);
    return info;
  });
  if (pickProjectFolder(context.workspaceState).ambiguous) {
    const f = engine.currentInit.workspaceRoot;
    void vscode.window
      .showInformationMessage(
        `Agent Memory keeps memories per project; this workspace has ${fileFolders().length} folders and uses ${f ? path.basename(f) : 'the first'}.`,
        'Switch…',
        'Keep',
      )
      .then((pick) => {
        if (pick === 'Switch…') void vscode.commands.executeCommand(PIPELINE_COMMANDS.switchProjectFolder);
        if (pick === 'Keep' && f) void context.workspaceState.update(PROJECT_FOLDER_KEY, f);
      });
  }

  run(PIPELINE_COMMANDS.refreshPipeline, 'refresh pipeline', async () => pipeline.refresh());

  // ── workspace trust ─────────────────────────────────────────────────────────────────────
  context.subscriptions.push(
    vscode.workspace.onDidGrantWorkspaceTrust(() => {
      log.info('workspace trusted: restarting the memory engine writable');
      engine.updateInit({ restricted: false });
      void vscode.commands.executeCommand('setContext', KEY_RESTRICTED, false);
      engine.restart().then(
        () => refreshAll(),
        (e) => reportError(log, 'restart after trust', e),
      );
    }),
  );
  if (!vscode.workspace.isTrusted) {
    void vscode.window.showInformationMessage(
      'Agent Memory runs in restricted mode in this untrusted workspace: memories are read-only and the pipeline is off until you trust it.',
    );
  }

  return { suggestions, pipeline };
}

/** The ingest outcome, with "Open First Chunk" when the file has chunks. */
async function showIngested(name: string, r: DocumentIngestResult): Promise<void> {
  const first = r.memoryIds[0];
  const pick = await vscode.window.showInformationMessage(ingestMessage(name, r), ...(first ? ['Open First Chunk'] : []));
  if (pick && first) await vscode.commands.executeCommand('agentMemory.openMemory', first);
}
