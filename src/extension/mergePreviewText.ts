/**
 * The two sides of a merge preview (docs/consolidation.md "Reviewing suggestions"): the
 * memories as they are (A, then B) and the memory accept would write, one sentence a line, so
 * the diff shows exactly which sentence is kept once, which gains a full stop, which is new.
 * No vscode import: unit-tested in test/extension/mergePreviewText.test.ts.
 */
import { splitSentences } from '../core/consolidation/merge';
import { truncateLine } from '../core/text/truncate';

export interface PreviewSide {
  title: string;
  content: string;
}

/** One sentence a line, under the title as a heading when there is one. */
export function sentenceLines(m: PreviewSide): string {
  const lines = splitSentences(m.content);
  return [...(m.title.trim() ? [`# ${m.title.trim()}`, ''] : []), ...lines].join('\n') + '\n';
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
