/**
 * Importance in words for people ("high", "normal", "low"), matching the levels Add Memory
 * offers (0.7 / 0.5 / 0.3); the number stays in tooltips and the JSON surfaces.
 */
export type ImportanceWord = 'high' | 'normal' | 'low';

export function importanceWord(importance: number): ImportanceWord {
  if (importance >= 0.65) return 'high';
  if (importance <= 0.35) return 'low';
  return 'normal';
}
