/**
 * Texts asked in one turn of the event loop, embedded together at its end: a recall's memory and
 * session-chunk searches ask for their query views separately, and the built-in model embeds
 * texts of one call in one pass over its weights (useLiteModel.ts `embedMany`).
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
    this.run(batch.texts).then(
      (vs) => {
        for (const w of batch.waiters) w.resolve(vs.slice(w.start, w.start + w.n));
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
