/**
 * Who asked for a memory decides its default lifetime (docs/lifecycle.md "Lifetimes"): the one
 * place that rule lives. A memory a person (or an agent asked by a person) adds on purpose is
 * permanent unless a lifetime is chosen; only what the pipeline extracts and what agents capture
 * automatically start short-term. An import keeps the lifetime it was exported with.
 */
import type { LifecycleSettings } from './limits';
import type { CreateOrigin } from './origin';

export { CREATE_ORIGINS, originOf, type CreateOrigin } from './origin';

/** Origins whose memories are short-term (memory.default_ttl) when no lifetime is given. */
const SHORT_TERM_BY_DEFAULT: ReadonlySet<CreateOrigin> = new Set<CreateOrigin>(['pipeline', 'capture']);

export interface Lifetime {
  ttlSeconds: number | null;
  expiresAt: string | null;
}

export const PERMANENT: Lifetime = { ttlSeconds: null, expiresAt: null };

/**
 * The lifetime of a new memory. `ttl`: the lifetime asked for (seconds; null = permanent;
 * undefined = none chosen). Important memories (≥ memory.promote_importance) are permanent.
 */
export function lifetimeFor(
  origin: CreateOrigin,
  importance: number,
  ttl: number | null | undefined,
  lifecycle: LifecycleSettings,
  now: Date,
): Lifetime {
  if (ttl === null || importance >= lifecycle.promoteImportance) return PERMANENT;
  const seconds = ttl ?? (SHORT_TERM_BY_DEFAULT.has(origin) ? lifecycle.defaultTtlSeconds : 0);
  return seconds > 0 ? expiringAfter(seconds, now) : PERMANENT;
}

/** A lifetime of `seconds` from `now`. */
export function expiringAfter(seconds: number, now: Date): Lifetime {
  return { ttlSeconds: seconds, expiresAt: new Date(now.getTime() + seconds * 1000).toISOString() };
}

/** A restored memory has at least this long left before it can expire again. */
export const RESTORE_MIN_SECONDS = 86400;

/**
 * The lifetime a restored memory gets. One that expired (or has less than a day left) gets a
 * fresh lifetime of the same length, at least a day, so a restore is never undone by the next
 * sweep; one with more left keeps it; a permanent one stays permanent.
 */
export function restoredLifetime(current: Lifetime, now: Date): Lifetime {
  if (current.ttlSeconds === null || current.expiresAt === null) return { ttlSeconds: current.ttlSeconds, expiresAt: current.expiresAt };
  if (Date.parse(current.expiresAt) - now.getTime() >= RESTORE_MIN_SECONDS * 1000) return current;
  return expiringAfter(Math.max(current.ttlSeconds, RESTORE_MIN_SECONDS), now);
}
