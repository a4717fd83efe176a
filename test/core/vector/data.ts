/** Deterministic synthetic vectors for the vector tests and bench/vector.bench.ts. */

/** mulberry32: small, fast, seeded. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function gaussian(rand: () => number): () => number {
  return () => {
    let u = 0;
    while (u === 0) u = rand();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rand());
  };
}

/**
 * `n` vectors around `clusters` random centres (like embeddings of related texts), plus
 * `queries` query vectors drawn the same way.
 */
export function clusteredVectors(opts: { n: number; dim: number; clusters: number; queries: number; seed: number; spread?: number }): {
  vectors: Float32Array[];
  queries: Float32Array[];
} {
  const g = gaussian(rng(opts.seed));
  const spread = opts.spread ?? 0.35;
  const centres: Float32Array[] = [];
  for (let c = 0; c < opts.clusters; c++) centres.push(Float32Array.from({ length: opts.dim }, () => g()));
  const draw = (i: number) => {
    const c = centres[i % opts.clusters]!;
    const v = new Float32Array(opts.dim);
    for (let j = 0; j < opts.dim; j++) v[j] = c[j]! + spread * g();
    return v;
  };
  const vectors = Array.from({ length: opts.n }, (_, i) => draw(i));
  const queries = Array.from({ length: opts.queries }, (_, i) => draw(i * 7 + 3));
  return { vectors, queries };
}
