// Near-duplicate test for the write path (docs/write-path.md "Validate"): an existing memory
// covering ≥ 80% of the words → skipped as `redundant`. Overlap is asymmetric on purpose: we ask how
// much of the NEW text the existing memory already covers, so a new memory that adds real
// information to an old one is not dropped.
import { detectContradiction } from './contradiction.js';
import { tokenizeWords } from './tokenize.js';

export const NEAR_DUPLICATE_THRESHOLD = 0.8;
/** Word order must also be shared, or "use tabs not spaces" would duplicate "use spaces not tabs". */
export const BIGRAM_THRESHOLD = 0.6;
/** Below this many words the bigram check is skipped (too few bigrams to mean anything). */
const MIN_WORDS_FOR_BIGRAMS = 3;

export interface WordOverlap {
  /** |words(new) ∩ words(existing)| / |words(new)| over distinct words; 0 when the new text has no words. */
  wordContainment: number;
  /** The same over distinct ordered word bigrams; 1 when the new text has fewer than 3 words. */
  bigramContainment: number;
  newWordCount: number;
  existingWordCount: number;
}

export function wordOverlap(newText: string, existing: string): WordOverlap {
  const nw = tokenizeWords(newText);
  const ew = tokenizeWords(existing);
  const newSet = new Set(nw);
  const oldSet = new Set(ew);
  const wordContainment = containment(newSet, oldSet);
  const bigramContainment = nw.length < MIN_WORDS_FOR_BIGRAMS ? 1 : containment(bigrams(nw), bigrams(ew));
  return { wordContainment, bigramContainment, newWordCount: nw.length, existingWordCount: ew.length };
}

export interface NearDuplicateResult {
  duplicate: boolean;
  overlap: WordOverlap;
  /** Why a high-overlap pair was still kept, when it was. */
  keptBecause?: 'word_order' | 'new_number' | 'contradiction';
}

/** Detailed form of {@link isNearDuplicate}. */
export function nearDuplicate(newText: string, existing: string, threshold = NEAR_DUPLICATE_THRESHOLD): NearDuplicateResult {
  const overlap = wordOverlap(newText, existing);
  if (overlap.newWordCount === 0 || overlap.wordContainment < threshold) return { duplicate: false, overlap };
  if (overlap.bigramContainment < BIGRAM_THRESHOLD) return { duplicate: false, overlap, keptBecause: 'word_order' };
  // A changed value ("port 8080" vs "port 3000") is new information even at 85% overlap.
  const oldWords = new Set(tokenizeWords(existing));
  if (tokenizeWords(newText).some((w) => /\p{N}/u.test(w) && !oldWords.has(w))) {
    return { duplicate: false, overlap, keptBecause: 'new_number' };
  }
  if (detectContradiction(newText, existing).contradicts) return { duplicate: false, overlap, keptBecause: 'contradiction' };
  return { duplicate: true, overlap };
}

/**
 * True when `newText` adds nothing to `existing`: ≥ threshold of its distinct words occur in
 * the existing text, ≥ 60% of its word bigrams too (texts of 3+ words), it introduces no new
 * number, and the two do not contradict each other.
 */
export function isNearDuplicate(newText: string, existing: string, threshold = NEAR_DUPLICATE_THRESHOLD): boolean {
  return nearDuplicate(newText, existing, threshold).duplicate;
}

function bigrams(words: string[]): Set<string> {
  const out = new Set<string>();
  for (let i = 1; i < words.length; i++) out.add(`${words[i - 1]}\u0000${words[i]}`);
  return out;
}

function containment(part: Set<string>, whole: Set<string>): number {
  if (part.size === 0) return 0;
  let hit = 0;
  for (const x of part) if (whole.has(x)) hit++;
  return hit / part.size;
}
