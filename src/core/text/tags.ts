// Tag normalization (docs/write-path.md "Normalize"): trimmed, lowercased, deduplicated,
// capped at 16 entries of at most 64 characters. Bad entries are dropped with a warning,
// never an error, so one odd tag cannot fail a write.

export const MAX_TAGS = 16;
export const MAX_TAG_CHARS = 64;

export interface NormalizedTags {
  tags: string[];
  warnings: string[];
}

/**
 * Accepts an array of strings, a comma-separated string ("ui, Preference"), or
 * null/undefined (no tags). Order of first appearance is kept.
 */
export function normalizeTags(input: unknown): NormalizedTags {
  const warnings: string[] = [];
  if (input === undefined || input === null) return { tags: [], warnings };

  let raw: unknown[];
  if (typeof input === 'string') raw = input.split(',');
  else if (Array.isArray(input)) raw = input;
  else {
    warnings.push(`tags must be an array of strings or a comma-separated string, got ${describe(input)}; ignored`);
    return { tags: [], warnings };
  }

  const tags: string[] = [];
  const seen = new Set<string>();
  let overflow = 0;
  raw.forEach((entry, i) => {
    if (typeof entry !== 'string') {
      warnings.push(`tag #${i + 1} is ${describe(entry)}, not a string; dropped`);
      return;
    }
    // NFC so that composed and decomposed forms of the same tag dedupe together.
    let tag = entry.normalize('NFC').trim().replace(/\s+/g, ' ').toLowerCase();
    if (tag.length === 0) {
      // An empty piece from a trailing comma ("a,b,") is not worth a warning.
      if (typeof input !== 'string' || entry.trim().length > 0) warnings.push(`tag #${i + 1} is empty; dropped`);
      return;
    }
    const chars = Array.from(tag); // code points, so a surrogate pair is never split
    if (chars.length > MAX_TAG_CHARS) {
      tag = chars.slice(0, MAX_TAG_CHARS).join('').trimEnd();
      warnings.push(`tag "${tag}…" is longer than ${MAX_TAG_CHARS} characters; truncated`);
    }
    if (seen.has(tag)) return;
    seen.add(tag);
    if (tags.length >= MAX_TAGS) overflow++;
    else tags.push(tag);
  });
  if (overflow > 0) warnings.push(`more than ${MAX_TAGS} tags; ${overflow} dropped`);
  return { tags, warnings };
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return typeof v === 'object' ? 'an object' : `a ${typeof v}`;
}
