// How a memory's row is labelled in the tree (memoryTree.ts), a pick list, a search card and a
// recall answer: no vscode import, so every surface can use it and it is unit-tested.
import type { MemorySummary } from '../engine/protocol';
import { truncateFlat, truncateLine } from '../core/text/truncate';

/** About 26 characters leave room for the age at the default sidebar width (about 300 px). */
export const LABEL_GRAPHEMES = 26;

/**
 * A document chunk titled "ONBOARDING.md › Releases (3 of 3)" shows as the Explorer shows a file:
 * its section as the label and its document in the description, so that chunks of one document
 * differ where a cut label would make them all "ONBOARDING.md › Relea…".
 */
export function rowText(m: Pick<MemorySummary, 'type' | 'title'>, full: string): { label: string; place?: string } {
  const at = m.type === 'document_chunk' && m.title ? full.lastIndexOf(' › ') : -1;
  if (at <= 0) return { label: full };
  return { label: full.slice(at + 3), place: truncateLine(full.slice(0, at), LABEL_GRAPHEMES) };
}

/** A type as a group heading: "document_chunk" → "Document chunk" (the id stays what documents and the CLI use). */
export function typeHeading(type: string): string {
  const words = type.replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/**
 * A memory's row in a pick list: its title with the text below, or — untitled, or titled with
 * only the start of its text (a first sentence saved by Save now) — the text alone, not twice.
 */
export function pickRow(title: string, text: string, labelMax = 80, detailMax = 300): { label: string; detail?: string } {
  const own = realTitle(title, text);
  return own ? { label: truncateLine(own, labelMax), detail: truncateFlat(text, detailMax) } : { label: truncateLine(text, labelMax) };
}

/**
 * The title worth showing above the text: the memory's title unless it only repeats the start of
 * the content (titles derived from the text, cut mid-word: the card would say everything twice).
 */
export function realTitle(title: string, content: string): string {
  const t = title
    .trim()
    // \u2026 is "…": regexes are written in ASCII so the bundles stay ASCII (esbuild.mjs).
    .replace(/(?:\u2026|\.\.\.)$/u, '')
    .trim();
  if (!t) return '';
  const norm = (s: string) => s.replace(/\s+/gu, ' ').trim().toLowerCase();
  return norm(content).startsWith(norm(t)) ? '' : title.trim();
}
