/**
 * The text to show for a memory: a document chunk's markdown as written (metadata.markdown,
 * docs/pipeline.md "Documents") while it still says what the stored, whitespace-collapsed
 * content says; otherwise — an edited chunk, any other memory — the content itself.
 */
import { normalizeAndHashContent } from '../text/normalize';

export function displayText(m: { content: string; metadata?: Record<string, unknown> | null }): string {
  const markdown = m.metadata?.markdown;
  if (typeof markdown !== 'string' || !markdown.trim()) return m.content;
  return normalizeAndHashContent(markdown).storageContent === m.content ? markdown : m.content;
}
