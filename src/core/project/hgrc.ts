/**
 * A lenient parser for Mercurial's config format (`.hg/hgrc`): `[section]`, `key = value`,
 * continuation lines that start with whitespace, `#`/`;` comments. `%include` and `%unset`
 * lines are skipped (an included file is not read).
 */

export interface HgrcEntry {
  section: string;
  key: string;
  value: string;
}

export function parseHgrc(text: string): HgrcEntry[] {
  const entries: HgrcEntry[] = [];
  let section: string | undefined;
  let last: HgrcEntry | undefined; // target of continuation lines
  for (const rawLine of text.split('\n')) {
    const line = rawLine.replace(/\r$/, '');
    if (/^[ \t]/.test(line) && last && line.trim()) {
      last.value = last.value ? `${last.value}\n${line.trim()}` : line.trim();
      continue;
    }
    last = undefined;
    const trimmed = line.trim();
    if (!trimmed || trimmed.startsWith('#') || trimmed.startsWith(';') || trimmed.startsWith('%')) continue;
    const header = /^\[([^\]]+)\]/.exec(trimmed);
    if (header) {
      section = header[1].trim();
      continue;
    }
    const eq = line.indexOf('=');
    if (section === undefined || eq <= 0 || /^[ \t]/.test(line)) continue;
    const key = line.slice(0, eq).trim();
    if (!key) continue;
    last = { section, key, value: line.slice(eq + 1).trim() };
    entries.push(last);
  }
  return entries;
}
