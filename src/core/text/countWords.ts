/**
 * Counts and weekdays as people write them, read the same way by the two readers of "when":
 * the dates a text refers to (timeRefs.ts: "two weeks ago", "a couple of days") and schedule
 * phrases (src/core/schedules/phrases.ts: "every two hours", "next Friday"). Each reader's
 * grammar decides which words it accepts; this only says what they count. English only.
 */

/** The days of the week, Sunday first (the order of Date.getDay()). */
export const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'] as const;

const NUMBER_WORDS: Readonly<Record<string, number>> = {
  a: 1,
  an: 1,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  fifteen: 15,
  twenty: 20,
  thirty: 30,
  couple: 2,
  few: 3,
  several: 3,
};

/** A count in digits or words: "3", "three", "an", "a couple of" (2), "a few" (3); NaN for anything else. */
export function countOf(word: string): number {
  const w = word
    .toLowerCase()
    .trim()
    .replace(/\s+of$/, '');
  if (/^\d+$/.test(w)) return Number(w);
  return NUMBER_WORDS[w] ?? NUMBER_WORDS[w.replace(/^an?\s+/, '')] ?? NaN;
}
