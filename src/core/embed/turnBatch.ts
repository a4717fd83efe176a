/**
 * Texts asked in one turn of the event loop, embedded together at its end: a recall's memory and
 * session-chunk searches ask for their query views separately, and the built-in model embeds
 * texts of one call in one pass over its weights (useLiteModel.ts `embedMany`). A text asked
 * twice in one turn (both stores' searches ask for the query as written) is embedded once.
 */
export class TurnBatch {
  private batch: { texts: string[]; waiters: Waiter[] } | undefined;

  /** `run` embeds one turn's texts, in order. */
  constructor(private readonly run: (texts: string[]) => Promise<Float32Array[]>) {}

  /** The vectors of `texts`, from the model call of this turn. */
  add(texts: string[]): Promise<Float32Array[]> {
    return new Promise<Float32Array[]>((resolve, reject) => {
      let batch = this.batch;
      if (!batch) {
        batch = this.batch = { texts: [], waiters: [] };
        setImmediate(() => this.flush());
      }
      batch.waiters.push({ start: batch.texts.length, n: texts.length, resolve, reject });
      batch.texts.push(...texts);
    });
  }

  private flush(): void {
    const batch = this.batch;
    this.batch = undefined;
    if (!batch) return;
    const unique = [...new Set(batch.texts)];
    const slot = new Map(unique.map((t, i) => [t, i]));
    this.run(unique).then(
      (vs) => {
        // A repeated text gets its own copy: a caller may scale its vectors in place.
        const seen = new Set<string>();
        const all = batch.texts.map((t) => {
          const v = vs[slot.get(t)!];
          if (seen.has(t)) return v?.slice();
          seen.add(t);
          return v;
        }) as Float32Array[];
        for (const w of batch.waiters) w.resolve(all.slice(w.start, w.start + w.n));
      },
      (e: unknown) => {
        for (const w of batch.waiters) w.reject(e);
      },
    );
  }
}

interface Waiter {
  start: number;
  n: number;
  resolve: (v: Float32Array[]) => void;
  reject: (e: unknown) => void;
}
