/**
 * Writes several agentMemory settings as one change. VS Code fires onDidChangeConfiguration
 * once per key, and each event reloads the engine's configuration with what the settings say
 * at that moment, so writing `enabled` then `shadowMode` would briefly apply a mode nobody
 * chose (enabled without shadow = controlled) and, since the events arrive asynchronously,
 * that in-between reload could land after the final one. While a batch is being written the
 * reloads are held; afterwards one reload with the final values is sent and awaited.
 */
import * as vscode from 'vscode';
import { SETTINGS_SECTION } from './settingsSchema';
import { settingIdFor } from './settingsLayout';

export class SettingsWriter {
  private held = 0;

  constructor(private readonly reloadNow: (why: string) => Promise<void>) {}

  /** True while a batch is being written: the settings-changed handler skips its reload. */
  get holding(): boolean {
    return this.held > 0;
  }

  /**
   * Writes each key whose value differs (or that has a workspace value to overwrite), then
   * reloads once. `where`: the workspace (default when a folder is open) or the user settings;
   * writing to the user settings removes the workspace's value of those keys, which would win.
   */
  async write(entries: Record<string, unknown>, why: string, where?: 'workspace' | 'user'): Promise<void> {
    const cfg = vscode.workspace.getConfiguration(SETTINGS_SECTION);
    const hasFolder = !!vscode.workspace.workspaceFolders?.length;
    const toUser = where === 'user' || !hasFolder;
    const target = toUser ? vscode.ConfigurationTarget.Global : vscode.ConfigurationTarget.Workspace;
    this.held++;
    try {
      for (const [yamlKey, value] of Object.entries(entries)) {
        const key = settingIdFor(yamlKey);
        const inWorkspace = cfg.inspect(key)?.workspaceValue !== undefined;
        if (toUser && hasFolder && inWorkspace) await cfg.update(key, undefined, vscode.ConfigurationTarget.Workspace);
        if (cfg.get(key) !== value || (!toUser && cfg.inspect(key)?.workspaceValue !== undefined)) await cfg.update(key, value, target);
      }
    } finally {
      this.held--;
    }
    if (!this.holding) await this.reloadNow(why);
  }
}
