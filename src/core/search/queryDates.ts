/**
 * Calendar dates named in a query ("on 21 May, 2023", "May 21 2023", "in July 2023", "in 2024",
 * "2023-05-21") as time windows, for the date boost of the hybrid ranking: a memory written
 * inside a window the query names gets `settings.dateBoost` added to its fused score
 * (hybrid.ts). Only absolute dates with a year are read; relative ones ("last week") and a month
 * without a year are not (they would need the asker's "now" and guess which year is meant).
 *
 * Windows are UTC days, months or years: `[start, end)` in epoch milliseconds.
 */

export interface DateWindow {
  start: number;
  end: number;
}

const MONTH =
  '(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)';
const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const YEAR = '((?:19|20)\\d\\d)';
const DAY = '(\\d{1,2})(?:st|nd|rd|th)?';

// Most specific first; each match is blanked out before the next pattern looks.
const ISO = new RegExp(`\\b${YEAR}-(\\d{2})-(\\d{2})\\b`, 'g');
const DAY_MONTH_YEAR = new RegExp(`\\b${DAY}\\s+(?:of\\s+)?${MONTH}\\.?,?\\s+${YEAR}\\b`, 'gi');
const MONTH_DAY_YEAR = new RegExp(`\\b${MONTH}\\.?\\s+${DAY},?\\s+${YEAR}\\b`, 'gi');
const MONTH_YEAR = new RegExp(`\\b${MONTH}\\.?,?\\s+${YEAR}\\b`, 'gi');
const YEAR_ONLY = new RegExp(`\\b${YEAR}\\b`, 'g');

function monthIndex(name: string): number {
  return MONTHS.indexOf(name.slice(0, 3).toLowerCase());
}

function day(y: number, m: number, d: number): DateWindow | undefined {
  const start = Date.UTC(y, m, d);
  const check = new Date(start);
  // 31 February and the like name no day.
  if (check.getUTCFullYear() !== y || check.getUTCMonth() !== m || check.getUTCDate() !== d) return undefined;
  return { start, end: Date.UTC(y, m, d + 1) };
}

/** The windows of the dates `query` names, in the order found (most specific patterns first). */
export function parseQueryDates(query: string): DateWindow[] {
  if (typeof query !== 'string' || !/\d/.test(query)) return [];
  let text = query.slice(0, 2000);
  const out: DateWindow[] = [];
  const take = (re: RegExp, toWindow: (m: RegExpExecArray) => DateWindow | undefined): void => {
    re.lastIndex = 0;
    const found: RegExpExecArray[] = [];
    for (let m = re.exec(text); m; m = re.exec(text)) found.push(m);
    for (const m of found) {
      const w = toWindow(m);
      if (w) out.push(w);
      text = text.slice(0, m.index) + ' '.repeat(m[0].length) + text.slice(m.index + m[0].length);
    }
  };
  take(ISO, (m) => day(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  take(DAY_MONTH_YEAR, (m) => day(Number(m[3]), monthIndex(m[2]!), Number(m[1])));
  take(MONTH_DAY_YEAR, (m) => day(Number(m[3]), monthIndex(m[1]!), Number(m[2])));
  take(MONTH_YEAR, (m) => {
    const y = Number(m[2]);
    const mo = monthIndex(m[1]!);
    return { start: Date.UTC(y, mo, 1), end: Date.UTC(y, mo + 1, 1) };
  });
  take(YEAR_ONLY, (m) => {
    const y = Number(m[1]);
    return { start: Date.UTC(y, 0, 1), end: Date.UTC(y + 1, 0, 1) };
  });
  return out;
}

/** Whether the ISO timestamp `createdAt` falls in one of `windows`, each widened by `slackMs` on both sides. */
export function inDateWindows(createdAt: string, windows: readonly DateWindow[], slackMs: number): boolean {
  if (windows.length === 0) return false;
  const t = Date.parse(createdAt);
  if (!Number.isFinite(t)) return false;
  for (const w of windows) if (t >= w.start - slackMs && t < w.end + slackMs) return true;
  return false;
}
