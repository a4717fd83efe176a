/**
 * The engine's configuration: agent.yaml of the workspace (src/core/config), then the host's
 * settings layered over it. Precedence, highest first:
 *   1. host settings that are explicitly set (VS Code `agentMemory.*`, user or workspace);
 *   2. the workspace's agent.yaml (.agent-memory/agent.yaml, agent.yaml, AGENT.yaml, config.yaml);
 *   3. the built-in defaults of CONFIG_SCHEMA.
 * An invalid value at any level is reported as an issue and the level below is kept.
 */
import { applyOverrides, defaultConfig, loadProjectConfig, type ResolvedConfig } from '../../core/config';
import type { LifecycleSettings } from '../../core/memory/limits';
import type { ConfigSummary } from '../protocol';

export const SETTINGS_SOURCE = 'VS Code settings';

export interface EngineConfig {
  config: ResolvedConfig;
  summary: ConfigSummary;
}

export async function loadEngineConfig(workspaceRoot: string | undefined, settings: Record<string, unknown> = {}): Promise<EngineConfig> {
  const loaded = workspaceRoot ? await loadProjectConfig(workspaceRoot) : { config: defaultConfig(), issues: [] };
  const layered = applyOverrides(loaded.config, settings, SETTINGS_SOURCE);
  const issues = [...loaded.issues, ...layered.issues].map((i) => ({
    severity: i.severity,
    key: i.key,
    message: i.message,
    ...(i.source !== undefined ? { source: i.source } : {}),
  }));
  const rejected = new Set(layered.issues.filter((i) => i.severity === 'error').map((i) => i.key));
  return {
    config: layered.config,
    summary: {
      ...('path' in loaded && loaded.path ? { file: loaded.path } : {}),
      overridden: Object.keys(settings)
        .filter((k) => settings[k] !== undefined && !rejected.has(k))
        .sort(),
      issues,
    },
  };
}

/** The lifecycle settings (memory.* tunables) in the shape the core's services take. */
export function lifecycleFrom(config: ResolvedConfig): LifecycleSettings {
  const m = config.memory;
  return {
    defaultTtlSeconds: m.default_ttl,
    promoteImportance: m.promote_importance,
    promoteAccessCount: m.promote_access_count,
    ttlExtendFactor: m.ttl_extend_factor,
  };
}
