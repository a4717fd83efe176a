/**
 * How a memory is named where people read about it outside VS Code's views (the CLI's lines,
 * a create's result): its title, else the first words of its text — never its id alone (a line may
 * add the id after the name). Small and `vscode`-free, for every surface that writes such a line.
 */
import { truncate } from '../core/text/truncate';

/** Longest name, in graphemes (a line of the CLI keeps room for the type and relevance). */
export const LABEL_MAX = 60;

/** The title, else the first line of the text, on one line and at most LABEL_MAX graphemes; never empty. */
export function memoryLabel(m: { title?: string | null; content?: string; preview?: string }): string {
  const text = (m.content ?? m.preview ?? '').trim();
  const source = m.title?.trim() || text.split('\n')[0] || '';
  const line = source
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/[.\s]+$/, ''); // "Use pnpm." → "Use pnpm" inside quotes
  return truncate(line, LABEL_MAX) || 'untitled memory';
}
