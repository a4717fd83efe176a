/**
 * Pseudo-relevance feedback on the vector leg (Rocchio): q' = q/|q| + β · mean(d/|d|) over the
 * stored vectors of the best first-pass results. The first pass's fusion already used both
 * legs, so the keyword evidence pulls the vector query towards what matched by words.
 */
export function rocchio(query: Float32Array, docs: readonly Float32Array[], beta: number): Float32Array {
  const dim = query.length;
  const out = new Float32Array(dim);
  const qn = norm(query);
  if (qn > 0) for (let i = 0; i < dim; i++) out[i] = query[i]! / qn;
  let used = 0;
  const mean = new Float32Array(dim);
  for (const d of docs) {
    const dn = norm(d);
    if (d.length !== dim || !(dn > 0)) continue;
    for (let i = 0; i < dim; i++) mean[i]! += d[i]! / dn;
    used++;
  }
  if (used === 0 || !(beta > 0)) return out;
  for (let i = 0; i < dim; i++) out[i]! += (beta * mean[i]!) / used;
  return out;
}

function norm(v: Float32Array): number {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += v[i]! * v[i]!;
  return Math.sqrt(s);
}
