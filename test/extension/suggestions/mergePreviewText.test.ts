// The merge preview's two sides: one sentence a line, so the diff shows what the merge keeps once.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bothSidesText, mergePreviewTitle, sentenceLines } from '../../../src/extension/suggestions/mergePreviewText';
import { mergeContent } from '../../../src/core/consolidation/merge';

test('both memories on the left and the merged memory on the right, one sentence a line', () => {
  const a = { title: 'Redis', content: 'Redis runs on port 6379. It is flushed on deploy' };
  const b = { title: '', content: 'It is flushed on deploy. Keys expire after a day.' };
  const merged = mergeContent('smart_merge', a, b);
  assert.equal(
    bothSidesText(a, b),
    '# Redis\n\nRedis runs on port 6379.\nIt is flushed on deploy\n\nIt is flushed on deploy.\nKeys expire after a day.\n',
  );
  assert.equal(sentenceLines(merged), '# Redis\n\nRedis runs on port 6379.\nIt is flushed on deploy.\nKeys expire after a day.\n');
});

test('a title that is only the first sentence of the text is not a heading: the sentence is shown once', () => {
  const a = { title: 'Release builds are signed with the team key', content: 'Release builds are signed with the team key.' };
  const b = { title: '', content: 'Release builds are signed with the team key. Unsigned builds are rejected.' };
  assert.equal(sentenceLines(a), 'Release builds are signed with the team key.\n');
  const merged = mergeContent('smart_merge', a, b);
  assert.equal(sentenceLines(merged).match(/Release builds are signed/g)?.length, 1);
});

test('the diff title names both memories briefly, emoji intact', () => {
  const t = mergePreviewTitle({ title: '', content: 'Deploy 🚀🚀🚀 on Friday afternoons only' }, { title: 'Deploys', content: 'x' });
  assert.equal(t, 'Merge preview: Deploy 🚀🚀🚀 on Friday… + Deploys ↔ merged');
  assert.ok(!/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/.test(t), 'no lone surrogate');
});
