/**
 * Keeps the person's settings in charge of the shared engine whichever window serves the store
 * (ARCHITECTURE.md "One owner, many clients"), and says when they are not (ownerSettings.ts):
 * - on connecting as a client, this window's fresh reading of its settings is compared with what
 *   the owner runs (ReadyInfo.config): the same folder → sent to the owner if it differs (it
 *   missed a change); another folder → the owner's stay, the person is told what differs (once per
 *   difference), the Pipeline view's mode row says whose settings run, "Use This Window's
 *   Settings" sends this window's;
 * - after the store changed hands (a handover or a crash), a pipeline mode that changed with it is
 *   said in words, in the window that took over and in the others;
 * - the owner's pause follows to whichever window takes over (its next engine starts paused too).
 */
import * as vscode from 'vscode';
import type { EngineClient } from '../../engine/client/engineClient';
import type { ReadyInfo } from '../../engine/protocol';
import { loadEngineConfig } from '../../engine/worker/config';
import { pipelineMode } from '../../core/config';
import type { Logger } from './log';
import { compareWithOwner, ownershipMessage } from './ownerSettings';
import { readSettingOverrides } from '../config/settings';
import { SETTINGS_SECTION } from '../config/settingsSchema';

/** What ownership needs of the engine host (engineHost.ts). */
export interface OwnershipHost {
  role(): 'owner' | 'client' | undefined;
  /** Sends this window's settings to the engine (config.reload). */
  reloadNow(why: string): Promise<void>;
}

export const USE_MY_SETTINGS = "Use This Window's Settings";

export class Ownership implements vscode.Disposable {
  private readonly subs: vscode.Disposable[] = [];
  /** The pipeline mode this window showed last (pipeline.state events, ready). */
  private lastMode: string | undefined;
  /** The mode shown when the connection was lost: compared once the engine is back. */
  private before: string | undefined;
  private told = '';
  private checking: Promise<void> = Promise.resolve();

  constructor(
    private readonly engine: EngineClient,
    private readonly host: OwnershipHost,
    private readonly log: Logger,
    /** The Pipeline view's mode row says whose settings run (undefined: this window's). */
    private readonly setModeSource: (ownerFolder: string | undefined) => void,
  ) {
    this.subs.push(
      engine.onEvent((e) => {
        if (e.type !== 'pipeline.state' || e.status.restricted) return;
        this.lastMode = e.status.mode;
        // Whoever serves the store next starts as paused as this one runs.
        engine.updateInit({ pipelinePaused: !!e.status.paused });
      }),
      engine.onStateChange((s) => {
        if (s.state === 'restarting') this.before ??= this.lastMode;
        if (s.state === 'ready' && s.ready) {
          const ready = s.ready;
          this.checking = this.checking.then(() => this.check(ready)).catch((e: unknown) => this.log.error('settings check failed', e));
        }
      }),
    );
  }

  /** This window's settings reached the engine: they are the ones that run now. */
  settingsApplied(): void {
    this.told = '';
    this.setModeSource(undefined);
  }

  /** Resolves when the check after the last ready is done (tests). */
  whenChecked(): Promise<void> {
    return this.checking;
  }

  private async check(ready: ReadyInfo): Promise<void> {
    const owner = ready.config;
    const role = this.host.role();
    const before = this.before;
    this.before = undefined;
    if (!owner || !role || this.engine.currentInit.restricted) return;
    this.lastMode = owner.mode;
    if (role === 'owner') {
      this.setModeSource(undefined);
      return this.say(ownershipMessage({ role, mode: owner.mode, ...(before ? { before } : {}) }));
    }
    const settings = readSettingOverrides();
    const workspaceRoot = this.engine.currentInit.workspaceRoot;
    const own = {
      settings,
      ...(workspaceRoot ? { workspaceRoot } : {}),
      mode: pipelineMode((await loadEngineConfig(workspaceRoot, settings)).config),
    };
    const agreement = compareWithOwner(own, owner);
    if (agreement.kind === 'same') this.told = ''; // a later difference is news again
    if (agreement.kind === 'owner-behind') {
      this.log.info("the engine ran with other settings than this window's (the same folder's): sending this window's");
      return this.host.reloadNow("this window's settings");
    }
    this.setModeSource(agreement.kind === 'differ' ? (owner.workspaceRoot ?? '') : undefined);
    this.say(
      ownershipMessage({
        role,
        agreement,
        mode: owner.mode,
        ...(before ? { before } : {}),
        ...(owner.workspaceRoot ? { ownerFolder: owner.workspaceRoot } : {}),
        ...(owner.owner ? { owner: owner.owner } : {}),
      }),
      agreement.kind === 'differ',
    );
  }

  /** One notification per distinct message; with "Use This Window's Settings" when the owner's differ. */
  private say(text: string | undefined, differ = false): void {
    if (!text || text === this.told) return;
    this.told = text;
    this.log.info(text.replace(/^Agent Memory: /, ''));
    if (!differ) {
      void vscode.window.showInformationMessage(text);
      return;
    }
    void vscode.window.showWarningMessage(text, USE_MY_SETTINGS, 'Open Settings').then(async (pick) => {
      if (pick === USE_MY_SETTINGS) {
        await this.host.reloadNow("this window's settings, chosen by you");
        this.settingsApplied();
      }
      if (pick === 'Open Settings') void vscode.commands.executeCommand('workbench.action.openSettings', SETTINGS_SECTION);
    });
  }

  dispose(): void {
    for (const s of this.subs) s.dispose();
  }
}
