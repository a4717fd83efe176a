/** Document ingest: chunking, status transitions, chunk memories, dedup, resume, failure, local-only fetch. */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { AddressInfo } from 'node:net';
import { tmpDir } from '../../helpers/tmp';
import { openPipelineStore } from '../../fixtures/pipelineStore';
import { MemoryService } from '../../../src/core/memory/memoryService';
import { HashEmbedder } from '../../../src/core/embed/hashEmbedder';
import { JobWorker } from '../../../src/core/jobs/worker';
import { listJobs } from '../../../src/core/jobs/queue';
import { chunkText } from '../../../src/core/documents/chunk';
import { createLocalDocumentFetcher } from '../../../src/core/documents/fetch';
import {
  createDocument,
  createDocumentHandler,
  deleteDocument,
  documentMemoryIds,
  getDocument,
  type DocumentStatus,
} from '../../../src/core/documents/ingest';

// Chunking itself (sections, whole sentences, fences) is tested in chunk.test.ts.

const servers: http.Server[] = [];
after(() => servers.forEach((s) => s.close()));

async function setup(fetchDocument?: ReturnType<typeof createLocalDocumentFetcher>) {
  const store = await openPipelineStore(tmpDir('am-doc-'));
  // The store's one memory API extracts; chunks opt out per write.
  const memory = new MemoryService(store, { projectId: 'p', enqueueExtraction: true });
  const statuses: DocumentStatus[] = [];
  const handler = createDocumentHandler({
    store,
    memory,
    embedder: new HashEmbedder({ dimension: 32 }),
    fetchDocument,
    now: () => new Date(),
    settings: () => ({ chunkSize: 300, chunkOverlap: 50, maxContentBytes: 20_000, maxRetries: 2 }),
    onStatus: (_id, s) => statuses.push(s),
  });
  const worker = new JobWorker(store, { handlers: { document_ingest: handler }, maxRetries: 2 });
  return { store, memory, worker, statuses };
}

const body = Array.from(
  { length: 40 },
  (_, i) => `Paragraph ${i}: the ingest service stores section ${i} of the runbook with its own commands.`,
).join('\n');

test('text document: extracting → chunking → embedding → indexing → done; chunk memories typed, weighted, tagged, linked', async () => {
  const { store, memory, worker, statuses } = await setup();
  const doc = createDocument(store, 'p', { sourceType: 'text', title: 'Runbook', content: body }, new Date());
  assert.equal(doc.status, 'pending');
  assert.deepEqual(await worker.drain(), { ok: 1, failed: 0 });
  assert.deepEqual(statuses, ['extracting', 'chunking', 'embedding', 'indexing', 'done']);
  const d = getDocument(store, doc.id)!;
  assert.equal(d.status, 'done');
  const ids = documentMemoryIds(store, doc.id);
  assert.equal(d.chunkCount, chunkText(body, 300, 50).length);
  assert.equal(ids.length, d.chunkCount);
  for (const id of ids) {
    const m = memory.get(id)!;
    assert.equal(m.type, 'document_chunk');
    assert.equal(m.importance, 0.3);
    assert.deepEqual(m.tags, ['runbook']);
    assert.equal(m.embeddingStatus, 'ready');
  }
  assert.equal(listJobs(store, { type: 'extract' }).length, 0, 'chunks are not sent through fact extraction');
  // Ingesting the same text again links the existing chunk memories instead of duplicating them.
  const again = createDocument(store, 'p', { sourceType: 'text', title: 'Runbook', content: body }, new Date());
  await worker.drain();
  assert.deepEqual(documentMemoryIds(store, again.id), ids);
  assert.equal((listJobs(store).find((j) => j.documentId === again.id)!.result as any).deduped, ids.length);
  // Deleting one document keeps the chunks the other still links; deleting that one removes them.
  assert.equal(deleteDocument(store, memory, doc.id), 0);
  assert.equal(getDocument(store, doc.id), undefined);
  assert.ok(ids.every((id) => memory.get(id)));
  assert.equal(deleteDocument(store, memory, again.id), ids.length);
  assert.ok(ids.every((id) => !memory.get(id) && memory.get(id, { includeDeleted: true })!.deletedAt));
  assert.throws(() => deleteDocument(store, memory, again.id), /No document/);
  await store.close();
});

test('url documents: local server fetched with title backfill; outside URLs refused with a clear error and the document failed after the retries', async () => {
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html' });
    res.end(`<html><head><title>Local Guide</title></head><body><p>${body}</p><script>ignored()</script></body></html>`);
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/guide`;
  const { store, worker } = await setup(createLocalDocumentFetcher());
  const doc = createDocument(store, 'p', { sourceType: 'url', url }, new Date());
  await worker.drain();
  const d = getDocument(store, doc.id)!;
  assert.equal(d.status, 'done');
  assert.equal(d.title, 'Local Guide');
  const outside = createDocument(store, 'p', { sourceType: 'url', url: 'https://example.com/page' }, new Date());
  await worker.drain({ untilEmpty: true });
  const o = getDocument(store, outside.id)!;
  assert.equal(o.status, 'failed');
  assert.match(o.error!, /no requests outside this machine/);
  assert.equal(listJobs(store).find((j) => j.documentId === outside.id)!.status, 'dead');
  await store.close();
});

test('file URLs and the size limit', async () => {
  const dir = tmpDir('am-docfile-');
  const small = path.join(dir, 'notes.txt');
  fs.writeFileSync(small, body);
  const big = path.join(dir, 'big.txt');
  fs.writeFileSync(big, 'x'.repeat(30_000));
  const fetcher = createLocalDocumentFetcher();
  assert.equal((await fetcher(pathToFileURL(small).href, { maxBytes: 20_000 })).content, body);
  await assert.rejects(fetcher(pathToFileURL(big).href, { maxBytes: 20_000 }), /limit is 20000/);
  await assert.rejects(fetcher('ftp://127.0.0.1/x', { maxBytes: 20_000 }), /no requests outside/);
});

test('a failed attempt resumes after the chunks already written', async () => {
  const { store, worker } = await setup();
  const doc = createDocument(store, 'p', { sourceType: 'text', title: 'Runbook', content: body }, new Date());
  // Pretend an earlier attempt wrote chunk 0.
  await worker.drain();
  const first = documentMemoryIds(store, doc.id);
  store.transaction((tx) => {
    tx.run(`DELETE FROM document_memories WHERE document_id = ? AND chunk_index > 0`, [doc.id]);
    tx.run(`UPDATE documents SET status = 'embedding' WHERE id = ?`, [doc.id]);
    tx.run(`UPDATE memory_jobs SET status = 'pending' WHERE document_id = ?`, [doc.id]);
  });
  await worker.drain();
  assert.deepEqual(documentMemoryIds(store, doc.id), first);
  assert.equal(getDocument(store, doc.id)!.status, 'done');
  await store.close();
});

test('a markdown chunk is indexed with its heading path, and shows only its own text', async () => {
  const { store, memory, worker } = await setup();
  const content = [
    '# Payments',
    'How money moves through the shop.',
    '## Refunds',
    'Refunds go back to the original card.',
    '### Card disputes',
    Array.from({ length: 8 }, (_, i) => `Step ${i}: open a ticket with the acquiring bank and attach the receipt.`).join(' '),
  ].join('\n\n');
  const doc = createDocument(store, 'p', { sourceType: 'text', title: 'handbook.md', content }, new Date());
  assert.deepEqual(await worker.drain(), { ok: 1, failed: 0 });
  const chunks = documentMemoryIds(store, doc.id).map((id) => memory.get(id)!);
  const dispute = chunks.find((m) => m.content.includes('acquiring bank') && !m.content.includes('Card disputes'));
  assert.ok(dispute, `a chunk cut from inside the section: ${chunks.map((m) => m.content.slice(0, 40)).join(' | ')}`);
  assert.equal(dispute.searchContext, 'handbook.md › Payments › Refunds › Card disputes');
  assert.doesNotMatch(dispute.content, /Payments|Refunds/, 'the path is not part of the text it shows');
  // The full-text index holds the path in its own column.
  const rid = store.get<{ rid: number }>('SELECT rid FROM memories WHERE id = ?', [dispute.id])!.rid;
  const found = store
    .all<{ docid: number }>("SELECT docid FROM memories_fts WHERE memories_fts MATCH 'search_context:payments'")
    .map((r) => Number(r.docid));
  assert.ok(found.includes(Number(rid)), 'found by a heading above it');
  await store.close();
});
