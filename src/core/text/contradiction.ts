// Lexical contradiction detector (docs/pipeline.md "Controlled writes"): two texts about the same
// thing (≥ 2 shared content tokens) where one is negated and the other is not, or where
// they use opposite words of an antonym pair. A heuristic for flagging `reviewNeeded`,
// not a proof: it favours catching "use X" vs "never use X" over precision.
import { STOP_WORDS } from './stopwords.js';
import { tokenizeWords } from './tokenize.js';

export const MIN_SHARED_TOKENS = 2;

/** Tokens that flip the polarity of a statement. Apostrophe-less spellings are included. */
export const NEGATION_TOKENS: ReadonlySet<string> = new Set([
  'not',
  'no',
  'never',
  'none',
  'nobody',
  'nothing',
  'neither',
  'nor',
  'nowhere',
  'without',
  'cannot',
  "can't",
  'cant',
  "don't",
  'dont',
  "doesn't",
  'doesnt',
  "didn't",
  'didnt',
  "isn't",
  'isnt',
  "aren't",
  'arent',
  "wasn't",
  'wasnt',
  "weren't",
  'werent',
  "won't",
  'wont',
  "wouldn't",
  'wouldnt',
  "shouldn't",
  'shouldnt',
  "couldn't",
  'couldnt',
  "mustn't",
  'mustnt',
  "hasn't",
  'hasnt',
  "haven't",
  'havent',
  "hadn't",
  'hadnt',
  "needn't",
  'neednt',
  "shan't",
  "ain't",
]);

/**
 * Antonym pairs, each side listed with its common inflections. `disable` lives here rather
 * than among the negations: "cache disabled" vs "cache not enabled" agree, and listing it
 * as a negation would make that pair look like a polarity flip.
 */
export const ANTONYM_PAIRS: ReadonlyArray<readonly [readonly string[], readonly string[]]> = [
  [
    ['enable', 'enabled', 'enables', 'enabling'],
    ['disable', 'disabled', 'disables', 'disabling'],
  ],
  [
    ['allow', 'allowed', 'allows', 'allowing'],
    ['deny', 'denied', 'denies', 'denying', 'disallow', 'disallowed', 'forbid', 'forbidden', 'forbids'],
  ],
  [['true'], ['false']],
  [['on'], ['off']],
  [['always'], ['never']],
  [
    ['include', 'included', 'includes', 'including'],
    ['exclude', 'excluded', 'excludes', 'excluding'],
  ],
  [
    ['accept', 'accepted', 'accepts', 'accepting'],
    ['reject', 'rejected', 'rejects', 'rejecting'],
  ],
  [
    ['add', 'added', 'adds', 'adding'],
    ['remove', 'removed', 'removes', 'removing'],
  ],
  [
    ['start', 'started', 'starts', 'starting'],
    ['stop', 'stopped', 'stops', 'stopping'],
  ],
  [
    ['increase', 'increased', 'increases', 'increasing'],
    ['decrease', 'decreased', 'decreases', 'decreasing'],
  ],
  [
    ['show', 'shown', 'shows', 'showing'],
    ['hide', 'hidden', 'hides', 'hiding'],
  ],
  [
    ['open', 'opened', 'opens'],
    ['close', 'closed', 'closes'],
  ],
  [
    ['lock', 'locked', 'locks'],
    ['unlock', 'unlocked', 'unlocks'],
  ],
  [
    ['use', 'uses', 'using', 'prefer', 'prefers', 'preferred'],
    ['avoid', 'avoids', 'avoided', 'avoiding'],
  ],
  [['required', 'mandatory'], ['optional']],
  [
    ['sync', 'synchronous', 'synchronously'],
    ['async', 'asynchronous', 'asynchronously'],
  ],
  [['public'], ['private']],
  [['valid'], ['invalid']],
  [
    ['pass', 'passes', 'passed', 'passing'],
    ['fail', 'fails', 'failed', 'failing'],
  ],
  [
    ['success', 'succeeds', 'succeeded'],
    ['failure', 'fails', 'failed'],
  ],
  [['supported'], ['unsupported']],
  [['available'], ['unavailable']],
  [['safe'], ['unsafe']],
  [['online'], ['offline']],
  [['light'], ['dark']],
  [
    ['ascending', 'asc'],
    ['descending', 'desc'],
  ],
  [
    ['higher', 'more', 'larger', 'bigger', 'maximum', 'max'],
    ['lower', 'less', 'smaller', 'fewer', 'minimum', 'min'],
  ],
  [['faster'], ['slower']],
  [['before'], ['after']],
  [['internal'], ['external']],
  [['mutable'], ['immutable']],
  [['encrypted'], ['unencrypted', 'plaintext']],
  [
    ['keep', 'keeps', 'kept'],
    ['delete', 'deletes', 'deleted', 'drop', 'drops', 'dropped'],
  ],
];

// token -> list of [pair index, side]; a token may sit in several pairs ("fails").
const ANTONYM_INDEX = new Map<string, Array<[number, 0 | 1]>>();
ANTONYM_PAIRS.forEach(([left, right], i) => {
  for (const [side, words] of [
    [0, left],
    [1, right],
  ] as const) {
    for (const w of words) {
      const list = ANTONYM_INDEX.get(w) ?? [];
      list.push([i, side]);
      ANTONYM_INDEX.set(w, list);
    }
  }
});

export interface ContradictionResult {
  contradicts: boolean;
  /** Human-readable cause, e.g. `negation: "never" in one text only` or `antonyms: enabled / disabled`. */
  reason?: string;
}

export function detectContradiction(a: string, b: string): ContradictionResult {
  const ta = new Set(tokenizeWords(a));
  const tb = new Set(tokenizeWords(b));

  // Overlap counts content tokens only: stop-words, negations and antonym words are what
  // differ between the two statements, not what makes them about the same subject.
  let shared = 0;
  for (const t of ta) if (tb.has(t) && isContentToken(t)) shared++;
  if (shared < MIN_SHARED_TOKENS) return { contradicts: false };

  const negA = firstNegation(ta);
  const negB = firstNegation(tb);
  if ((negA === undefined) !== (negB === undefined)) {
    return { contradicts: true, reason: `negation: "${negA ?? negB}" in one text only` };
  }

  const sidesA = antonymSides(ta);
  const sidesB = antonymSides(tb);
  for (const [pair, sa] of sidesA) {
    const sb = sidesB.get(pair);
    // Conflict only when each text uses exactly one side of the pair, and not the same one.
    if (sb && sa.sides.size === 1 && sb.sides.size === 1 && !sa.sides.has([...sb.sides][0]!)) {
      return { contradicts: true, reason: `antonyms: ${sa.word} / ${sb.word}` };
    }
  }
  return { contradicts: false };
}

function isContentToken(t: string): boolean {
  return !STOP_WORDS.has(t) && !NEGATION_TOKENS.has(t) && !ANTONYM_INDEX.has(t);
}

function firstNegation(tokens: Set<string>): string | undefined {
  for (const t of tokens) if (NEGATION_TOKENS.has(t)) return t;
  return undefined;
}

/** For each antonym pair the text touches: the sides it uses and one word as evidence. */
function antonymSides(tokens: Set<string>): Map<number, { sides: Set<0 | 1>; word: string }> {
  const out = new Map<number, { sides: Set<0 | 1>; word: string }>();
  for (const t of tokens) {
    for (const [pair, side] of ANTONYM_INDEX.get(t) ?? []) {
      const entry = out.get(pair) ?? { sides: new Set<0 | 1>(), word: t };
      entry.sides.add(side);
      out.set(pair, entry);
    }
  }
  return out;
}
