/**
 * Mean recall@k of approximate result lists against exact ones (one list per query):
 * |approx[:k] ∩ exact[:k]| / |exact[:k]|, averaged over queries whose exact list is non-empty.
 * Lists may hold labels or hits (`{ label }`). `k` defaults to the length of each exact list.
 */
export function recallAtK(
  approx: ReadonlyArray<ReadonlyArray<number | { label: number }>>,
  exact: ReadonlyArray<ReadonlyArray<number | { label: number }>>,
  k?: number,
): number {
  if (approx.length !== exact.length) throw new RangeError(`recallAtK: ${approx.length} approximate lists, ${exact.length} exact`);
  const label = (x: number | { label: number }) => (typeof x === 'number' ? x : x.label);
  let sum = 0;
  let queries = 0;
  for (let i = 0; i < exact.length; i++) {
    const e = exact[i]!;
    const kk = Math.min(k ?? e.length, e.length);
    if (kk === 0) continue;
    const truth = new Set<number>();
    for (let j = 0; j < kk; j++) truth.add(label(e[j]!));
    const a = approx[i]!;
    let hit = 0;
    for (let j = 0; j < Math.min(kk, a.length); j++) if (truth.has(label(a[j]!))) hit++;
    sum += hit / truth.size;
    queries++;
  }
  return queries === 0 ? 1 : sum / queries;
}
