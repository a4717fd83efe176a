/**
 * Shortening text for display without breaking characters: lengths count grapheme clusters
 * (Intl.Segmenter), so an emoji, a flag or a letter with combining marks is kept whole or
 * dropped whole — never cut into a lone surrogate or a bare accent. A cut prefers the last
 * word boundary in the last third of the room, so labels do not end mid-word.
 */

let segmenter: Intl.Segmenter | undefined;
/** Made when first needed: making one costs about 7 ms, which every process start (a hook, the MCP server) paid before its first answer. */
const graphemes = (): Intl.Segmenter => (segmenter ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' }));
const ELLIPSIS = '…';

/** `text` in at most `max` graphemes, ending with "…" when it was cut. */
export function truncate(text: string, max: number): string {
  if (max <= 0) return '';
  // Every grapheme is at least one UTF-16 unit: short texts need no segmenting.
  if (text.length <= max) return text;
  // ASCII up to the cut (no CR LF pair): each unit is a grapheme, no segmenting needed.
  if (asciiWithoutCrLf(text, max + 1)) {
    return ellipsized(text.slice(0, max - 1).split(''));
  }
  const kept: string[] = [];
  for (const { segment } of graphemes().segment(text)) {
    if (kept.length === max) return ellipsized(kept.slice(0, max - 1));
    kept.push(segment);
  }
  return text; // max graphemes or fewer after all (e.g. emoji-heavy text)
}

/** How far past a cut `headByUnits` looks to see whether the grapheme there ends before it. */
export const GRAPHEME_LOOKAHEAD_UNITS = 32;

/**
 * The longest start of `text` made of whole graphemes and at most `maxUnits` UTF-16 units (a
 * preview sized for storage): never a lone surrogate or an emoji sequence cut in two. It reads
 * only the first `maxUnits + GRAPHEME_LOOKAHEAD_UNITS` units, so a prefix of that length gives the same result.
 */
export function headByUnits(text: string, maxUnits: number): string {
  if (text.length <= maxUnits) return text;
  if (asciiBoundary(text, maxUnits)) return text.slice(0, maxUnits);
  let end = 0;
  for (const { index, segment } of graphemes().segment(text.slice(0, maxUnits + GRAPHEME_LOOKAHEAD_UNITS))) {
    if (index + segment.length > maxUnits) break;
    end = index + segment.length;
  }
  return text.slice(0, end);
}

/**
 * Whether a cut between the ASCII units on either side of `at` is a grapheme boundary without
 * segmenting. Every rule of UAX #29 that joins two characters needs a non-ASCII one (Extend, ZWJ,
 * SpacingMark, Prepend, regional indicators, pictographs, Indic letters) except CR × LF. Search
 * results cut every hit's preview, and the segmenter there made a 100k hybrid search 1.33× slower
 * (bench/RESULTS-search.md).
 */
function asciiBoundary(text: string, at: number): boolean {
  const before = text.charCodeAt(at - 1);
  const after = text.charCodeAt(at);
  return before < 0x80 && after < 0x80 && !(before === 0x0d && after === 0x0a);
}

/** Whether the first `n` units of `text` are ASCII with no CR directly before an LF. */
function asciiWithoutCrLf(text: string, n: number): boolean {
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x80 || (c === 0x0d && text.charCodeAt(i + 1) === 0x0a)) return false;
  }
  return true;
}

/** The first line of `text`, whitespace collapsed, in at most `max` graphemes. */
export function truncateLine(text: string, max: number): string {
  const line = (text.trim().split('\n')[0] ?? '').replace(/\s+/g, ' ').trim();
  return truncate(line, max);
}

/** The whole of `text` on one line (whitespace collapsed), in at most `max` graphemes. */
export function truncateFlat(text: string, max: number): string {
  return truncate(text.replace(/\s+/g, ' ').trim(), max);
}

/** The graphemes before a cut, joined (back to a word's end) and followed by "…". */
function ellipsized(parts: string[]): string {
  // "captain.…" reads as four dots: punctuation at the cut gives way to the ellipsis.
  // \u2026 is "…" (ASCII regexes: esbuild.mjs).
  return cutAtWord(parts).replace(/[\s.,;:!?\u2026]+$/u, '') + ELLIPSIS;
}

/** The graphemes joined, cut back to the last space when that keeps at least two thirds of them. */
function cutAtWord(parts: string[]): string {
  const floor = Math.ceil((parts.length * 2) / 3);
  for (let i = parts.length - 1; i >= floor; i--) {
    if (/^\s+$/u.test(parts[i]!)) return parts.slice(0, i).join('').trimEnd();
  }
  return parts.join('').trimEnd();
}
