/**
 * Reads the `agentMemory.*` settings that are explicitly set (user, workspace or folder) as
 * dotted agent.yaml keys. Unset settings are left out, so agent.yaml keeps its say for them:
 * precedence is settings > agent.yaml > defaults (src/engine/config.ts).
 */
import * as vscode from 'vscode';
import { CONFIG_SCHEMA } from '../core/config/schema';
import { SETTINGS_SECTION } from './settingsSchema';

export function readSettingOverrides(scope?: vscode.ConfigurationScope): Record<string, unknown> {
  const cfg = vscode.workspace.getConfiguration(SETTINGS_SECTION, scope);
  const out: Record<string, unknown> = {};
  for (const spec of CONFIG_SCHEMA) {
    const i = cfg.inspect(spec.path);
    const value = i?.workspaceFolderValue ?? i?.workspaceValue ?? i?.globalValue;
    if (value !== undefined) out[spec.path] = value;
  }
  return out;
}
