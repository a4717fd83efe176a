/**
 * Export of both stores (or one) and import into them, over the file formats of
 * src/engine/transferFormat.ts. Import runs in batches, each one durable transaction keeping the
 * original created_at; between batches it yields so a cancel can arrive (what was imported
 * stays). Imported memories get their vectors from the backfill.
 */
import { describeRedacted } from '../../../core/secrets/detect';
import type { CreateMemoryInput, MemoryRecord, MemoryScope } from '../../../core/memory/types';
import type { EngineContext } from '../context';
import { cancelledError } from '../../errors';
import type { ExportFile, ExportFormat, ImportResult, StoreName } from '../../protocol';
import type { StoreRuntime } from '../runtime/storeRuntime';
import { exportFormatFor, importBatch, readImportItems, writeExportFile, writeJsonlExport, type ImportItem } from '../../transferFormat';

const IMPORT_BATCH = 200;

/** Cancellation and progress of one request (the RPC server gives them). */
export interface CallContext {
  signal: AbortSignal;
  progress: (done: number, total: number, message?: string) => void;
}

export const NO_CONTEXT: CallContext = { signal: new AbortController().signal, progress: () => undefined };

type ImportInput = Extract<ImportItem, { input: CreateMemoryInput }>;

export class TransferService {
  constructor(private readonly ctx: EngineContext) {}

  exportTo(file: string, scope?: MemoryScope, format?: ExportFormat): { path: string; count: number; bytes: number } {
    const runtimes = this.ctx.stores.forScope(scope);
    const exportedAt = this.ctx.now().toISOString();
    const projectId = this.ctx.project.id;
    if ((format ?? exportFormatFor(file)) === 'json') {
      const memories = [...liveRecords(runtimes)];
      const data: ExportFile = { format: 'agent-memory-export', version: 1, exportedAt, projectId, memories };
      return { path: file, count: memories.length, bytes: writeExportFile(file, data) };
    }
    // JSONL: header + one memory per line, read back from the stores as they are written out.
    const count = runtimes.reduce(
      (n, rt) => n + Number(rt.store.get<{ n: number }>('SELECT count(*) AS n FROM memories WHERE deleted_at IS NULL')!.n),
      0,
    );
    const bytes = writeJsonlExport(file, { exportedAt, projectId, count }, liveRecords(runtimes));
    return { path: file, count, bytes };
  }

  /** Any supported file (JSONL, JSON export, plain array); exact duplicates counted, bad lines reported with their numbers. */
  async importFile(file: string, call: CallContext = NO_CONTEXT): Promise<ImportResult> {
    const { format, items } = readImportItems(file);
    const result: ImportResult = { total: items.length, created: 0, duplicates: 0, skipped: 0, errors: [], format };
    const ids: Record<StoreName, string[]> = { project: [], global: [] };
    try {
      for (let start = 0; start < items.length; start += IMPORT_BATCH) {
        await new Promise((r) => setImmediate(r));
        if (call.signal.aborted) throw cancelledError();
        const batch = items.slice(start, start + IMPORT_BATCH);
        for (const name of ['project', 'global'] as const) {
          const mine = batch.filter((it): it is ImportInput => 'input' in it && (it.input.scope === 'global') === (name === 'global'));
          if (mine.length) this.importInto(this.ctx.stores.runtime(name), mine, result, ids[name]);
        }
        for (const it of batch) if ('invalid' in it) fail(result, it, it.invalid);
        for (const it of batch) for (const message of ('notes' in it && it.notes) || []) (result.warnings ??= []).push(at(it, message));
        call.progress(Math.min(start + IMPORT_BATCH, items.length), items.length, `${result.created} created`);
      }
    } finally {
      for (const name of ['project', 'global'] as const) {
        if (!ids[name].length) continue;
        this.ctx.changed('imported', ids[name], name);
        this.ctx.stores.runtime(name).kickBackfill(); // imported rows wait for their vectors
      }
    }
    result.errors.sort((a, b) => a.index - b.index);
    return result;
  }

  private importInto(rt: StoreRuntime, items: ImportInput[], result: ImportResult, ids: string[]): void {
    for (const r of this.ctx.write(rt, () => importBatch(rt.store, rt.memory, items))) {
      if (r.status === 'created') {
        result.created++;
        ids.push(r.id!);
        if (r.redacted) (result.warnings ??= []).push(at(r.item, describeRedacted(r.redacted)));
      } else if (r.status === 'duplicate') result.duplicates++;
      else if (r.status === 'skipped') {
        result.skipped++;
        if (r.secrets) (result.warnings ??= []).push(at(r.item, `Not imported: ${r.message}`));
      } else fail(result, r.item, `${r.item.line !== undefined ? `line ${r.item.line}` : `item ${r.item.index}`}: ${r.message}`);
    }
  }
}

function fail(result: ImportResult, it: ImportItem, message: string): void {
  result.errors.push(at(it, message));
}

function at(it: ImportItem, message: string): { index: number; line?: number; message: string } {
  return { index: it.index, ...(it.line !== undefined ? { line: it.line } : {}), message };
}

function* liveRecords(runtimes: StoreRuntime[]): Generator<MemoryRecord> {
  for (const rt of runtimes) {
    for (const r of rt.store.all('SELECT id FROM memories WHERE deleted_at IS NULL ORDER BY created_at, rid')) {
      const m = rt.memory.get(String(r.id));
      if (m) yield m;
    }
  }
}
