/**
 * Where the matched words of a search sit in a memory's text, for the search panel's <mark>s.
 * Pure text in, text segments out: the caller turns each segment into a text node (marked or
 * not), so memory text is never parsed as HTML. The keyword leg stems words (porter), so a
 * term also marks longer forms from its start ("token" marks "tokens") and, with a common
 * English suffix removed, forms of its stem ("deploying" marks "deployed").
 */
export interface Segment {
  text: string;
  mark: boolean;
}

const SUFFIX = /(?:ing|ed|es|s|ly|ment|ion)$/u;

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The pattern of one matched term: its words (or its stem) at a word start, running on to the end of the word. */
function termPattern(term: string): string | undefined {
  const words = term.toLowerCase().split(/\s+/u).filter(Boolean);
  if (words.length === 0) return undefined;
  const last = words[words.length - 1]!;
  const stem = last.replace(SUFFIX, '');
  words[words.length - 1] = stem.length >= 3 ? stem : last;
  return `(?<![\\p{L}\\p{N}])${words.map(escapeRegExp).join('\\s+')}[\\p{L}\\p{N}\\p{M}]*`;
}

/** `text` cut into plain and marked segments for `terms` (overlaps merged); at most `maxMarks` marks. */
export function highlightSegments(text: string, terms: readonly string[], maxMarks = 500): Segment[] {
  const patterns = terms.map(termPattern).filter((p): p is string => p !== undefined);
  if (patterns.length === 0 || text === '') return [{ text, mark: false }];
  const re = new RegExp(patterns.join('|'), 'giu');
  const out: Segment[] = [];
  let at = 0;
  let marks = 0;
  for (const m of text.matchAll(re)) {
    if (m[0] === '' || marks >= maxMarks) break;
    const start = m.index;
    if (start > at) out.push({ text: text.slice(at, start), mark: false });
    out.push({ text: m[0], mark: true });
    at = start + m[0].length;
    marks++;
  }
  if (at < text.length) out.push({ text: text.slice(at), mark: false });
  return out;
}
