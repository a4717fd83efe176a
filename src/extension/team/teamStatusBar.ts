/**
 * The team memory status-bar item (docs/team.md "In VS Code"): shown only while the project is
 * connected — synced, N waiting, offline, conflict — from the engine's team.status events, and
 * read again when memories change (a change made here waits until the next push), when the
 * engine restarts and after the team commands. Click: what the state means, with what to do
 * (teamCommands.ts).
 */
import * as vscode from 'vscode';
import type { EngineClient } from '../../engine/client/engineClient';
import type { TeamOverview } from '../../engine/teamProtocol';
import { Debounced } from '../common/debounce';
import { teamStatusSentences, teamStatusText } from './teamText';

export const TEAM_STATUS_COMMAND = 'agentMemory.teamStatus';

export class TeamStatusBar implements vscode.Disposable {
  readonly item = vscode.window.createStatusBarItem('agentMemory.team', vscode.StatusBarAlignment.Left, 9);
  /** The last state shown (the click and the tests read it). */
  last: TeamOverview = { connected: false };
  private readonly refreshLater = new Debounced(() => void this.refresh(), 300);
  private readonly subs: vscode.Disposable[] = [];

  constructor(private readonly engine: EngineClient) {
    this.item.name = 'Agent Memory: Team';
    this.item.command = TEAM_STATUS_COMMAND;
    this.subs.push(
      engine.onEvent((e) => {
        if (e.type === 'team.status') this.show(e.status);
        if (e.type === 'memory.changed') this.refreshLater.trigger();
      }),
      engine.onStateChange((s) => {
        if (s.state === 'ready') void this.refresh();
        else if (s.state === 'failed' || s.state === 'stopped') this.item.hide();
      }),
    );
    void this.refresh();
  }

  /** Reads the state now (an engine that is not ready leaves the item as it is). */
  async refresh(): Promise<TeamOverview> {
    try {
      this.show(await this.engine.request('team.status', {}));
    } catch {
      /* the engine is starting or stopping: its ready state reads again */
    }
    return this.last;
  }

  private show(s: TeamOverview): void {
    this.last = s;
    // The palette offers Sync, Disconnect and the conflict commands only while connected.
    void vscode.commands.executeCommand('setContext', 'agentMemory.teamConnected', s.connected);
    if (!s.connected) {
      this.item.hide();
      return;
    }
    this.item.text = teamStatusText(s);
    this.item.tooltip = `${teamStatusSentences(s).join('\n')}\n\nClick for more.`;
    const attention = s.state === 'conflict' || s.state === 'offline';
    this.item.backgroundColor = attention ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
    this.item.accessibilityInformation = { label: `Team memory: ${teamStatusSentences(s)[0]}` };
    this.item.show();
  }

  dispose(): void {
    this.refreshLater.cancel();
    for (const s of this.subs) s.dispose();
    this.item.dispose();
  }
}
