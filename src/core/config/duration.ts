/** Parsing and formatting of human durations: "250ms", "30s", "5m", "1h", "7d", "1h30m", "1.5h". */

const UNIT_MS: Readonly<Record<string, number>> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
};

const WHOLE = /^(?:\s*\d+(?:\.\d+)?\s*(?:ms|s|m|h|d|w))+\s*$/;
const PART = /(\d+(?:\.\d+)?)\s*(ms|s|m|h|d|w)/g;

/** Milliseconds in a duration string, or undefined if the string is not a duration. */
export function parseDurationMs(text: string): number | undefined {
  if (!WHOLE.test(text)) return undefined;
  let total = 0;
  for (const m of text.matchAll(PART)) total += Number(m[1]) * (UNIT_MS[m[2] as string] as number);
  return total;
}

/** The shortest exact spelling of a number of milliseconds, e.g. 5400000 → "1h30m". */
export function formatDurationMs(msValue: number): string {
  if (!Number.isFinite(msValue) || msValue < 0) return `${msValue}ms`;
  if (msValue === 0) return '0s';
  if (!Number.isInteger(msValue)) return `${msValue}ms`;
  const units: Array<[string, number]> = [
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1000],
    ['ms', 1],
  ];
  let rest = msValue;
  let out = '';
  for (const [name, size] of units) {
    const n = Math.floor(rest / size);
    if (n > 0) {
      out += `${n}${name}`;
      rest -= n * size;
    }
  }
  return out;
}
