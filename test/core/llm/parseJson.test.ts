/** Reading an LLM's JSON answer: <think> blocks and code fences are stripped before parsing. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseLlmJson, stripFences, stripThink } from '../../../src/core/llm/parseJson';

test('think blocks and fences are stripped before parsing', () => {
  assert.equal(stripThink('<think>a\nb</think>{"x":1}'), '{"x":1}');
  assert.equal(stripFences('```json\n{"x":1}\n```'), '{"x":1}');
  assert.deepEqual(parseLlmJson('<think>hm</think>\n```json\n{"facts":[]}\n```'), { ok: true, value: { facts: [] } });
  assert.deepEqual(parseLlmJson('Sure! {"a": 2} hope that helps'), { ok: true, value: { a: 2 } });
  assert.equal(parseLlmJson('{"a": [1, 2').ok, false);
});
