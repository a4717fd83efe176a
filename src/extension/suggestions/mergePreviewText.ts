/**
 * The two sides of a merge preview (docs/consolidation.md "Reviewing suggestions"): the
 * memories as they are (A, then B) and the memory accept would write, one sentence a line, so
 * the diff shows exactly which sentence is kept once, which gains a full stop, which is new.
 * No vscode import: unit-tested in test/extension/suggestions/mergePreviewText.test.ts.
 */
import { splitSentences } from '../../core/consolidation/merge';
import { truncateLine } from '../../core/text/truncate';
import { suggestTitle } from '../memories/addMemorySteps';

export interface PreviewSide {
  title: string;
  content: string;
}

/**
 * One sentence a line, under the title as a heading when there is one — unless the title only
 * repeats the start of the text (a first sentence saved as the title): the diff would show it twice.
 */
export function sentenceLines(m: PreviewSide): string {
  const lines = splitSentences(m.content);
  const title = m.title.trim();
  const heading = title && !isFirstSentence(title, m.content);
  return [...(heading ? [`# ${title}`, ''] : []), ...lines].join('\n') + '\n';
}

/** The title is the one Add Memory proposes for this text (its first sentence), give or take its full stop. */
function isFirstSentence(title: string, content: string): boolean {
  const bare = (s: string) =>
    s
      .trim()
      // \u2026 is "…" (ASCII regexes: esbuild.mjs).
      .replace(/[.\u2026]+$/u, '')
      .replace(/\s+/gu, ' ')
      .toLowerCase();
  return bare(title) === bare(suggestTitle(content));
}

/** Left side of the diff: A's sentences, a blank line, B's sentences. */
export function bothSidesText(a: PreviewSide, b: PreviewSide): string {
  return `${sentenceLines(a)}\n${sentenceLines({ title: '', content: b.content })}`;
}

/** The diff editor's title: "Merge: <A> + <B> ↔ merged". */
export function mergePreviewTitle(a: PreviewSide, b: PreviewSide): string {
  const name = (m: PreviewSide) => truncateLine(m.title || m.content, 24);
  return `Merge preview: ${name(a)} + ${name(b)} ↔ merged`;
}
