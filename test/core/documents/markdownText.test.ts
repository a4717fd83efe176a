import { test } from 'node:test';
import assert from 'node:assert/strict';
import { displayText } from '../../../src/core/documents/markdownText';

test("a chunk's markdown is shown while it matches the stored text; an edited chunk shows its content", () => {
  const markdown = '## Releases\n\n- every second Tuesday\n- two approvals';
  assert.equal(displayText({ content: '## Releases - every second Tuesday - two approvals', metadata: { markdown } }), markdown);
  assert.equal(displayText({ content: '## Releases - every Thursday', metadata: { markdown } }), '## Releases - every Thursday');
  assert.equal(displayText({ content: 'plain', metadata: {} }), 'plain');
  assert.equal(displayText({ content: 'plain', metadata: { markdown: 42 } }), 'plain');
});
