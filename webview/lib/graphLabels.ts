/**
 * Node labels of the graph panel: one line, cut on grapheme boundaries (Intl.Segmenter, so an
 * emoji or an accented letter is never split), preferably at a word end; the full text is the
 * hover tooltip and the side panel's title.
 */
const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** Longest label painted on the canvas, in graphemes: about 150 px at the canvas font. */
export const LABEL_GRAPHEMES = 26;
/** How far back a cut may move to end on a whole word. */
const WORD_SLACK = 8;

export function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** `text` on one line, at most `max` graphemes including the '…' that marks a cut. */
export function shortLabel(text: string, max = LABEL_GRAPHEMES): string {
  const line = oneLine(text);
  if (line.length <= max) return line;
  const parts: string[] = [];
  for (const { segment } of segmenter.segment(line)) {
    parts.push(segment);
    if (parts.length > max) break;
  }
  if (parts.length <= max) return line;
  let end = max - 1;
  const space = parts.lastIndexOf(' ', end);
  if (space >= end - WORD_SLACK && space > 0) end = space;
  return `${parts.slice(0, end).join('').trimEnd()}…`;
}

/** A memory or entity type as people read it: 'code_pattern' → 'code pattern'. */
export function typeLabel(type: string): string {
  return type.replace(/_/g, ' ');
}
