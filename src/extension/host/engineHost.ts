/**
 * Starts the engine for this window — its own worker (dist/engine.js) owning the project's
 * shared store, or a connection to the window or agent that owns it — and keeps it in step with VS Code:
 * settings and agent.yaml changes → config.reload; crashes are shown (the client restarts the
 * worker with backoff); deactivation → clean shutdown (snapshot). The UI thread only talks to
 * the engine through the EngineClient: it never opens a store.
 */
import * as vscode from 'vscode';
import { Worker } from 'node:worker_threads';
import { EngineClient, type EngineStateChange, type Handover } from '../../engine/client/engineClient';
import { ERROR_SENTENCES } from '../../present/errorText';
import { resolveStoreHome } from '../../engine/storeLocation';
import { RESTARTING_OWNER_WAIT_MS, SharedTransport } from '../../engine/client/sharedTransport';
import type { EngineInit } from '../../engine/protocol';
import { CONFIG_FILE_CANDIDATES, configChangedAt } from '../../core/config/files';
import { WATCHER_SETTLE_MS } from '../config/configDiagnostics';
import type { Logger } from './log';
import { ENCRYPTION_COMMANDS } from '../trust/encryptionCommands';
import { IMPORT_RECOVERY_KEY } from '../trust/encryptionText';
import { readSettingOverrides } from '../config/settings';
import { ENGINE_WORKER_LIMITS } from '../../core/util/workerHeap';
import { SETTINGS_SECTION } from '../config/settingsSchema';
import { pickProjectFolder } from './projectFolder';
import { SettingsWriter } from '../config/settingsWriter';
import type { ContextKey } from '../commandIds';

/** workspaceState key: pipeline.pause survives engine restarts and window reloads of this workspace. */
export const PIPELINE_PAUSED_KEY = 'agentMemory.pipelinePaused';
/** File times may be rounded to the second; a file this much older than a read may not have been seen by it. */
const CLOCK_SLACK_MS = 2000;

export function engineInit(context: vscode.ExtensionContext): EngineInit {
  // Multi-root: the chosen folder, else the active editor's, else the first (projectFolder.ts).
  const folder = pickProjectFolder(context.workspaceState).folder;
  const globalDir = context.globalStorageUri.fsPath;
  return {
    ...(folder ? { workspaceRoot: folder.uri.fsPath } : {}),
    // The shared store folder of every window, clone and agent (src/engine/storeLocation.ts).
    home: resolveStoreHome(vscode.workspace.getConfiguration(SETTINGS_SECTION).get<string>('storeHome')),
    // Where earlier versions kept this window's stores: merged into the shared ones on first open.
    storageDir: context.storageUri?.fsPath ?? `${globalDir}/no-workspace`,
    globalStorageDir: globalDir,
    settings: readSettingOverrides(),
    purpose: `VS Code window (pid ${process.pid})`,
    allowDebug: context.extensionMode === vscode.ExtensionMode.Test,
    // Untrusted workspace: read-only, no pipeline; trust granted → restarted writable (pipelineCommands.ts).
    restricted: !vscode.workspace.isTrusted,
    pipelinePaused: context.workspaceState.get<boolean>(PIPELINE_PAUSED_KEY) === true,
  };
}

export interface EngineHost {
  engine: EngineClient;
  /** Multi-key settings writes that reach the engine as one reload (settingsWriter.ts). */
  settings: SettingsWriter;
  /** Whether this window serves the project's store or is a client of the window (or agent) that does. */
  role: () => 'owner' | 'client' | undefined;
  /** Sends this window's settings to the engine now (config.reload). */
  reloadNow: (why: string) => Promise<void>;
  /** Fires when the engine has applied this window's settings. */
  onSettingsApplied: vscode.Event<void>;
  /** Who went away on purpose when the engine reconnects (the status bar words it). */
  handovers: HandoverTracker;
}

export function startEngine(context: vscode.ExtensionContext, log: Logger): EngineHost {
  const workerPath = vscode.Uri.joinPath(context.extensionUri, 'dist', 'engine.js').fsPath;
  // Owner of the project's shared store (serving it to other windows and agents), or a client
  // of the process that owns it; a client takes over when the owner goes (ARCHITECTURE.md).
  let transport: SharedTransport | undefined;
  const client = new EngineClient({
    init: engineInit(context),
    // The settings as they are now: a window that takes the store over runs the person's
    // settings, not those it read when it started (ownership.ts compares them on connecting).
    spawn: (init, hint) =>
      (transport = new SharedTransport({
        init: init.restricted ? init : { ...init, settings: readSettingOverrides() },
        // The owner restarts its engine: it keeps the store, this window reconnects to it.
        ...(hint?.ownerRestarting ? { waitForOwnerMs: RESTARTING_OWNER_WAIT_MS } : {}),
        client: `VS Code window (pid ${process.pid})`,
        log: (line) => log.info(`engine: ${line}`),
        spawnWorker: (i) => new Worker(workerPath, { workerData: i, resourceLimits: ENGINE_WORKER_LIMITS }),
      })),
    log: (line) => log.info(`engine: ${line}`),
  });
  const handovers = new HandoverTracker(client);
  const states = new StateReporter(log, () => transport?.role, handovers);
  client.onStateChange((s) => states.report(s));
  client.onEvent((e) => {
    // Configuration problems are logged once each by configDiagnostics.ts, not on every reload.
    if (e.type === 'warning' && !e.message.startsWith('config: ')) log.info(`engine warning: ${e.message}`);
    if (e.type === 'log') log.info(`engine: ${e.message}`);
  });

  // Resolves when the engine has applied the settings (or the reload failed and was logged).
  // `settingsOnly`: skip when the settings are what was last sent (VS Code fires one event per
  // written key, often after the write that caused it was already applied as a whole).
  let lastSent = JSON.stringify(client.currentInit.settings ?? {});
  const applied = new vscode.EventEmitter<void>();
  context.subscriptions.push(applied);
  /** The engine read agent.yaml after this moment (its start, or the last reload asked for). */
  let configReadAfter = Date.now();
  const reloadNow = async (why: string, settingsOnly = false): Promise<void> => {
    const overrides = readSettingOverrides();
    const key = JSON.stringify(overrides);
    if (settingsOnly && key === lastSent) return;
    lastSent = key;
    configReadAfter = Date.now();
    // A later (crash) restart starts with these settings, not the ones of activation time.
    client.updateInit({ settings: overrides });
    // Requests wait while the engine starts; a restarting engine picks up the new init instead.
    if (client.state !== 'ready' && client.state !== 'starting') return;
    log.info(`reloading configuration (${why})`);
    try {
      await client.request('config.reload', { settings: overrides });
      applied.fire();
    } catch (e) {
      log.error('config reload failed', e);
    }
  };
  const settings = new SettingsWriter(reloadNow);
  const reload = (why: string, settingsOnly = false) => {
    if (!settings.holding) void reloadNow(why, settingsOnly);
  };
  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration(SETTINGS_SECTION)) reload('settings changed', true);
    }),
  );
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (folder) {
    const pattern = new vscode.RelativePattern(folder, `{${CONFIG_FILE_CANDIDATES.join(',')}}`);
    const watcher = vscode.workspace.createFileSystemWatcher(pattern);
    for (const ev of [watcher.onDidChange, watcher.onDidCreate, watcher.onDidDelete])
      ev(() => reload('agent.yaml changed'), undefined, context.subscriptions);
    context.subscriptions.push(watcher);
  }
  // A file watcher takes a moment to go live: an agent.yaml written while the engine starts can
  // be missed by both. So once ready, and once more when the watcher has surely settled, a file
  // written since the engine last read it is reloaded (a redundant reload costs little).
  const catchUp = async (): Promise<void> => {
    if (!folder) return;
    const changed = await configChangedAt(folder.uri.fsPath);
    if (changed !== undefined && changed >= configReadAfter - CLOCK_SLACK_MS) reload('agent.yaml changed while the engine started');
  };
  let settle: NodeJS.Timeout | undefined;
  context.subscriptions.push({ dispose: () => clearTimeout(settle) });
  client.start().then(
    (info) => {
      log.info(
        `engine ready: project ${info.projectId}, stores opened in ${info.openMs.toFixed(0)} ms` +
          (info.warnings.length ? `; warnings: ${info.warnings.join(' | ')}` : ''),
      );
      void catchUp();
      settle = setTimeout(() => void catchUp(), WATCHER_SETTLE_MS);
    },
    (e) => log.error('engine could not start', e),
  );
  return {
    engine: client,
    settings,
    role: () => (client.state === 'ready' ? transport?.role : undefined),
    reloadNow: (why) => reloadNow(why),
    onSettingsApplied: applied.event,
    handovers,
  };
}

/** Context key: the engine's state, so the Memories view says "Opening…" rather than "No memories yet" while it starts. */
export const ENGINE_STATE_CONTEXT = 'agentMemory.engineState' satisfies ContextKey;

/**
 * Says what the engine does, in the log and where people look. A crash of this window's engine
 * restarts with a warning; the store's owner (another window or process) going away is a
 * handover — on purpose (Restart Engine in its window, the window closing: it said so) or not
 * (killed) — logged as such, with the time until this window is back, and no warning.
 */
class StateReporter {
  /** When the owner said it went away (handover in progress). */
  private handoverSince: number | undefined;

  constructor(
    private readonly log: Logger,
    private readonly role: () => 'owner' | 'client' | undefined,
    private readonly handovers: HandoverTracker,
  ) {}

  report(s: EngineStateChange): void {
    void vscode.commands.executeCommand('setContext', ENGINE_STATE_CONTEXT, s.state);
    const handover = this.handoverSince === undefined ? this.handovers.of(s) : undefined;
    if (handover) {
      this.handoverSince = Date.now();
      this.log.info(handoverText(handover));
      return;
    }
    if (s.state === 'ready' && this.handoverSince !== undefined) {
      const ms = Date.now() - this.handoverSince;
      this.handoverSince = undefined;
      this.log.info(
        `back after ${ms} ms: ${this.role() === 'owner' ? "this window now serves the project's memory" : "connected to the window that serves the project's memory now"}`,
      );
      return;
    }
    if (s.state === 'restarting' && this.handoverSince !== undefined) return; // said above
    this.handoverSince = undefined;
    this.log.info(
      `engine state: ${s.state}${s.reason ? ` (${s.reason})` : ''}${s.retryInMs !== undefined ? `, restart in ${s.retryInMs} ms` : ''}`,
    );
    if (s.state === 'failed') this.failed(s);
    else if (s.state === 'restarting' && s.restarts === 1) {
      void vscode.window.showWarningMessage(`Agent Memory: the memory engine crashed and is restarting (${s.reason ?? 'unknown reason'}).`);
    }
  }

  /** The engine stopped for good: why, and the button that helps (a store key missing or wrong: import the recovery key). */
  private failed(s: EngineStateChange): void {
    if (s.code === 'store_key_missing' || s.code === 'store_key_wrong') return this.keyMissing(s.code);
    void vscode.window
      .showErrorMessage(`Agent Memory: the memory engine stopped. ${s.reason ?? ''}`, 'Restart Engine', 'Show Log')
      .then((pick) => {
        if (pick === 'Restart Engine') void vscode.commands.executeCommand('agentMemory.restartEngine');
        if (pick === 'Show Log') this.log.channel.show(true);
      });
  }

  /**
   * The store is encrypted and its key is not here (or does not open it): the sentence of the error
   * catalogue and the button that imports the recovery key (then the engine starts again). The
   * engine's own message (the store's folder, the key's id, where it was looked for: words for the
   * CLI) is in the log, on the "engine state: failed" line.
   */
  private keyMissing(code: 'store_key_missing' | 'store_key_wrong'): void {
    void vscode.window.showErrorMessage(`Agent Memory: ${ERROR_SENTENCES[code]}`, IMPORT_RECOVERY_KEY, 'Show Log').then((pick) => {
      if (pick === IMPORT_RECOVERY_KEY) void vscode.commands.executeCommand(ENCRYPTION_COMMANDS.importRecoveryKey);
      if (pick === 'Show Log') this.log.channel.show(true);
    });
  }
}

export type { Handover };

/**
 * Who went away, for a reconnection: the client's state says it (handover, with who when the
 * owner said so), or the owner's own word just before its connection closed (the owner.leaving
 * event) does.
 */
export class HandoverTracker {
  private said: Handover | undefined;

  constructor(engine: EngineClient) {
    engine.onEvent((e) => {
      if (e.type === 'owner.leaving') this.said = { owner: e.owner, restarting: e.restarting };
    });
    engine.onStateChange((s) => {
      if (s.state === 'ready' || s.state === 'stopped' || s.state === 'failed') this.said = undefined;
    });
  }

  /** The handover a state change is part of, if any. */
  of(s: EngineStateChange): Handover | undefined {
    if (s.state !== 'restarting' || s.handover?.owner) return s.handover;
    return this.said ?? s.handover;
  }
}

/**
 * "The window that served this project's memory (VS Code window (pid 123)) is restarting its
 * engine: reconnecting."; an owner that went away without a word (killed): "The window or process
 * that served this project's memory went away: reconnecting."
 */
export function handoverText(h: Handover): string {
  if (!h.owner) return "The window or process that served this project's memory went away: reconnecting.";
  const who = /^VS Code window/.test(h.owner) ? 'The window' : 'The process';
  return `${who} that served this project's memory (${h.owner}) ${h.restarting ? 'is restarting its engine' : 'closed'}: reconnecting.`;
}
