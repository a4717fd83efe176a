/** Merged texts read as sentences: a break between memories, no sentence twice, nothing lost. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { endSentence, joinSentences, mergeContent } from '../../../src/core/consolidation/merge';

test('two memories without end punctuation are joined with a sentence break, not run together', () => {
  const a = { title: '', content: 'Use pnpm for installs' };
  const b = { title: '', content: 'Run the tests with vitest' };
  assert.equal(mergeContent('smart_merge', a, b).content, 'Use pnpm for installs. Run the tests with vitest');
  assert.equal(mergeContent('append', a, b).content, 'Use pnpm for installs. Run the tests with vitest');
});

test('no sentence is said twice: repeats and sentences contained in a longer one are dropped', () => {
  const a = { title: 'Pool', content: 'Pool size is 20. Timeouts are 30 s.' };
  const b = { title: '', content: 'pool size is 20 in production! Timeouts are 30 s. Retries use backoff.' };
  assert.equal(mergeContent('smart_merge', a, b).content, 'Timeouts are 30 s. pool size is 20 in production! Retries use backoff.');
  assert.equal(
    mergeContent('append', a, b).content,
    'Pool size is 20. Timeouts are 30 s. pool size is 20 in production! Retries use backoff.',
    'append keeps the target as written and adds what it does not say',
  );
  // "is 2" is not contained in "is 20": whole words only.
  const c = mergeContent('smart_merge', { title: '', content: 'The limit is 2.' }, { title: '', content: 'The limit is 20.' });
  assert.equal(c.content, 'The limit is 2. The limit is 20.');
  assert.equal(mergeContent('append', a, { title: '', content: 'timeouts are 30 s' }).content, a.content, 'already said: unchanged');
});

test('end punctuation: kept when present (also before a quote or bracket), a trailing colon becomes a full stop', () => {
  assert.equal(endSentence('Done!'), 'Done!');
  assert.equal(endSentence('He said "ship it."'), 'He said "ship it."');
  assert.equal(endSentence('(see the docs)'), '(see the docs).');
  assert.equal(endSentence('Steps:'), 'Steps.');
  assert.equal(endSentence('終わり。'), '終わり。');
  assert.equal(joinSentences(['  ', 'One', '', 'Two']), 'One. Two', 'empty pieces are dropped; the last piece is left as written');
});

test('merging keeps every word of emoji and accented text', () => {
  const a = { title: '', content: 'Café déploie le lundi 🚀' };
  const b = { title: '', content: 'Les tests tournent la nuit 🌙' };
  assert.equal(mergeContent('smart_merge', a, b).content, 'Café déploie le lundi 🚀. Les tests tournent la nuit 🌙');
});
