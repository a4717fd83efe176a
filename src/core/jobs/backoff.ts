/** Worker tick delay (docs/pipeline.md "Jobs"): poll interval when healthy, capped exponential backoff otherwise. */
export const BACKOFF_BASE_MS = 1000;
export const BACKOFF_CAP_MS = 30_000;
export const BACKOFF_JITTER_MS = 500;

/**
 * `failures` = consecutive failed ticks. 0 → `pollMs`; n → min(1000 · 2^(n-1), 30 000) plus
 * up to 500 ms of jitter (so several workers do not retry in lockstep).
 */
export function nextDelayMs(failures: number, pollMs: number, random: () => number = Math.random): number {
  if (failures <= 0) return pollMs;
  const exp = Math.min(BACKOFF_BASE_MS * 2 ** Math.min(failures - 1, 30), BACKOFF_CAP_MS);
  return exp + Math.floor(random() * BACKOFF_JITTER_MS);
}
