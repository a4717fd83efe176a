// Long lines of a read-only report broken at spaces, continuations indented (src/core/text/wrap.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { wrapLines } from '../../../src/core/text/wrap';

test('long lines break at spaces within the width; short lines and one long word stay as they are', () => {
  const text = `short\n  ${'word '.repeat(30).trim()}\n${'x'.repeat(120)}`;
  const lines = wrapLines(text, 40).split('\n');
  assert.equal(lines[0], 'short');
  assert.ok(
    lines.slice(1, -1).every((l) => l.length <= 40 && l.startsWith('  ')),
    lines.join('\n'),
  );
  assert.ok(
    lines.slice(2, -1).every((l) => l.startsWith('    ')),
    'continuations indented two more',
  );
  assert.equal(lines.at(-1), 'x'.repeat(120));
  assert.equal(wrapLines(text, 40).replace(/\s+/g, ' '), text.replace(/\s+/g, ' '), 'no word lost');
});
