/**
 * The Suggestions and Pipeline views and the pipeline's commands: pause / resume, switch its
 * mode, review its proposals, undo its changes, ingest a file. The handlers are a table
 * (PIPELINE_COMMAND_TABLE); the suggestion commands are suggestionCommands.ts, the store and
 * project folder commands host/folderCommands.ts, workspace trust trust/workspaceTrust.ts.
 * Commands take their target as an argument (tree node, id, path) or ask; they return their
 * outcome for tests.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { showWithOpen } from '../common/openAction';
import type { EngineClient } from '../../engine/client/engineClient';
import type { DocumentIngestResult, PipelineModeName, PipelineReview, PipelineStatus } from '../../engine/protocol';
import type { Logger } from '../host/log';
import { commandRegistrar, registerCommandTable, type CommandEntry } from '../common/commandTable';
import type { SettingsWriter } from '../config/settingsWriter';
import { PIPELINE_PAUSED_KEY } from '../host/engineHost';
import { fileFolders } from '../host/projectFolder';
import { SUGGESTIONS_VIEW_ID, SuggestionsProvider } from '../suggestions/suggestionsView';
import { registerSuggestionCommands } from '../suggestions/suggestionCommands';
import { KEY_RESTRICTED } from '../trust/workspaceTrust';
import { ingestMessage } from './ingestMessage';
import { PIPELINE_VIEW_ID, PipelineViewProvider, type PipelineNode } from './pipelineView';
import { checkPipelineModel, pullPipelineModel } from './pipelineReadiness';
import { truncateLine } from '../../core/text/truncate';
import { relativeTime } from '../../core/text/timeWords';
import type { CommandId, ContextKey } from '../commandIds';

/** Options of a programmatic switchPipelineMode(mode, options). */
interface SwitchOptions {
  where?: 'workspace' | 'user';
  /** Probe Ollama and the model first (interactive switches always do). */
  check?: boolean;
  /** With `check`: pull a missing model instead of switching without it. */
  pull?: boolean;
}

export const PIPELINE_COMMANDS = {
  pause: 'agentMemory.pausePipeline',
  resume: 'agentMemory.resumePipeline',
  switchMode: 'agentMemory.switchPipelineMode',
  reviewProposals: 'agentMemory.reviewProposals',
  approveReview: 'agentMemory.approveReview',
  rejectReview: 'agentMemory.rejectReview',
  undoChange: 'agentMemory.undoPipelineChange',
  ingestFile: 'agentMemory.ingestFile',
  refreshPipeline: 'agentMemory.refreshPipeline',
} as const satisfies Record<string, CommandId>;

/** Context keys for `when`/`enablement` clauses in package.json. */
const KEY_PAUSED = 'agentMemory.pipelinePaused' satisfies ContextKey;

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

/** What the handlers share. */
interface PipelineContext {
  context: vscode.ExtensionContext;
  engine: EngineClient;
  settings: SettingsWriter;
  log: Logger;
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

/** The pipeline's context keys from its status. */
function setKeys(s: PipelineStatus): void {
  void vscode.commands.executeCommand('setContext', KEY_PAUSED, !!s.paused);
  void vscode.commands.executeCommand('setContext', KEY_RESTRICTED, !!s.restricted);
}

// ── pause, resume, mode ─────────────────────────────────────────────────────────────────────
async function setPaused({ context, engine, pipeline }: PipelineContext, paused: boolean): Promise<PipelineStatus> {
  const s = await engine.request(paused ? 'pipeline.pause' : 'pipeline.resume', {});
  // Remembered per workspace: the next engine start (crash restart, reload) starts paused too.
  await context.workspaceState.update(PIPELINE_PAUSED_KEY, paused);
  engine.updateInit({ pipelinePaused: paused });
  setKeys(s);
  pipeline.refresh();
  return s;
}

// Interactive: pick the mode, check Ollama and the model (offer to pull it), then ask where
// to save. Programmatic: switchPipelineMode(mode, { where, check, pull }) — without `check`
// nothing is probed (tests and other extensions decide themselves).
async function switchMode(c: PipelineContext, arg?: unknown, options?: unknown) {
  const opts = options as SwitchOptions | undefined;
  const interactive = typeof arg !== 'string';
  const mode = interactive ? await pickMode(c.engine) : (arg as PipelineModeName);
  if (!mode) return undefined;
  if (interactive || opts?.check) {
    const go = await ensureReady(c, mode, interactive, opts?.pull === true);
    if (!go) return undefined;
  }
  const where = opts?.where ?? (interactive ? await pickTarget() : 'workspace');
  if (!where) return undefined;
  // Engine first: it validates the mode and applies it now.
  const r = await c.engine.request('pipeline.setMode', { mode });
  // Then the settings (the settings bridge), so the mode survives restarts: all keys as one
  // change, followed by one config reload with the same values.
  await c.settings.write(r.settings, `pipeline mode ${mode}`, where);
  c.pipeline.refresh();
  const saved = where === 'user' ? 'your user settings' : "this workspace's settings";
  if (interactive) void vscode.window.showInformationMessage(`Agent Memory: pipeline mode is now ${mode} (saved in ${saved}).`);
  return r;
}

async function pickMode(engine: EngineClient): Promise<PipelineModeName | undefined> {
  const current = (await engine.request('pipeline.status', {})).mode;
  const pick = await vscode.window.showQuickPick(
    MODES.map((m) => ({ label: m.label, description: m.mode === current ? '(current)' : '', detail: m.detail, mode: m.mode })),
    { placeHolder: `Pipeline mode (now ${current})` },
  );
  return pick?.mode;
}

async function pickTarget(): Promise<'workspace' | 'user' | undefined> {
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
}

/** Checks Ollama and the model; offers to pull a missing model. False: the person cancelled. */
async function ensureReady(c: PipelineContext, mode: PipelineModeName, interactive: boolean, pull: boolean): Promise<boolean> {
  const { engine, log } = c;
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
    await pullWithProgress(log, llm);
    return true;
  }
  if (!interactive) return true;
  const choice = await vscode.window.showWarningMessage(readiness.message, { modal: true }, 'Switch Anyway');
  return choice === 'Switch Anyway';
}

function pullWithProgress(log: Logger, llm: { url: string; model: string }) {
  return vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `Pulling ${llm.model}` }, async (progress) => {
    let last = 0;
    await pullPipelineModel(llm, (message, percent) => {
      const increment = percent !== undefined ? Math.max(0, percent - last) : 0;
      if (percent !== undefined) last = Math.max(last, percent);
      progress.report({ message: percent !== undefined ? `${message} (${percent}%)` : message, increment });
    });
    log.info(`pulled ${llm.model} from ${llm.url}`);
    void vscode.window.showInformationMessage(`Agent Memory: ${llm.model} is installed in Ollama.`);
  });
}

// ── reviews ─────────────────────────────────────────────────────────────────────────────────
async function decide({ engine, pipeline }: PipelineContext, id: string, decision: 'approve' | 'reject') {
  const r = decision === 'approve' ? await engine.request('reviews.approve', { id }) : await engine.request('reviews.reject', { id });
  pipeline.refresh();
  return r;
}

async function approveReview(c: PipelineContext, arg?: unknown) {
  const id = reviewIdOf(arg);
  if (!id) return vscode.commands.executeCommand(PIPELINE_COMMANDS.reviewProposals);
  const r = await decide(c, id, 'approve');
  if ('status' in r && r.status === 'stale')
    void vscode.window.showWarningMessage(`Agent Memory: nothing applied: ${r.reason ?? 'the memory changed meanwhile'}.`);
  return r;
}

async function reviewProposals(c: PipelineContext, idArg?: unknown, decisionArg?: unknown) {
  const { engine } = c;
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
  return decision ? decide(c, id, decision) : reviews;
}

// ── undo ────────────────────────────────────────────────────────────────────────────────────
async function undoChange({ engine, pipeline }: PipelineContext, arg?: unknown) {
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
}

// ── documents ───────────────────────────────────────────────────────────────────────────────
async function ingestFile({ engine }: PipelineContext, arg?: unknown): Promise<DocumentIngestResult | undefined> {
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
}

/** Every command of PIPELINE_COMMANDS: what it does, in words, and its handler. */
const PIPELINE_COMMAND_TABLE: Record<keyof typeof PIPELINE_COMMANDS, CommandEntry<PipelineContext>> = {
  pause: { what: 'pause pipeline', run: (c) => setPaused(c, true) },
  resume: { what: 'resume pipeline', run: (c) => setPaused(c, false) },
  switchMode: { what: 'switch pipeline mode', run: switchMode },
  approveReview: { what: 'approve proposal', run: approveReview },
  rejectReview: {
    what: 'reject proposal',
    run: async (c, arg) => {
      const id = reviewIdOf(arg);
      return id ? decide(c, id, 'reject') : vscode.commands.executeCommand(PIPELINE_COMMANDS.reviewProposals);
    },
  },
  reviewProposals: { what: 'review proposals', run: reviewProposals },
  undoChange: { what: 'undo pipeline change', run: undoChange },
  ingestFile: { what: 'ingest file', run: ingestFile },
  refreshPipeline: { what: 'refresh pipeline', run: async ({ pipeline }) => pipeline.refresh() },
};

export function registerPipelineSurfaces(d: {
  context: vscode.ExtensionContext;
  engine: EngineClient;
  settings: SettingsWriter;
  log: Logger;
}): PipelineSurfaces {
  const { context, engine, log } = d;
  const suggestions = new SuggestionsProvider(engine);
  const pipeline = new PipelineViewProvider(engine);
  const suggestionsView = vscode.window.createTreeView(SUGGESTIONS_VIEW_ID, { treeDataProvider: suggestions, showCollapseAll: true });
  const pipelineView = vscode.window.createTreeView(PIPELINE_VIEW_ID, { treeDataProvider: pipeline });
  suggestions.view = suggestionsView;
  pipeline.view = pipelineView;
  context.subscriptions.push(suggestions, pipeline, suggestionsView, pipelineView);
  context.subscriptions.push(
    engine.onEvent((e) => {
      if (e.type === 'pipeline.state') setKeys(e.status);
    }),
    engine.onStateChange((s) => {
      if (s.state === 'ready') engine.request('pipeline.status', {}).then(setKeys, () => undefined);
    }),
  );
  const run = commandRegistrar(context, log);
  registerSuggestionCommands({ context, engine, log, suggestions, run });
  registerCommandTable(run, PIPELINE_COMMANDS, PIPELINE_COMMAND_TABLE, { ...d, pipeline });
  return { suggestions, pipeline };
}

/** The ingest outcome, with "Open First Chunk" when the file has chunks. */
async function showIngested(name: string, r: DocumentIngestResult): Promise<void> {
  const first = r.memoryIds[0];
  const pick = await vscode.window.showInformationMessage(ingestMessage(name, r), ...(first ? ['Open First Chunk'] : []));
  if (pick && first) await vscode.commands.executeCommand('agentMemory.openMemory', first);
}
