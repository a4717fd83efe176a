// What re-embed and rebuild-index say when done: counts in correct English, nothing like "0 memories will be embedded again".
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { reembedMessage, reindexMessage } from '../../../src/extension/pipeline/maintenanceMessages';

test('re-embed: none queued says there is nothing to do; one and many are counted right', () => {
  assert.equal(reembedMessage(0), 'Every memory already has its vector: nothing to embed again.');
  assert.equal(reembedMessage(1), '1 memory will be embedded again in the background.');
  assert.equal(reembedMessage(1200), '1,200 memories will be embedded again in the background.');
});

test('rebuild index: the count of memories indexed', () => {
  assert.equal(reindexMessage(1), 'Search index rebuilt (1 memory).');
  assert.equal(reindexMessage(0), 'Search index rebuilt (0 memories).');
});
