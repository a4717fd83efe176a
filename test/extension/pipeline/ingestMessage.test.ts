// What the ingest command says: unchanged, new, or replaced with the counts, in correct English.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ingestMessage } from '../../../src/extension/pipeline/ingestMessage';
import type { DocumentIngestResult } from '../../../src/engine/protocol';

const r = (x: Partial<DocumentIngestResult>): DocumentIngestResult => ({
  documentId: 'd',
  status: 'done',
  chunkCount: 5,
  memoryIds: [],
  error: null,
  ...x,
});

test('ingest messages: unchanged adds nothing, new counts chunks, a change says what was added and removed', () => {
  assert.equal(
    ingestMessage('ONBOARDING.md', r({ unchanged: true, added: 0 })),
    'ONBOARDING.md is already ingested and unchanged (5 chunks); nothing was added.',
  );
  assert.equal(ingestMessage('ONBOARDING.md', r({ chunkCount: 1, added: 1, removed: 0 })), 'ONBOARDING.md ingested as 1 chunk.');
  assert.equal(
    ingestMessage('ONBOARDING.md', r({ added: 1, removed: 1 })),
    'ONBOARDING.md changed: ingested again as 5 chunks — 1 chunk added, 1 old chunk removed.',
  );
  assert.equal(ingestMessage('a.md', r({ status: 'failed', error: 'a.md is empty.' })), 'Ingesting a.md failed: a.md is empty.');
});
