// LoCoMo session dates ("1:56 pm on 8 May, 2023") as Date, so memories get a real created_at
// and the product's recency tie-break means "later in the conversation".
const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
const DATE_RE = /(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([a-z]+),?\s*(\d{4})/i;

/** The session's time as UTC, or null when the string is not in LoCoMo's format. */
export function parseSessionDate(s: string): Date | null {
  const m = DATE_RE.exec(s);
  if (!m) return null;
  const month = MONTHS.findIndex((name) => name.startsWith(m[5]!.toLowerCase().slice(0, 3)));
  if (month < 0) return null;
  let hour = Number(m[1]) % 12;
  if (m[3]!.toLowerCase() === 'pm') hour += 12;
  const d = new Date(Date.UTC(Number(m[6]), month, Number(m[4]), hour, Number(m[2])));
  return Number.isNaN(d.getTime()) ? null : d;
}
