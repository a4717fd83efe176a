/**
 * The text to show for a memory: its text as written (metadata.markdown: a document chunk's
 * markdown, docs/pipeline.md "Documents", or a multi-line note's line breaks,
 * core/memory/lineBreaks.ts) while it still says what the stored, whitespace-collapsed content
 * says; otherwise — a text changed without it, a one-line memory — the content itself.
 */
import { normalizeAndHashContent } from '../text/normalize';

export function displayText(m: { content: string; metadata?: Record<string, unknown> | null }): string {
  const markdown = m.metadata?.markdown;
  if (typeof markdown !== 'string' || !markdown.trim()) return m.content;
  return normalizeAndHashContent(markdown).storageContent === m.content ? markdown : m.content;
}
