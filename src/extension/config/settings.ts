/**
 * Reads the `agentMemory.*` settings that are explicitly set (user, workspace or folder) as
 * dotted agent.yaml keys. Unset settings are left out, so agent.yaml keeps its say for them:
 * precedence is settings > agent.yaml > defaults (src/engine/worker/config.ts). Each key is read from
 * its Settings editor id (settingsLayout.ts), else from its former id, the agent.yaml key.
 */
import * as vscode from 'vscode';
import { CONFIG_SCHEMA } from '../../core/config/schema';
import { SETTINGS_SECTION } from './settingsSchema';
import { settingIdFor } from './settingsLayout';

function explicitValue(cfg: vscode.WorkspaceConfiguration, id: string): unknown {
  const i = cfg.inspect(id);
  return i?.workspaceFolderValue ?? i?.workspaceValue ?? i?.globalValue;
}

export function readSettingOverrides(scope?: vscode.ConfigurationScope): Record<string, unknown> {
  const cfg = vscode.workspace.getConfiguration(SETTINGS_SECTION, scope);
  const out: Record<string, unknown> = {};
  for (const spec of CONFIG_SCHEMA) {
    const value = explicitValue(cfg, settingIdFor(spec.path)) ?? explicitValue(cfg, spec.path);
    if (value !== undefined) out[spec.path] = value;
  }
  return out;
}
