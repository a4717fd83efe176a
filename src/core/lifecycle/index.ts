/** Memory lifecycle (docs/lifecycle.md) on the read side: visibility, access bookkeeping, promotion, expiry sweep. */
export { LIVE_MEMORY_SQL, liveParam, isLive } from '../memory/visibility';
export { AccessTracker, applyAccesses, type AccessTrackerOptions, type AccessFlushResult } from './access';
export { promoteMemory, type PromoteResult } from './promote';
export { cleanupExpired, type CleanupOptions, type CleanupResult } from './cleanup';
export { listRemoved, countRemoved, type RemovedMemory, type RemovedReason, type ListRemovedOptions } from './removed';
export { describeExpiry, describeAgo, spanInWords } from './remaining';
export { resolveLifecycle, lifecycleFromConfig, DEFAULT_LIFECYCLE, type LifecycleSettings } from './settings';
