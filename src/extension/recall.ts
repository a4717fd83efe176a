/**
 * Marking recalled text. Memories injected into a chat or a tool result are wrapped in a
 * recall block; text that carries the marker is saved with `fromRecall` so the pipeline never
 * learns it again (seed 000: recalled text must not become new memories).
 */
import type { SearchHit } from '../engine/protocol';

export const RECALL_OPEN = '<agent-memory-recall>';
export const RECALL_CLOSE = '</agent-memory-recall>';

/** The recalled memories as one marked block of plain text, for a model's context. */
export function recallBlock(hits: readonly SearchHit[]): string {
  const lines = hits.map((h, i) => {
    const title = h.memory.title ? `${h.memory.title}: ` : '';
    return `${i + 1}. [${h.memory.type}${h.store === 'global' ? ', global' : ''}] ${title}${h.content.replace(/\s+/g, ' ').trim()}`;
  });
  return `${RECALL_OPEN}\n${lines.join('\n')}\n${RECALL_CLOSE}`;
}

/** Whether `text` contains recalled memory text (the marker), and the text without markers. */
export function stripRecall(text: string): { text: string; fromRecall: boolean } {
  const fromRecall = text.includes(RECALL_OPEN) || text.includes(RECALL_CLOSE);
  return { text: fromRecall ? text.split(RECALL_OPEN).join('').split(RECALL_CLOSE).join('').trim() : text, fromRecall };
}
