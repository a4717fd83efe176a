/** Small statistics helpers for benchmarks: medians and percentiles over raw samples. */
export function percentile(samples: number[], p: number): number {
  if (!samples.length) return NaN;
  const s = [...samples].sort((a, b) => a - b);
  const idx = Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1));
  return s[idx]!;
}

export const median = (samples: number[]) => percentile(samples, 50);

export function mean(samples: number[]): number {
  return samples.reduce((a, b) => a + b, 0) / samples.length;
}

export function round(n: number, digits = 3): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

export function peakRssMb(): number {
  return round(process.resourceUsage().maxRSS / 1024, 1);
}

/**
 * Two-sided p-value of the Mann–Whitney U test: how likely samples as far apart as `a` and `b`
 * are if both come from the same distribution. Exact (the U distribution counted over every
 * ordering) when there are no ties and the samples are small, else the normal approximation
 * with tie and continuity corrections.
 */
export function mannWhitneyP(a: number[], b: number[]): number {
  const n1 = a.length;
  const n2 = b.length;
  if (!n1 || !n2) return NaN;
  const all = [...a.map((v) => ({ v, first: true })), ...b.map((v) => ({ v, first: false }))].sort((x, y) => x.v - y.v);
  let rankSum = 0;
  let tieTerm = 0;
  for (let i = 0; i < all.length;) {
    let j = i;
    while (j + 1 < all.length && all[j + 1]!.v === all[i]!.v) j++;
    const rank = (i + j) / 2 + 1;
    for (let k = i; k <= j; k++) if (all[k]!.first) rankSum += rank;
    const t = j - i + 1;
    tieTerm += t ** 3 - t;
    i = j + 1;
  }
  const u = rankSum - (n1 * (n1 + 1)) / 2;
  const uMin = Math.min(u, n1 * n2 - u);
  if (tieTerm === 0 && n1 * n2 <= 2500) return Math.min(1, 2 * exactUCdf(n1, n2, uMin));
  const n = n1 + n2;
  const sigma = Math.sqrt(((n1 * n2) / 12) * (n + 1 - tieTerm / (n * (n - 1))));
  if (sigma === 0) return 1;
  const z = (Math.abs(u - (n1 * n2) / 2) - 0.5) / sigma;
  return Math.min(1, 2 * (1 - normalCdf(z)));
}

/** P(U ≤ u) for sample sizes n1, n2 without ties: orderings counted by U (f(i,j) = f(i−1,j) shifted by j + f(i,j−1)). */
function exactUCdf(n1: number, n2: number, u: number): number {
  // counts[j][k]: orderings of i first-sample and j second-sample values with U = k, built up over i.
  let prev: number[][] = Array.from({ length: n2 + 1 }, () => [1]);
  for (let i = 1; i <= n1; i++) {
    const cur: number[][] = [[1]];
    for (let j = 1; j <= n2; j++) {
      const size = i * j + 1;
      const row = new Array<number>(size).fill(0);
      const left = cur[j - 1]!; // one fewer of the second sample: the last value is from it, adds nothing
      const up = prev[j]!; // one fewer of the first sample: the last value is from it and beats all j
      for (let k = 0; k < left.length; k++) row[k]! += left[k]!;
      for (let k = 0; k < up.length; k++) row[k + j]! += up[k]!;
      cur.push(row);
    }
    prev = cur;
  }
  const counts = prev[n2]!;
  const total = counts.reduce((s, c) => s + c, 0);
  let below = 0;
  for (let k = 0; k <= Math.floor(u) && k < counts.length; k++) below += counts[k]!;
  return below / total;
}

/** The standard normal CDF (Abramowitz and Stegun 7.1.26, error below 1.5e-7). */
function normalCdf(z: number): number {
  const x = Math.abs(z) / Math.SQRT2;
  const t = 1 / (1 + 0.3275911 * x);
  const poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))));
  const erf = 1 - poly * Math.exp(-x * x);
  return z >= 0 ? (1 + erf) / 2 : (1 - erf) / 2;
}
