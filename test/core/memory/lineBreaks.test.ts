/**
 * A person's line breaks survive storage (src/core/memory/lineBreaks.ts): the stored content is
 * whitespace-collapsed, the text as written sits in metadata.markdown, and displayText shows it.
 * Through the real memory service over a real store.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { asWritten, withLineBreaks } from '../../../src/core/memory/lineBreaks';
import { displayText } from '../../../src/core/documents/markdownText';
import { LIMITS } from '../../../src/core/memory/limits';
import { openMemory } from '../../helpers/memoryFixture';

const LIST = 'Release steps:\n\n- bump the version   \n- tag the build\n\n\n\n- publish the notes\n';

describe('line breaks', () => {
  test('as written: trailing spaces cut, blank-line runs made one, trimmed', () => {
    assert.equal(asWritten(LIST), 'Release steps:\n\n- bump the version\n- tag the build\n\n- publish the notes');
    assert.equal(asWritten('a\r\nb\rc'), 'a\nb\nc');
  });

  test('kept only for multi-line text; a caller’s own markdown is kept; past the budget a warning', () => {
    const warnings: string[] = [];
    assert.deepEqual(withLineBreaks({ a: 1 }, 'one line', warnings), { a: 1 });
    assert.deepEqual(withLineBreaks({ markdown: 'old\ntext' }, 'one line now', warnings), {}, 'a stale one goes');
    assert.deepEqual(withLineBreaks({ markdown: '## Doc\n\ntext' }, 'x\ny', warnings, { keepGiven: true }), { markdown: '## Doc\n\ntext' });
    assert.deepEqual(warnings, []);
    const long = Array.from({ length: 1200 }, (_, i) => `line ${i} of the notes`).join('\n');
    assert.deepEqual(withLineBreaks({}, long, warnings), {});
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, new RegExp(`not kept: the text is longer than the ${LIMITS.metadataMaxBytes / 1024} KB`));
  });

  test('create and update keep the text as written; one line again drops it; a break-only change is a new version', async () => {
    const m = await openMemory();
    try {
      const r = m.svc.create({ content: LIST, ttlSeconds: null });
      assert.equal(r.status, 'created');
      if (r.status !== 'created') return;
      assert.equal(r.memory.content, 'Release steps: - bump the version - tag the build - publish the notes');
      assert.equal(displayText(m.svc.get(r.memory.id)!), asWritten(LIST));

      // Only the line breaks change: the content is the same, the version is new.
      const relaid = m.svc.update(r.memory.id, { content: 'Release steps:\n- bump the version\n- tag the build\n- publish the notes' });
      assert.equal(relaid.version, 2);
      assert.equal(relaid.content, r.memory.content);
      assert.equal(displayText(relaid), 'Release steps:\n- bump the version\n- tag the build\n- publish the notes');

      const flat = m.svc.update(r.memory.id, { content: 'Release steps: bump, tag, publish.' });
      assert.equal(flat.metadata.markdown, undefined);
      assert.equal(displayText(flat), 'Release steps: bump, tag, publish.');

      // The same text on one line is still a duplicate of the multi-line one (the hash ignores breaks).
      const dup = m.svc.create({ content: 'Release steps:   bump, tag,\npublish.', ttlSeconds: null });
      assert.equal(dup.status, 'duplicate');
    } finally {
      await m.store.close();
    }
  });
});
