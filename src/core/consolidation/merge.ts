/**
 * Merge strategies (docs/consolidation.md), deterministic (no LLM):
 * - latest_wins: the target's content is replaced by the source's;
 * - append: the source's content is appended to the target's (unless already contained);
 * - smart_merge: the target's sentences, then every sentence of the source whose normalized
 *   form (case, spacing, end punctuation) the target does not already have.
 */
import type { MergeStrategy } from '../config/types';

export const MERGE_STRATEGIES: readonly MergeStrategy[] = ['latest_wins', 'append', 'smart_merge'];

export function isMergeStrategy(s: unknown): s is MergeStrategy {
  return typeof s === 'string' && (MERGE_STRATEGIES as readonly string[]).includes(s);
}

export interface MergeSide {
  title: string;
  content: string;
}

export function mergeContent(strategy: MergeStrategy, target: MergeSide, source: MergeSide): MergeSide {
  const title = target.title.trim() ? target.title : source.title;
  switch (strategy) {
    case 'latest_wins':
      return { title: source.title.trim() ? source.title : target.title, content: source.content };
    case 'append': {
      const t = target.content.trim();
      const s = source.content.trim();
      if (!s || normalizeSentence(t).includes(normalizeSentence(s))) return { title, content: t };
      return { title, content: `${t}\n\n${s}` };
    }
    case 'smart_merge': {
      const kept = splitSentences(target.content);
      const seen = new Set(kept.map(normalizeSentence));
      for (const s of splitSentences(source.content)) {
        const key = normalizeSentence(s);
        if (!key || seen.has(key)) continue;
        seen.add(key);
        kept.push(s);
      }
      return { title, content: kept.join(' ') };
    }
    default:
      throw new RangeError(`unknown merge strategy ${JSON.stringify(strategy)}; use latest_wins, append or smart_merge`);
  }
}

/** Sentences: split after . ! ? followed by space, and at line breaks; trimmed, empty ones dropped. */
export function splitSentences(text: string): string[] {
  return text
    .split(/\n+|(?<=[.!?])\s+(?=\S)/u)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

export function normalizeSentence(s: string): string {
  return s
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .replace(/[\s.!?;:,]+$/u, '')
    .trim();
}
