// A memory's summary row (src/core/memory/rows.ts): its preview is what the tree, pick lists and views show.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PREVIEW_CHARS, rowToSummary } from '../../../src/core/memory/rows';
import type { Row } from '../../../src/core/store/store';

const row = (content: string): Row => ({
  id: 'm',
  type: 'general',
  scope: 'project',
  title: '',
  content,
  tags: '[]',
  importance: 0.5,
  decisions_json: '[]',
  access_count: 0,
});

test('a memory preview never ends in half an emoji (the tree, pick lists and views show it)', () => {
  const content = `${'a'.repeat(PREVIEW_CHARS - 2)}🚀 and more`;
  const { preview } = rowToSummary(row(content));
  assert.equal(preview, `${'a'.repeat(PREVIEW_CHARS - 2)}…`);
  assert.ok(!/[\ud800-\udbff]/.test(preview.replace(/[\ud800-\udbff][\udc00-\udfff]/g, '')), 'no lone surrogate');
});

test('a short text is its own preview; a long one is cut within the limit with one ellipsis', () => {
  assert.equal(rowToSummary(row('Deploys go out on Tuesdays.')).preview, 'Deploys go out on Tuesdays.');
  const long = rowToSummary(row('word '.repeat(100))).preview;
  assert.ok(long.endsWith('…') && long.length <= PREVIEW_CHARS, long);
});
