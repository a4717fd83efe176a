/**
 * A memory's lifetime written as text, read the same way everywhere a person writes one (the
 * memory document's `lifetime:`, the CLI's `--ttl`): "permanent", a duration as agent.yaml
 * writes it ("2m", "12h", "7d", "2w", "1h30m": parseDurationMs, the one duration parser), the
 * same in words ("7 days", "12 hours", "1 day 12 hours", as memory documents show lifetimes), or
 * a whole number of seconds (as memory.default_ttl takes it). docs/lifecycle.md "Lifetimes".
 */
import { parseDurationMs } from '../config/duration';

/** The longest lifetime: 100 years. */
export const MAX_LIFETIME_SECONDS = 100 * 365 * 86_400;

/** Examples of what is accepted, for messages. */
export const LIFETIME_EXAMPLES = '"permanent" or a duration like "7 days", "12h" or "30m"';

const WORD_UNITS: Readonly<Record<string, string>> = { second: 's', minute: 'm', hour: 'h', day: 'd', week: 'w' };
const WORDS = /(\d+(?:\.\d+)?)\s*(second|minute|hour|day|week)s?\b/g;

/**
 * Seconds, null for "permanent", undefined when the text is not a lifetime (or not a whole
 * number of seconds from 1 second to 100 years).
 */
export function parseLifetimeSeconds(text: string): number | null | undefined {
  const t = text.trim().toLowerCase();
  if (t === 'permanent') return null;
  const seconds = /^\d+$/.test(t)
    ? Number(t)
    : durationSeconds(t.replace(WORDS, (_, n: string, unit: string) => `${n}${WORD_UNITS[unit]}`));
  if (seconds === undefined || !Number.isSafeInteger(seconds) || seconds < 1 || seconds > MAX_LIFETIME_SECONDS) return undefined;
  return seconds;
}

function durationSeconds(text: string): number | undefined {
  const ms = parseDurationMs(text);
  return ms === undefined ? undefined : ms / 1000;
}
