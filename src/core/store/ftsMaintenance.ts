/**
 * Merging FTS4 index segments. Each committed write adds a segment and FTS4 only merges 16 at a
 * time, so a store that takes single writes keeps ~40 segments, and every term lookup seeks all
 * of them. Merges are logged transactions (replay reproduces the same segments).
 */
import { errorMessage } from '../util/errors';
import type { Tx } from './storeTypes';

/** FTS4 incremental merge steps: up to 300 pages of work, merging a level that has ≥ N segments. */
const FTS_MERGE_PAGES = 300;

/** What the merging needs from the store. */
export interface FtsHost {
  transaction(fn: (tx: Tx) => void): void;
  count(sql: string): number;
  closed(): boolean;
  warn(message: string, key: string): void;
}

export interface CompactOptions {
  tables?: string[];
  maxSegments?: number;
  maxSteps?: number;
}

/** One bounded merge step per table; a failure only costs speed and is recorded as a warning (once per table). */
export function mergeFullTextSegments(host: FtsHost, tables: string[], minSegmentsPerLevel: number): void {
  if (!Number.isInteger(minSegmentsPerLevel) || minSegmentsPerLevel < 2) throw new RangeError('minSegmentsPerLevel must be an integer ≥ 2');
  for (const t of tables) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(t)) throw new Error(`not a table name: ${t}`);
    try {
      host.transaction((tx) => tx.run(`INSERT INTO ${t}(${t}) VALUES('merge=${FTS_MERGE_PAGES},${minSegmentsPerLevel}')`));
    } catch (e) {
      host.warn(`merging the segments of the full-text index ${t} failed: ${errorMessage(e)}`, `fts-merge:${t}`);
    }
  }
}

/**
 * Merge full-text segments in bounded steps, yielding to the event loop between them,
 * until at most `maxSegments` remain per table or steps stop making progress (then each
 * level holds one segment: levels are never merged with each other). For idle time
 * (after a bulk import, before a snapshot). Returns the segments left per table.
 */
export async function compactFullTextIndex(host: FtsHost, opts: CompactOptions): Promise<Record<string, number>> {
  const tables = opts.tables ?? ['memories_fts', 'memories_exact'];
  const left: Record<string, number> = {};
  for (const t of tables) {
    const count = () => host.count(`SELECT count(*) AS n FROM ${t}_segdir`);
    let before = count();
    for (let step = 0; step < (opts.maxSteps ?? 10_000) && before > (opts.maxSegments ?? 4); step++) {
      await new Promise((r) => setImmediate(r));
      if (host.closed()) break;
      mergeFullTextSegments(host, [t], 2);
      const after = count();
      // A step may only rewrite part of a level: progress shows as fewer segments within a few steps.
      if (after >= before && step % 8 === 7) break;
      before = Math.min(before, after);
    }
    left[t] = host.closed() ? before : count();
  }
  return left;
}

/** Runs a merge step after every `every` committed writes, once the caller's write has returned (maintenance, not part of it). */
export class FtsMergeTimer {
  private commits = 0;
  private timer: NodeJS.Immediate | undefined;

  constructor(
    private readonly every: number,
    private readonly run: () => void,
  ) {}

  countCommit(): void {
    if (this.timer || ++this.commits < this.every) return;
    this.timer = setImmediate(() => {
      this.timer = undefined;
      this.commits = 0;
      this.run();
    });
    this.timer.unref?.();
  }

  /** Forgets the commits counted so far (migrations at open are not writes). */
  reset(): void {
    this.commits = 0;
  }

  stop(): void {
    if (this.timer) clearImmediate(this.timer);
    this.timer = undefined;
  }
}
