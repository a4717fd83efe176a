/**
 * "Ingest File into Memory" (docs/pipeline.md "Documents"): reads the file, names it by its
 * workspace-relative path, answers "unchanged" when the same text was already ingested (nothing
 * added), otherwise ingests it and then replaces the chunks of the earlier ingest of that file
 * (how many were added and removed is in the result). Progress while the chunks are written.
 */
import * as path from 'node:path';
import type { MemoryPipeline } from '../../../core/pipeline/pipeline';
import { earlierChunkIds, earlierDocuments, replaceEarlierDocuments, unchangedDocument } from '../../../core/documents/reingest';
import { documentMemoryIds, guardDocument } from '../../../core/documents/ingest';
import type { EngineContext } from '../context';
import * as pc from './pipelineControl';
import type { DocumentIngestResult } from '../../protocol';
import type { CallContext } from './transfer';

/** `file` relative to the workspace root ("guides/ONBOARDING.md"); the absolute path when it is outside. */
export function workspaceSource(root: string | undefined, file: string): string {
  if (!root) return file;
  const rel = path.relative(root, file);
  return rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel.split(path.sep).join('/') : file;
}

export async function ingestFile(
  ctx: EngineContext,
  p: MemoryPipeline,
  req: { file: string; title: string | undefined; wait: boolean },
  call: CallContext,
): Promise<DocumentIngestResult> {
  const rt = ctx.stores.runtime('project');
  const file = pc.readDocumentFile(req.file, ctx.config.memory.pipelineV2.documentMaxContentBytes);
  const source = workspaceSource(ctx.init.workspaceRoot, req.file);
  // The text as it is stored (docs/secrets.md): "unchanged" compares it, not the file's own.
  const { input: doc, redacted } = guardDocument(
    { sourceType: 'file', url: source, title: req.title ?? file.title, content: file.content },
    rt.memory.secretPolicy,
  );
  const title = doc.title;
  const secrets = redacted.length ? { redacted } : {};
  // Earlier ingests may have recorded the absolute path.
  const earlier = earlierDocuments(rt.store, ctx.project.id, [source, req.file]);
  const same = unchangedDocument(earlier, doc.content ?? '');
  if (same) {
    const memoryIds = documentMemoryIds(rt.store, same.id);
    return {
      documentId: same.id,
      status: 'done',
      chunkCount: same.chunkCount,
      memoryIds,
      error: null,
      unchanged: true,
      added: 0,
      removed: 0,
      source,
      title,
      ...secrets,
    };
  }
  const row = ctx.write(rt, () => p.ingestDocument(doc));
  if (!req.wait) return { documentId: row.id, status: row.status, chunkCount: 0, memoryIds: [], error: null, source, title, ...secrets };
  const r = await ctx.write(rt, () => pc.waitForDocument(rt.store, p, row.id, call.signal, call.progress));
  if (r.status !== 'done') return { ...r, source, title, ...secrets };
  const before = earlierChunkIds(rt.store, earlier);
  const removed = earlier.length ? ctx.write(rt, () => replaceEarlierDocuments(rt.store, rt.memory, earlier, { now: ctx.now() })) : 0;
  const added = r.memoryIds.filter((id) => !before.has(id));
  if (added.length) ctx.changed('created', added, 'project');
  if (removed)
    ctx.changed(
      'deleted',
      [...before].filter((id) => !r.memoryIds.includes(id)),
      'project',
    );
  if (added.length) rt.kickBackfill(); // chunks written without a vector get theirs in the background
  return { ...r, unchanged: false, added: added.length, removed, source, title, ...secrets };
}
