// How a memory's row in the tree is labelled (memoryTree.ts): no vscode import, so it is unit-tested.
import type { MemorySummary } from '../engine/protocol';
import { truncateLine } from '../core/text/truncate';

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
