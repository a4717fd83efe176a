/** The word a mistyped command or option most likely meant ("serch" → "search"), or none. */

/** Edit distance with adjacent transpositions (optimal string alignment). */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The candidate closest to `given`: the only one it is the start of ("imp" → "import"), else the
 * nearest within a third of its length (at least 1, at most 3 edits); ties and far words: none.
 */
export function closest(given: string, candidates: readonly string[]): string | undefined {
  const word = given.toLowerCase();
  const starts = candidates.filter((c) => c.startsWith(word));
  if (starts.length === 1 && word.replace(/^-+/, '').length >= 2) return starts[0];
  const bare = word.replace(/^-+/, '');
  const room = Math.min(3, Math.max(1, Math.floor(bare.length / 3)));
  const scored = candidates.map((c) => ({ c, d: editDistance(word, c) })).filter((x) => x.d <= room);
  scored.sort((x, y) => x.d - y.d);
  if (!scored.length || (scored.length > 1 && scored[0]!.d === scored[1]!.d)) return undefined;
  return scored[0]!.c;
}
