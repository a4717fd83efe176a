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
