/**
 * A lenient parser for git's config format (`.git/config`), enough to read remotes and
 * `url.<base>.insteadOf`. Follows git's syntax rules (quoted values, backslash escapes,
 * line continuations, `#`/`;` comments, `[section "sub"]` and the old `[section.sub]`),
 * but where git would reject the whole file this parser skips the bad line instead.
 * `include`/`includeIf` files are not followed.
 */

export interface GitConfigEntry {
  /** Lowercased section name (`remote`). */
  section: string;
  /** Subsection as written (`origin`); lowercased for the old `[remote.origin]` form. */
  subsection?: string;
  /** Lowercased key (`url`). */
  key: string;
  /** Value, or null for a bare key (boolean true in git). */
  value: string | null;
}

const isSpace = (c: string | undefined): boolean => c === ' ' || c === '\t' || c === '\r';
const isKeyChar = (c: string | undefined): boolean => c !== undefined && /[A-Za-z0-9-]/.test(c);

export function parseGitConfig(text: string): GitConfigEntry[] {
  const entries: GitConfigEntry[] = [];
  const n = text.length;
  let i = 0;
  // undefined = before any header or after a malformed one: keys there are ignored.
  let current: { section: string; subsection?: string } | undefined;

  const skipLine = (): void => {
    i = lineEnd(text, i);
  };

  while (i < n) {
    const c = text[i];
    if (c === '\n' || isSpace(c)) {
      i++;
    } else if (c === '#' || c === ';') {
      skipLine();
    } else if (c === '[') {
      const header = parseHeader(text, i + 1);
      if (header) {
        current = header.header;
        i = header.end; // the rest of the line may hold a key (git allows `[core] bare = false`)
      } else {
        current = undefined;
        skipLine();
      }
    } else if (/[A-Za-z]/.test(c)) {
      const line = parseKeyLine(text, i);
      i = line.end;
      if (current && line.entry) entries.push({ ...current, ...line.entry });
    } else {
      skipLine(); // binary junk or a stray character
    }
  }
  return entries;
}

/** Index of the end of the line at `i` (its newline, or the end of the text). */
function lineEnd(text: string, i: number): number {
  while (i < text.length && text[i] !== '\n') i++;
  return i;
}

/**
 * Parses a `key [= value]` line from its first letter: the entry (value null for a bare key) and where parsing
 * goes on. No entry for junk after a key: that is not a config line.
 */
function parseKeyLine(text: string, from: number): { entry?: { key: string; value: string | null }; end: number } {
  let i = from;
  while (isKeyChar(text[i])) i++;
  const key = text.slice(from, i).toLowerCase();
  while (isSpace(text[i])) i++;
  if (text[i] === '=') {
    const parsed = parseValue(text, i + 1);
    return { entry: { key, value: parsed.value }, end: parsed.end };
  }
  const bare = i >= text.length || text[i] === '\n' || text[i] === '#' || text[i] === ';';
  return bare ? { entry: { key, value: null }, end: lineEnd(text, i) } : { end: lineEnd(text, i) };
}

/** Parses from just after `[`; returns the header and the index after `]`. */
function parseHeader(text: string, from: number): { header: { section: string; subsection?: string }; end: number } | undefined {
  let i = from;
  const start = i;
  while (i < text.length && /[A-Za-z0-9.-]/.test(text[i])) i++;
  const name = text.slice(start, i);
  if (!name) return undefined;
  if (text[i] === ']') {
    const dot = name.indexOf('.');
    // Old syntax `[remote.origin]`: git lowercases the whole name.
    const header =
      dot < 0
        ? { section: name.toLowerCase() }
        : { section: name.slice(0, dot).toLowerCase(), subsection: name.slice(dot + 1).toLowerCase() };
    return { header, end: i + 1 };
  }
  if (name.includes('.')) return undefined;
  while (text[i] === ' ' || text[i] === '\t') i++;
  if (text[i] !== '"') return undefined;
  const sub = parseQuotedSubsection(text, i + 1);
  return sub && { header: { section: name.toLowerCase(), subsection: sub.value }, end: sub.end };
}

/** Parses `sub"]` from just after the opening quote; returns the subsection and the index after `]`. */
function parseQuotedSubsection(text: string, from: number): { value: string; end: number } | undefined {
  let i = from;
  let sub = '';
  while (i < text.length && text[i] !== '"') {
    if (text[i] === '\n') return undefined;
    if (text[i] === '\\' && i + 1 < text.length && text[i + 1] !== '\n') i++;
    sub += text[i];
    i++;
  }
  if (text[i] !== '"' || text[i + 1] !== ']') return undefined;
  return { value: sub, end: i + 2 };
}

const ESCAPES: Record<string, string> = { n: '\n', t: '\t', b: '\b', '"': '"', '\\': '\\' };

/** Parses a value from just after `=` to the end of its (possibly continued) line. */
function parseValue(text: string, from: number): { value: string; end: number } {
  let i = from;
  let out = '';
  let quoted = false;
  let pendingSpace = ''; // whitespace outside quotes is kept only when something follows it
  while (i < text.length) {
    const c = text[i];
    if (c === '\n') break;
    if (!quoted && (c === '#' || c === ';')) {
      i = lineEnd(text, i);
      break;
    }
    if (!quoted && isSpace(c)) {
      if (out) pendingSpace += c === '\r' ? '' : ' ';
      i++;
      continue;
    }
    if (c === '\\') {
      const continuation = continuationLength(text, i);
      if (continuation > 0) {
        i += continuation;
        continue;
      }
      out += pendingSpace + escapedChar(text[i + 1]);
      pendingSpace = '';
      i += 2;
      continue;
    }
    out += pendingSpace;
    pendingSpace = '';
    if (c === '"') quoted = !quoted;
    else out += c;
    i++;
  }
  return { value: out, end: i };
}

/** Length of a line continuation (a backslash ending the line, `\n` or `\r\n`) at `i`, or 0. */
function continuationLength(text: string, i: number): number {
  if (text[i + 1] === '\n') return 2;
  if (text[i + 1] === '\r' && text[i + 2] === '\n') return 3;
  return 0;
}

/** The character a backslash escape stands for (a backslash at the very end of the text stands for nothing). */
function escapedChar(next: string | undefined): string {
  return next === undefined ? '' : (ESCAPES[next] ?? next);
}
