/**
 * applyOverrides: layers dotted-key values (e.g. from VS Code settings) over a resolved
 * configuration, validated like agent.yaml. An invalid override keeps the previous value.
 */
import { errorMessage } from '../util/errors.js';
import { capIssues } from './limits.js';
import { resolveEntries, type RawEntry } from './resolve.js';
import { isSection, specFor } from './schema.js';
import type { ConfigResult, ResolvedConfig } from './types.js';

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Flattens `{ 'memory.pipelineV2': { enabled: true } }` and `{ memory: { ... } }` to dotted keys. */
function flatten(values: Record<string, unknown>, prefix: string, out: RawEntry[]): RawEntry[] {
  for (const [k, v] of Object.entries(values)) {
    const path = prefix ? `${prefix}.${k}` : k;
    if (v === undefined) continue; // "not set" (e.g. an unset VS Code setting)
    if (isPlainObject(v) && !specFor(path) && isSection(path)) flatten(v, path, out);
    else out.push({ path, value: v });
  }
  return out;
}

export function applyOverrides(config: ResolvedConfig, overrides: Record<string, unknown>, sourceName?: string): ConfigResult {
  try {
    const resolved = resolveEntries(config, flatten(overrides, '', []), { source: sourceName, base: 'previous' });
    return { config: resolved.config, issues: capIssues(resolved.issues, sourceName) };
  } catch (err) {
    return {
      config,
      issues: [
        {
          severity: 'error',
          key: '',
          message: `could not apply overrides: ${errorMessage(err)}; they are ignored`,
          ...(sourceName !== undefined ? { source: sourceName } : {}),
        },
      ],
    };
  }
}
