/** "Did you mean" suggestions for misspelt keys and enum values, by edit distance. */

/** Optimal-string-alignment distance (Levenshtein plus adjacent transpositions). */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) => {
    const row = new Array<number>(cols).fill(0);
    row[0] = i;
    return row;
  });
  for (let j = 0; j < cols; j++) (d[0] as number[])[j] = j;
  for (let i = 1; i < rows; i++) {
    const row = d[i] as number[];
    const prev = d[i - 1] as number[];
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min((prev[j] as number) + 1, (row[j - 1] as number) + 1, (prev[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        v = Math.min(v, ((d[i - 2] as number[])[j - 2] as number) + 1);
      }
      row[j] = v;
    }
  }
  return (d[rows - 1] as number[])[cols - 1] as number;
}

/** Lower case without separators, so `vectorWeight`, `vector_weight` and `Vector-Weight` compare equal. */
function loose(s: string): string {
  return s.toLowerCase().replace(/[_\-\s]/g, '');
}

function lastSegment(path: string): string {
  const i = path.lastIndexOf('.');
  return i < 0 ? path : path.slice(i + 1);
}

function parentOf(path: string): string {
  const i = path.lastIndexOf('.');
  return i < 0 ? '' : path.slice(0, i);
}

function threshold(len: number): number {
  if (len <= 4) return 1;
  if (len <= 11) return 2;
  return 3;
}

/** The closest of `candidates` to `word`, if close enough to be a likely typo. */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestD = Infinity;
  const w = loose(word);
  const limit = threshold(word.length);
  for (const c of candidates) {
    const lc = loose(c);
    // The distance is at least the difference in length: a candidate that cannot be near is
    // skipped without the quadratic comparison (a hostile key may be megabytes long).
    if (Math.abs(lc.length - w.length) > limit) continue;
    const d = lc === w ? 0 : editDistance(w, lc);
    if (d < bestD) {
      bestD = d;
      best = c;
    }
  }
  return best !== undefined && bestD <= limit ? best : undefined;
}

/**
 * A known dotted path the unknown `path` was probably meant to be: a near-miss among the keys
 * of the same section, a near-miss of the whole path, or the same key name in another section.
 */
export function suggestKey(path: string, known: readonly string[]): string | undefined {
  const parent = parentOf(path);
  const name = lastSegment(path);
  const siblings = known.filter((k) => parentOf(k) === parent).map(lastSegment);
  const sibling = closest(name, siblings);
  if (sibling !== undefined) return parent ? `${parent}.${sibling}` : sibling;

  const whole = closest(path, known);
  if (whole !== undefined) return whole;

  const elsewhere = known.filter((k) => loose(lastSegment(k)) === loose(name));
  return elsewhere.length === 1 ? elsewhere[0] : undefined;
}
