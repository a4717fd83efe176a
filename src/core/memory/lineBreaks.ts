/**
 * A person's line breaks survive storage. The stored `content` is whitespace-collapsed (it is
 * what is hashed, indexed and compared: docs/write-path.md "Normalize"), so a multi-line note —
 * a list, paragraphs, a snippet — is kept as written in `metadata.markdown`, the key document
 * chunks already use; documents/markdownText.ts `displayText` shows it while it still says
 * what the content says.
 */
import { LIMITS } from './limits';

/** Trailing spaces cut per line, three or more line breaks made two (one blank line), trimmed. */
export function asWritten(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .map((line) => line.replace(/\s+$/u, ''))
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/**
 * `metadata` with the text as written when `content` has line breaks, or without a stale one when
 * it has none. `keepGiven`: a caller's own `markdown` (a document chunk's) is left as it is.
 * Past the metadata budget the breaks are not kept, and `warnings` says so.
 */
export function withLineBreaks(
  metadata: Record<string, unknown>,
  content: string,
  warnings: string[],
  opts: { keepGiven?: boolean } = {},
): Record<string, unknown> {
  if (opts.keepGiven && typeof metadata.markdown === 'string') return metadata;
  const { markdown: _stale, ...rest } = metadata;
  const written = asWritten(content);
  if (!written.includes('\n')) return rest;
  const next = { ...rest, markdown: written };
  if (Buffer.byteLength(JSON.stringify(next)) > LIMITS.metadataMaxBytes) {
    warnings.push(
      `The line breaks are not kept: the text is longer than the ${LIMITS.metadataMaxBytes / 1024} KB kept as written; it is stored on one line.`,
    );
    return rest;
  }
  return next;
}
