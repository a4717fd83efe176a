/** Reading what `agent-memory mcp`'s tools answer (src/mcp/tools.ts): a sentence, then data inside the recall markers. */
import * as assert from 'node:assert/strict';
import { RECALL_CLOSE, RECALL_OPEN } from '../../src/present/recall';

type TextResult = { content: { type: string; text: string }[]; isError?: boolean };

/** The text of a tool result. */
export const textOf = (r: unknown): string => (r as TextResult).content.map((c) => c.text).join('\n');

/** The JSON between the recall markers of a tool's output. */
export function dataOf<T>(out: string): T {
  const from = out.indexOf(`${RECALL_OPEN}\n`);
  const to = out.lastIndexOf(`\n${RECALL_CLOSE}`);
  assert.ok(from >= 0 && to > from, `a data block inside the recall markers: ${out}`);
  return JSON.parse(out.slice(from + RECALL_OPEN.length + 1, to)) as T;
}

/** The data of a tool result (textOf, then dataOf). */
export const resultData = <T>(r: unknown): T => dataOf<T>(textOf(r));
