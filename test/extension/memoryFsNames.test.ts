// Tab titles and addresses of memory documents (src/extension/memoryFsNames.ts): the title, or
// the first words of the text, cut on grapheme boundaries; never "memory.md".
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { memoryName, memoryPath, NAME_MAX, parseAddress } from '../../src/extension/memoryFsNames';
import { truncate as truncateGraphemes } from '../../src/core/text/truncate';

test('the tab title is the title, else the first line of the text, never empty', () => {
  assert.equal(memoryName('Use pnpm, not npm.', ''), 'Use pnpm, not npm');
  assert.equal(memoryName('', 'Staging listens on port 5433.\nSecond line'), 'Staging listens on port 5433');
  assert.equal(memoryName('  a/b\\c\tdone  ', ''), 'a b c done');
  assert.equal(memoryName('', '   '), 'Memory');
});

test('long titles are cut on grapheme and word boundaries, emoji stay whole', () => {
  const family = '👨‍👩‍👧‍👦';
  const long = `${family} `.repeat(40);
  const cut = truncateGraphemes(long.trim(), 10);
  assert.ok(cut.endsWith('…'));
  assert.ok(!/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/.test(cut), 'no lone high surrogate');
  assert.ok(
    cut
      .replace('…', '')
      .trim()
      .split(' ')
      .every((g) => g === family),
    cut,
  );
  const name = memoryName('The staging database moved to the new cluster in March and listens on port 5433 now', '');
  assert.ok([...new Intl.Segmenter().segment(name)].length <= NAME_MAX, name);
  assert.equal(name, 'The staging database moved to the new cluster in March and…');
});

test('addresses: the id in the path, a version or a conflict in the query', () => {
  const path = memoryPath('4f1c-9', 'Deploy day', 'x');
  assert.equal(path, '/4f1c-9/Deploy day.md');
  assert.deepEqual(parseAddress(path, ''), { id: '4f1c-9' });
  assert.deepEqual(parseAddress(path, 'version=3'), { id: '4f1c-9', version: 3 });
  assert.deepEqual(parseAddress(path, 'conflict=7'), { id: '4f1c-9', conflict: '7' });
  assert.deepEqual(parseAddress(path, 'version=abc'), { id: '4f1c-9' });
  assert.equal(parseAddress('/', ''), undefined);
});
