// The metric this project reports for LoCoMo (bench/locomo/RESULTS.md):
//   recall_any@k: share of questions with at least one evidence turn among the top k results;
//   recall_all@k: share of questions with every evidence turn in the top k;
// for k = 1, 5, 10, 20, overall and per category.
//
// "Top k" is the first k entries of the ranked list exactly as the retriever returned it
// (a retriever that repeats an id wastes a slot; the harness warns about that).

export const KS = [1, 5, 10, 20] as const;
export type K = (typeof KS)[number];
/** The largest k: how many results the harness asks each retriever for. */
export const MAX_K: number = Math.max(...KS);

/** Keyed by k as a string ("1", "5", "10", "20"), as in the JSON output. */
export type RecallAtK = Record<string, number>;

export interface RecallGroup {
  questions: number;
  recall_any: RecallAtK;
  recall_all: RecallAtK;
}

export interface RecallReport extends RecallGroup {
  /** Keyed by category as a string ("1".."4"), only categories that have questions, ascending. */
  by_category: Record<string, RecallGroup>;
}

/** What the metric needs from a question. */
export interface ScoredItem {
  category: number;
  /** Canonical evidence ids (non-empty for a scorable question). */
  evidence: readonly string[];
}

export interface RankedResult {
  question: ScoredItem;
  /** Dia ids, best first. */
  ranked: readonly string[];
}

/** Whether any / all of `evidence` is in the first `k` entries of `ranked`. */
export function hitAt(evidence: readonly string[], ranked: readonly string[], k: number): { any: boolean; all: boolean } {
  const top = new Set(ranked.slice(0, k));
  let found = 0;
  for (const id of evidence) if (top.has(id)) found++;
  return { any: found > 0, all: evidence.length > 0 && found === evidence.length };
}

class Counter {
  questions = 0;
  readonly any: number[];
  readonly all: number[];
  constructor(private readonly ks: readonly number[]) {
    this.any = ks.map(() => 0);
    this.all = ks.map(() => 0);
  }
  add(evidence: readonly string[], ranked: readonly string[]): void {
    this.questions++;
    this.ks.forEach((k, i) => {
      const h = hitAt(evidence, ranked, k);
      if (h.any) this.any[i]!++;
      if (h.all) this.all[i]!++;
    });
  }
  group(digits: number | undefined): RecallGroup {
    const share = (n: number) => (this.questions === 0 ? 0 : round(n / this.questions, digits));
    const at = (counts: number[]) => Object.fromEntries(this.ks.map((k, i) => [String(k), share(counts[i]!)]));
    return { questions: this.questions, recall_any: at(this.any), recall_all: at(this.all) };
  }
}

function round(x: number, digits: number | undefined): number {
  if (digits === undefined) return x;
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

export interface RecallOptions {
  ks?: readonly number[];
  /** Round the shares to this many decimals (default: no rounding). */
  digits?: number;
}

/** recall_any@k and recall_all@k, overall and by category. Questions without evidence throw. */
export function computeRecall(results: Iterable<RankedResult>, opts: RecallOptions = {}): RecallReport {
  const ks = opts.ks ?? KS;
  const overall = new Counter(ks);
  const byCat = new Map<number, Counter>();
  for (const { question, ranked } of results) {
    if (question.evidence.length === 0) throw new Error('computeRecall: a question without evidence is not scorable');
    overall.add(question.evidence, ranked);
    let c = byCat.get(question.category);
    if (!c) byCat.set(question.category, (c = new Counter(ks)));
    c.add(question.evidence, ranked);
  }
  const by_category: Record<string, RecallGroup> = {};
  for (const cat of [...byCat.keys()].sort((a, b) => a - b)) by_category[String(cat)] = byCat.get(cat)!.group(opts.digits);
  return { ...overall.group(opts.digits), by_category };
}
