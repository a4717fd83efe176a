/** A value as messages show it: NaN and Infinity by name (JSON.stringify says null), strings quoted. */
export function shownValue(v: unknown): string {
  if (typeof v === 'number' && !Number.isFinite(v)) return String(v);
  if (typeof v === 'bigint') return `${v}n`;
  if (typeof v === 'string') return JSON.stringify(v);
  if (v === undefined) return 'nothing';
  try {
    return JSON.stringify(v) ?? typeof v;
  } catch {
    return typeof v;
  }
}
