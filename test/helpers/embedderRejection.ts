import assert from 'node:assert/strict';
import { EmbedderError } from '../../src/core/embed';

/** The EmbedderError `p` rejects with (fails the test if it resolves or rejects with anything else). */
export async function embedderRejection(p: Promise<unknown>): Promise<EmbedderError> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof EmbedderError, `expected EmbedderError, got ${String(err)}`);
    return err;
  }
  assert.fail('expected a rejection');
}
