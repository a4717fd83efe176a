/** Lifecycle settings (memory.*, docs/lifecycle.md) as the lifecycle code reads them. */
import { DEFAULT_LIFECYCLE, type LifecycleSettings } from '../memory/limits';

export type { LifecycleSettings };
export { DEFAULT_LIFECYCLE };

/** Clear error for a nonsense setting rather than silently odd TTLs. */
export function resolveLifecycle(partial: Partial<LifecycleSettings> = {}): LifecycleSettings {
  const s = { ...DEFAULT_LIFECYCLE, ...partial };
  if (!Number.isFinite(s.ttlExtendFactor) || s.ttlExtendFactor < 0)
    throw new RangeError(`memory.ttl_extend_factor must be ≥ 0, got ${s.ttlExtendFactor}`);
  if (!Number.isInteger(s.promoteAccessCount) || s.promoteAccessCount < 1) {
    throw new RangeError(`memory.promote_access_count must be a whole number ≥ 1, got ${s.promoteAccessCount}`);
  }
  return s;
}

/** The engine's agent.yaml `memory.*` values as lifecycle settings (the sweep interval is memory.cleanup_interval, in ms). */
export function lifecycleFromConfig(memory: {
  default_ttl: number;
  promote_importance: number;
  promote_access_count: number;
  ttl_extend_factor: number;
}): LifecycleSettings {
  return resolveLifecycle({
    defaultTtlSeconds: memory.default_ttl,
    promoteImportance: memory.promote_importance,
    promoteAccessCount: memory.promote_access_count,
    ttlExtendFactor: memory.ttl_extend_factor,
  });
}
