/**
 * Merge strategies (docs/consolidation.md), deterministic (no LLM):
 * - latest_wins: the target's content is replaced by the source's;
 * - append: the target's text, then each sentence of the source the target does not already say;
 * - smart_merge: the sentences of both, each said once: a sentence is dropped when another one
 *   already says it (same normalized form, or contained in a longer sentence).
 * Texts are joined as sentences: a piece without end punctuation gets a full stop before the
 * next one, so two memories never run together ("Use pnpm Run tests…"). Stored content has
 * its whitespace collapsed (docs/write-path.md), so the join is one space.
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
      const seen = new Set(splitSentences(t).map(normalizeSentence));
      const added = splitSentences(source.content).filter((s) => {
        const key = normalizeSentence(s);
        if (!key || seen.has(key)) return false;
        seen.add(key);
        return true;
      });
      return { title, content: joinSentences(t ? [t, ...added] : added) };
    }
    case 'smart_merge':
      return { title, content: joinSentences(distinctSentences([...splitSentences(target.content), ...splitSentences(source.content)])) };
    default:
      throw new RangeError(`unknown merge strategy ${JSON.stringify(strategy)}; use latest_wins, append or smart_merge`);
  }
}

/** Sentences in order, each said once: exact repeats and sentences contained in a longer one are dropped. */
function distinctSentences(sentences: string[]): string[] {
  const keys = sentences.map(normalizeSentence);
  return sentences.filter((_, i) => {
    const key = keys[i]!;
    if (!key || keys.indexOf(key) !== i) return false;
    return !keys.some((other, j) => j !== i && other.length > key.length && containsPhrase(other, key));
  });
}

/** Whether `phrase` occurs in `text` on word boundaries ("pool size is 20" in "the pool size is 20 in prod", not "is 2" in "is 20"). */
function containsPhrase(text: string, phrase: string): boolean {
  let at = text.indexOf(phrase);
  while (at >= 0) {
    const before = at === 0 ? '' : text[at - 1]!;
    const after = text[at + phrase.length] ?? '';
    if (!/[\p{L}\p{N}]/u.test(before) && !/[\p{L}\p{N}]/u.test(after)) return true;
    at = text.indexOf(phrase, at + 1);
  }
  return false;
}

/** Joins pieces of text as sentences: a piece that does not end a sentence gets a full stop first. */
export function joinSentences(pieces: string[]): string {
  const parts = pieces.map((p) => p.trim()).filter((p) => p.length > 0);
  return parts.map((p, i) => (i < parts.length - 1 ? endSentence(p) : p)).join(' ');
}

/** The text with end punctuation: unchanged when it already ends a sentence (also before a closing quote or bracket). */
export function endSentence(text: string): string {
  const t = text.trimEnd();
  // . ! ? … 。 ！ ？ then closing quotes ” ’ or brackets (ASCII regexes: esbuild.mjs).
  if (!t || /[.!?\u2026\u3002\uff01\uff1f]["'\u201d\u2019)\]]*$/u.test(t)) return t;
  // A trailing ":" / ";" / "," does not end a sentence: it becomes the full stop.
  return `${t.replace(/[,;:]+$/u, '')}.`;
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
