// Canvas labels of the graph panel (webview/lib/graphLabels.ts): one line, at most 26 graphemes,
// cut at a word end when one is near, never inside an emoji or a combining sequence.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { LABEL_GRAPHEMES, shortLabel } from '../../../webview/lib/graphLabels';

const graphemes = (s: string) => [...new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(s)].length;

test('short labels stay whole, on one line', () => {
  assert.equal(shortLabel('Kafka'), 'Kafka');
  assert.equal(shortLabel('  Use pnpm,\n\tnot npm  '), 'Use pnpm, not npm');
  assert.equal(shortLabel('x'.repeat(LABEL_GRAPHEMES)), 'x'.repeat(LABEL_GRAPHEMES), 'exactly the limit: not cut');
});

test('long labels are cut at a word end with an ellipsis, within the limit', () => {
  const cut = shortLabel('Use pnpm, not npm, for every package in the monorepo workspace');
  assert.equal(cut, 'Use pnpm, not npm, for…');
  assert.ok(graphemes(cut) <= LABEL_GRAPHEMES);
  // No space near the limit: cut mid-word rather than lose most of the label.
  const word = shortLabel('Supercalifragilisticexpialidocious-and-more');
  assert.equal(word, 'Supercalifragilisticexpia…');
  assert.equal(graphemes(word), LABEL_GRAPHEMES);
});

test('emoji and combining marks are never split', () => {
  const family = '👨‍👩‍👧‍👦';
  const cut = shortLabel(family.repeat(40));
  assert.equal(cut, `${family.repeat(LABEL_GRAPHEMES - 1)}…`);
  assert.doesNotMatch(cut, /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/, 'no lone surrogate');
  const accents = shortLabel('e\u0301'.repeat(40), 5);
  assert.equal(accents, `${'e\u0301'.repeat(4)}…`, 'each é keeps its accent');
});
