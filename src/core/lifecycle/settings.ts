/** Seed 003 lifecycle tunables (memory.*) as the lifecycle code reads them. */
import { DEFAULT_LIFECYCLE, type LifecycleSettings } from '../memory/limits';

export type { LifecycleSettings };
export { DEFAULT_LIFECYCLE };

/** Clear error for a nonsense setting rather than silently odd TTLs. */
export function resolveLifecycle(partial: Partial<LifecycleSettings> = {}): LifecycleSettings {
  const s = { ...DEFAULT_LIFECYCLE, ...partial };
  if (!Number.isFinite(s.ttlExtendFactor) || s.ttlExtendFactor < 0) throw new RangeError(`memory.ttl_extend_factor must be ≥ 0, got ${s.ttlExtendFactor}`);
  if (!Number.isInteger(s.promoteAccessCount) || s.promoteAccessCount < 1) {
    throw new RangeError(`memory.promote_access_count must be a whole number ≥ 1, got ${s.promoteAccessCount}`);
  }
  return s;
}
