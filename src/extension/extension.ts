// Extension entry point (UI thread of the extension host). It starts the engine worker and
// wires the surfaces to it: commands, the memory tree, search and graph panels, the @memory
// chat participant, language-model tools, the status bar and the log. The UI thread never
// opens a store: everything goes through the EngineClient (src/engine/client/engineClient.ts).
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { EngineClient } from '../engine/client/engineClient';
import type { EngineDiagnostics, SearchResponse } from '../engine/protocol';
import { createLogger, OUTPUT_CHANNEL_NAME, type Logger } from './host/log';
import { startEngine } from './host/engineHost';
import { Ownership } from './host/ownership';
import { registerAgentAccess } from './agents/mcpAccess';
import { StatusBar } from './host/statusBar';
import { MemoryTreeProvider, TREE_VIEW_ID, registerTreeCommands } from './memories/memoryTree';
import { registerMemoryDocuments } from './memories/memoryDocument';
import { registerMemoryDiagnostics } from './memories/memoryDiagnostics';
import { registerHistoryCommands } from './history/historyView';
import { registerCommands } from './memories/memoryCommands';
import { commandRegistrar } from './common/commandTable';
import { createChatHandler, registerChatParticipant, type ChatHandler } from './chat/chatParticipant';
import { registerTools } from './chat/lmTools';
import { registerPipelineSurfaces, type PipelineSurfaces } from './pipeline/pipelineCommands';
import { registerEncryptionCommands } from './trust/encryptionCommands';
import { registerWorkspaceTrust } from './trust/workspaceTrust';
import { registerFolderCommands } from './host/folderCommands';
import { TeamStatusBar } from './team/teamStatusBar';
import { registerTeamCommands } from './team/teamCommands';
import { ConfigDiagnostics } from './config/configDiagnostics';
import { registerRecallCommand } from './search/recallCommand';
import { registerRemovedView, type RemovedTreeProvider } from './history/removedView';
import { registerWebhooksView } from './webhooks/webhooksView';
import { registerSessionsView, type SessionsTreeProvider } from './sessions/sessionsView';
import { createChatRecorder } from './sessions/chatRecorder';
import { registerExpiryNotice } from './history/expiryNotice';
import { registerScheduleNotices } from './schedules/scheduleNotice';
import { registerReadOnlyDocuments } from './common/readOnlyDocument';
import { registerReminderCommands } from './schedules/reminderCommands';
import { registerSchedulesView, type SchedulesTreeProvider } from './schedules/scheduleView';
import { registerUndoCommand } from './history/undoLast';
import { registerToolImportCommands } from './agents/toolImportCommands';
import { plural } from '../core/text/plural';
import { attentionItems, diagnosticsSummary } from './diagnostics/diagnosticsSummary';
import { showDiagnosticsDocument } from './diagnostics/diagnosticsDocument';
import type { CommandId } from './commandIds';
import { markDeactivating } from './host/shutdown';

export { OUTPUT_CHANNEL_NAME };
export const COMMAND_SHOW_DIAGNOSTICS = 'agentMemory.showDiagnostics' satisfies CommandId;

/** What "Agent Memory: Show Diagnostics" reports (also its return value, used by tests). */
export interface Diagnostics {
  active: true;
  extensionVersion: string;
  vscodeVersion: string;
  appHost: string;
  uiKind: 'desktop' | 'web';
  extensionMode: 'production' | 'development' | 'test';
  node: string;
  platform: string;
  workspaceFolders: string[];
  globalStorage: string;
  workspaceStorage: string | undefined;
  engineState: string;
  /** activate() start → return, in ms. */
  activationMs: number;
  /** activate() start → the first recall answered (search, chat or tool), if one happened yet. */
  firstRecallMs?: number;
  engineReadyMs?: number;
  engine?: EngineDiagnostics;
  engineError?: string;
}

/** The API returned by `activate` (what `vscode.extensions.getExtension(...).exports` gives). */
export interface AgentMemoryApi {
  diagnostics(): Diagnostics;
  engine: EngineClient;
  tree: MemoryTreeProvider;
  chatHandler: ChatHandler;
  /** The Suggestions and Pipeline views' data providers (pipelineCommands.ts). */
  views: PipelineSurfaces;
  /** The "Recently Deleted and Expired" view's data provider (removedView.ts). */
  removed: RemovedTreeProvider;
  /** The Schedules view's data provider (scheduleView.ts). */
  schedules: SchedulesTreeProvider;
  /** The Sessions view's data provider (sessions/sessionsView.ts). */
  sessions: SessionsTreeProvider;
}

function modeName(mode: vscode.ExtensionMode): Diagnostics['extensionMode'] {
  switch (mode) {
    case vscode.ExtensionMode.Development:
      return 'development';
    case vscode.ExtensionMode.Test:
      return 'test';
    default:
      return 'production';
  }
}

let engineRef: EngineClient | undefined;

export function activate(context: vscode.ExtensionContext): AgentMemoryApi {
  const t0 = performance.now();
  const timings: { activationMs: number; firstRecallMs?: number; engineReadyMs?: number } = { activationMs: 0 };
  const log = createLogger();
  context.subscriptions.push(log.channel);

  const host = startEngine(context, log);
  const { engine, settings } = host;
  registerAgentAccess(context, log);
  engineRef = engine;
  void engine.whenReady().then(
    () => {
      timings.engineReadyMs ??= performance.now() - t0;
    },
    () => undefined,
  );
  const onRecall = (r: SearchResponse) => {
    if (timings.firstRecallMs !== undefined) return;
    timings.firstRecallMs = performance.now() - t0;
    log.info(
      `first recall answered ${timings.firstRecallMs.toFixed(0)} ms after activation began (${r.hits.length} hits, ${r.tookMs.toFixed(1)} ms in the engine)`,
    );
  };

  const tree = new MemoryTreeProvider(engine, context.workspaceState);
  const statusBar = new StatusBar(engine, host.handovers);
  context.subscriptions.push(
    tree,
    statusBar,
    vscode.window.createTreeView(TREE_VIEW_ID, { treeDataProvider: tree, showCollapseAll: true }),
  );
  registerMemoryDocuments(context, engine);
  registerMemoryDiagnostics(context);
  registerCommands({ context, engine, tree, log, onRecall, role: host.role });
  const removed = registerRemovedView(context, engine, log);
  const sessions = registerSessionsView(context, engine, log);
  registerWebhooksView(context, engine, log);
  registerExpiryNotice(context, engine, log);
  registerReadOnlyDocuments(context);
  registerScheduleNotices(context, engine, log);
  registerReminderCommands(commandRegistrar(context, log), engine);
  const schedules = registerSchedulesView(context, engine, log);
  registerUndoCommand(commandRegistrar(context, log));
  // globalStorageUri is <user data>/User/globalStorage/<this extension>: VS Code's own User folder is two up.
  registerToolImportCommands(commandRegistrar(context, log), engine, path.dirname(path.dirname(context.globalStorageUri.fsPath)));
  registerHistoryCommands(context, engine, log);
  registerEncryptionCommands(context, engine, log);
  const teamStatus = new TeamStatusBar(engine);
  context.subscriptions.push(teamStatus);
  registerTeamCommands({ context, engine, statusBar: teamStatus, run: commandRegistrar(context, log) });
  registerRecallCommand(context, engine, log, onRecall);
  // agent.yaml problems → Problems panel, one notification per change, status bar warning.
  const configProblems = new ConfigDiagnostics(vscode.workspace.workspaceFolders?.[0]?.uri, log, (s) => statusBar.setConfigProblems(s));
  context.subscriptions.push(
    configProblems.start(),
    // Again once the engine has read its configuration: an agent.yaml written while the window
    // starts can land after the first check and before the file watcher is live.
    engine.onStateChange((st) => {
      if (st.state === 'ready') void configProblems.check();
    }),
  );
  registerTreeCommands(context, engine, tree);
  const views = registerPipelineSurfaces({ context, engine, settings, log });
  const refreshViews = () => {
    views.suggestions.refresh();
    views.pipeline.refresh();
  };
  registerFolderCommands({ context, engine, log, refresh: refreshViews });
  registerWorkspaceTrust({ context, engine, log, refresh: refreshViews });
  // The person's settings run the shared engine whichever window serves it, or the person is told (ownership.ts).
  const ownership = new Ownership(engine, host, log, (folder) => views.pipeline.setModeSource(folder));
  context.subscriptions.push(
    ownership,
    host.onSettingsApplied(() => ownership.settingsApplied()),
  );
  // @memory and the tools record their turns as a session (agentMemory.storage.recordChatSessions turns it off).
  const recorder = createChatRecorder(engine, log);
  const chatHandler = createChatHandler(engine, onRecall, recorder);
  registerChatParticipant(context, chatHandler);
  registerTools(context, engine, onRecall, recorder);

  const baseDiagnostics = (): Diagnostics => {
    const pkg = context.extension.packageJSON as { version?: unknown };
    return {
      active: true,
      extensionVersion: typeof pkg.version === 'string' ? pkg.version : 'unknown',
      vscodeVersion: vscode.version,
      appHost: vscode.env.appHost,
      uiKind: vscode.env.uiKind === vscode.UIKind.Web ? 'web' : 'desktop',
      extensionMode: modeName(context.extensionMode),
      node: process.version,
      platform: `${process.platform}-${process.arch}`,
      workspaceFolders: (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath),
      globalStorage: context.globalStorageUri.fsPath,
      workspaceStorage: context.storageUri?.fsPath,
      engineState: engine.state,
      ...timings,
    };
  };

  context.subscriptions.push(
    vscode.commands.registerCommand(COMMAND_SHOW_DIAGNOSTICS, () => showDiagnostics(context, engine, log, baseDiagnostics)),
  );

  timings.activationMs = performance.now() - t0;
  log.info(
    `Agent Memory ${baseDiagnostics().extensionVersion} activated in ${timings.activationMs.toFixed(1)} ms ` +
      `(VS Code ${vscode.version}, ${modeName(context.extensionMode)} mode)`,
  );
  return { diagnostics: baseDiagnostics, engine, tree, chatHandler, views, removed, schedules, sessions };
}

/** VS Code waits for this promise (a few seconds): the engine snapshots and releases its locks. */
export async function deactivate(): Promise<void> {
  markDeactivating();
  await engineRef?.shutdown(4000);
  engineRef = undefined;
}

/** "Agent Memory: Show Diagnostics": the engine's report in the log, a summary document and a notification; returns the report. */
async function showDiagnostics(
  context: vscode.ExtensionContext,
  engine: EngineClient,
  log: Logger,
  baseDiagnostics: () => Diagnostics,
): Promise<Diagnostics> {
  let engineDiagnostics: EngineDiagnostics | undefined;
  let engineError: string | undefined;
  // What the Pipeline view shows too (Ollama probed, failed jobs): the summary says what is degraded.
  const pipeline = engine.request('pipeline.diagnostics', {}, { timeoutMs: 10_000 }).catch(() => undefined);
  try {
    engineDiagnostics = await engine.request('diagnostics', {}, { timeoutMs: 10_000 });
  } catch (e) {
    engineError = (e as Error).message;
  }
  // Taken after the engine answered, so state and timings are current.
  const d: Diagnostics = {
    ...baseDiagnostics(),
    ...(engineDiagnostics ? { engine: engineDiagnostics } : {}),
    ...(engineError ? { engineError } : {}),
  };
  // Engine details first, the summary last: the output view shows the end.
  if (d.engine) logEngineDiagnostics(log, d.engine);
  const ms = (v: number | undefined) => (v === undefined ? '—' : `${v.toFixed(0)} ms`);
  log.info('Diagnostics');
  log.channel.appendLine(
    `  extensionVersion: ${d.extensionVersion} (${d.extensionMode} mode) · VS Code ${d.vscodeVersion} (${d.uiKind}, ${d.appHost}) · Node ${d.node} ${d.platform}`,
  );
  log.channel.appendLine(
    `  engine: ${d.engineState}${d.engineError ? ` (${d.engineError})` : ''} · activation ${ms(d.activationMs)} · engine ready after ${ms(d.engineReadyMs)} · first recall after ${ms(d.firstRecallMs)}`,
  );
  log.channel.appendLine(`  workspace: ${d.workspaceFolders.join(', ') || '(none)'}`);
  log.channel.appendLine(`  storage: ${d.workspaceStorage ?? '(no workspace storage)'} · global ${d.globalStorage}`);
  // People get sentences; versions, paths and timings stay in the log ("Show Log").
  const pipelineDiagnostics = await pipeline;
  await showDiagnosticsDocument(context, diagnosticsSummary(d.engine, d.engineError ?? engine.state, pipelineDiagnostics));
  const attention = d.engine ? attentionItems(d.engine, pipelineDiagnostics).length : 0;
  // Not awaited: the promise settles only when the notification is dismissed.
  void vscode.window
    .showInformationMessage(
      d.engine
        ? `Agent Memory is active: ${plural(d.engine.stats.project.memories + d.engine.stats.global.memories, 'memory', 'memories')}, project ${d.engine.projectId}` +
            (attention ? `. ${plural(attention, 'thing needs', 'things need')} attention (see the diagnostics).` : '')
        : `Agent Memory is active (engine: ${d.engineError ?? engine.state})`,
      'Show Log',
    )
    .then((pick) => pick === 'Show Log' && log.channel.show(true));
  return d;
}

/** The engine's part of Show Diagnostics, in the output channel. */
function logEngineDiagnostics(log: Logger, e: EngineDiagnostics): void {
  log.info('Engine');
  log.channel.appendLine(
    `  project ${e.projectId} (${e.projectIdKind}), stores opened in ${e.openMs.toFixed(0)} ms, up ${(e.uptimeMs / 1000).toFixed(0)} s`,
  );
  for (const s of [e.stats.project, e.stats.global]) {
    log.channel.appendLine(
      `  store ${s.projectId}: ${plural(s.memories, 'memory', 'memories')} (${s.deleted} deleted), seq ${s.seq}/${s.snapshotSeq} snapshotted, log ${s.logBytes} B, snapshot ${s.snapshotBytes} B${s.readOnly ? ', READ-ONLY' : ''} — ${s.dir}`,
    );
  }
  if (e.embedder)
    log.channel.appendLine(
      `  embedder: ${e.embedder.provider} (${e.embedder.space})${e.embedder.degraded ? ' DEGRADED' : ''} — ${e.embedder.reason}`,
    );
  log.channel.appendLine(`  pipeline: ${e.pipeline.state} (${e.pipeline.mode}) — ${e.pipeline.detail}`);
  log.channel.appendLine(
    `  config: ${e.config.file ?? 'no agent.yaml'}; from settings: ${e.config.overridden.join(', ') || 'none'}; ${plural(e.config.issues.length, 'issue')}`,
  );
  for (const w of e.warnings) log.channel.appendLine(`  warning: ${w}`);
}
