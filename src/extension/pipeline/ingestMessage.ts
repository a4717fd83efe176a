/**
 * What "Ingest File into Memory" says when it is done (docs/pipeline.md "Documents"): unchanged,
 * new, or replaced with how many chunks were added and removed. No vscode import (unit-tested).
 */
import type { DocumentIngestResult } from '../../engine/protocol';
import { plural } from '../../core/text/plural';

export function ingestMessage(name: string, r: DocumentIngestResult): string {
  if (r.status === 'failed') return `Ingesting ${name} failed: ${r.error ?? 'unknown error'}`;
  if (r.unchanged) return `${name} is already ingested and unchanged (${plural(r.chunkCount, 'chunk')}); nothing was added.`;
  const chunks = plural(r.chunkCount, 'chunk');
  if (!r.removed) return `${name} ingested as ${chunks}.`;
  const added = r.added ?? 0;
  return `${name} changed: ingested again as ${chunks} — ${plural(added, 'chunk')} added, ${plural(r.removed, 'old chunk')} removed.`;
}
