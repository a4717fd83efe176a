/** Input limits of the memory API. Oversized input is refused with a clear error, never truncated silently. */
export const LIMITS = {
  contentMaxChars: 64 * 1024,
  titleMaxChars: 500,
  summaryMaxChars: 4000,
  metadataMaxBytes: 16 * 1024,
  listDefault: 50,
  listMax: 100,
  nearDuplicateThreshold: 0.8,
} as const;

/** Lifecycle settings (the memory.* tunables of the configuration). */
export interface LifecycleSettings {
  defaultTtlSeconds: number;
  promoteImportance: number;
  promoteAccessCount: number;
  ttlExtendFactor: number;
}

export const DEFAULT_LIFECYCLE: LifecycleSettings = {
  defaultTtlSeconds: 86400,
  promoteImportance: 0.8,
  promoteAccessCount: 5,
  ttlExtendFactor: 0.5,
};
