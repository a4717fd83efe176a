// Tab titles and addresses of memory documents (src/extension/memories/memoryFsNames.ts): the title, or
// the first words of the text, cut on grapheme boundaries; never "memory.md".
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { memoryLocation, memoryName, NAME_MAX, parseAddress } from '../../../src/extension/memories/memoryFsNames';
import { truncate as truncateGraphemes } from '../../../src/core/text/truncate';

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

test('addresses: the name in the path (the breadcrumb shows no id), the id, a version or a conflict in the query', () => {
  const at = memoryLocation('4f1c-9', 'Deploy day', 'x');
  assert.deepEqual(at, { path: '/Deploy day.md', query: 'id=4f1c-9' });
  assert.deepEqual(parseAddress(at.path, at.query), { id: '4f1c-9' });
  const v3 = memoryLocation('4f1c-9', 'Deploy day', 'x', { version: 3 });
  assert.deepEqual(parseAddress(v3.path, v3.query), { id: '4f1c-9', version: 3 });
  const c7 = memoryLocation('4f1c-9', 'Deploy day', 'x', { conflict: '7' });
  assert.deepEqual(parseAddress(c7.path, c7.query), { id: '4f1c-9', conflict: '7' });
  assert.deepEqual(parseAddress(at.path, 'id=4f1c-9&version=abc'), { id: '4f1c-9' });
  assert.equal(parseAddress('/', ''), undefined);
  assert.equal(parseAddress('/Deploy day.md', ''), undefined, 'a name alone addresses nothing');
  // Documents opened by earlier versions, restored after a reload, still open.
  assert.deepEqual(parseAddress('/4f1c-9/Deploy day.md', 'version=2'), { id: '4f1c-9', version: 2 });
});
