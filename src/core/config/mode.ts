/** Derived switches: the pipeline mode (docs/pipeline.md "Modes") and the maintenance schedule. */
import type { PipelineMode, ResolvedConfig } from './types.js';

/**
 * off: `enabled` is false. shadow: `shadowMode` or `mutationsFrozen` (proposals are recorded, nothing
 * is written). full: controlled writes plus `allowUpdateDelete`. controlled: ADD/NONE applied only.
 */
export function pipelineMode(cfg: ResolvedConfig): PipelineMode {
  const p = cfg.memory.pipelineV2;
  if (!p.enabled) return 'off';
  if (p.shadowMode || p.mutationsFrozen) return 'shadow';
  return p.allowUpdateDelete ? 'full' : 'controlled';
}

/** Whether the maintenance worker's interval runs: `autonomousEnabled` and not `autonomousFrozen`. */
export function maintenanceScheduled(cfg: ResolvedConfig): boolean {
  const p = cfg.memory.pipelineV2;
  return p.autonomousEnabled && !p.autonomousFrozen;
}
