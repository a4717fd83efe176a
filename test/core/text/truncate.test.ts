/** Grapheme-safe truncation: emoji, flags, ZWJ sequences and combining marks are never cut in half. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { headByUnits, truncate, truncateFlat, truncateLine } from '../../../src/core/text/truncate';

const hasLoneSurrogate = (s: string) => /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/u.test(s);

test('short text is unchanged; long text ends with one ellipsis inside the limit', () => {
  assert.equal(truncate('Deploys on Monday', 40), 'Deploys on Monday');
  const t = truncate('abcdefghijklmnopqrstuvwxyz', 10);
  assert.equal(t, 'abcdefghi…');
  assert.equal([...new Intl.Segmenter().segment(t)].length, 10);
  assert.equal(truncate('anything', 0), '');
});

test('an emoji at the cut is kept whole or dropped whole, never a lone surrogate', () => {
  const text = 'Ship 🚀🚀🚀🚀🚀🚀 on Friday';
  for (let max = 1; max < 20; max++) {
    const t = truncate(text, max);
    assert.ok(!hasLoneSurrogate(t), `max ${max}: ${JSON.stringify(t)}`);
  }
  assert.equal(truncate('🚀🚀🚀🚀🚀', 3), '🚀🚀…');
});

test('flags, ZWJ families and combining marks count as one character each', () => {
  assert.equal(truncate('🇫🇷🇩🇪🇯🇵🇧🇷', 3), '🇫🇷🇩🇪…');
  assert.equal(truncate('👨‍👩‍👧‍👦👨‍👩‍👧‍👦👨‍👩‍👧‍👦', 2), '👨‍👩‍👧‍👦…');
  // "e" + COMBINING ACUTE ACCENT: 2 code units, one grapheme; never a bare accent left over.
  const decomposed = 'Cafe\u0301 cre\u0300me bru\u0302le\u0301e';
  const t = truncate(decomposed, 6);
  assert.equal(t, 'Cafe\u0301…');
  assert.ok(!/^\p{M}|\s\p{M}/u.test(t));
  assert.equal(truncate('🚀🚀🚀', 3), '🚀🚀🚀', 'six code units but three graphemes: fits');
});

test('a cut prefers a word boundary near the end; one-line and flat variants collapse whitespace', () => {
  assert.equal(truncate('The build uses esbuild to bundle the extension', 20), 'The build uses…');
  assert.equal(truncate('Supercalifragilisticexpialidocious', 10), 'Supercali…', 'no space to back off to');
  assert.equal(truncateLine('  First line\nsecond line', 40), 'First line');
  assert.equal(truncateFlat('First\n\nsecond   line', 40), 'First second line');
});

test('a 20,000-character memory is cut without segmenting all of it', () => {
  const long = '🧠 '.repeat(10_000);
  // Counted in graphemes read, not milliseconds: the work is bounded by the cut, not the text.
  let read = 0;
  const segment = Object.getOwnPropertyDescriptor(Intl.Segmenter.prototype, 'segment')!.value as (
    this: Intl.Segmenter,
    input: string,
  ) => Intl.Segments;
  Intl.Segmenter.prototype.segment = function (this: Intl.Segmenter, input: string) {
    const segments = segment.call(this, input);
    const iterate = segments[Symbol.iterator].bind(segments);
    return Object.assign(Object.create(segments) as Intl.Segments, {
      [Symbol.iterator]: function* () {
        for (const s of iterate()) {
          read++;
          yield s;
        }
      },
    });
  };
  let t: string;
  try {
    t = truncate(long, 50);
  } finally {
    Intl.Segmenter.prototype.segment = segment;
  }
  assert.ok(read <= 51, `read ${read} graphemes of 20,000 for a cut at 50`);
  assert.ok(t.endsWith('…'));
  assert.ok(!hasLoneSurrogate(t));
});

test('headByUnits: whole graphemes within a budget of UTF-16 units (storage previews)', () => {
  assert.equal(headByUnits('short', 10), 'short');
  assert.equal(headByUnits(`${'a'.repeat(9)}😀`, 10), 'a'.repeat(9), 'the emoji does not fit: dropped whole, no lone surrogate');
  assert.equal(headByUnits(`${'a'.repeat(8)}😀z`, 10), `${'a'.repeat(8)}😀`);
  const family = '👩‍👩‍👧‍👦'; // 11 units, one grapheme
  assert.equal(headByUnits(`ab${family}cd`, 10), 'ab');
  assert.equal(headByUnits(`ab${family}cd`, 13), `ab${family}`);
  assert.equal(headByUnits('cafe\u0301 au lait', 4), 'caf', 'an accent stays with its letter');
  for (let n = 0; n < 40; n++) {
    const cut = headByUnits(`x😀${family}e\u0301`.repeat(5), n);
    assert.ok(cut.length <= n && !hasLoneSurrogate(cut), `${n}: ${JSON.stringify(cut)}`);
  }
});

test('headByUnits cuts where the segmenter would, at every cut of mixed text (ASCII shortcut included)', () => {
  // The segmenter's answer, written out: the end of the last grapheme that fits.
  const bySegmenter = (text: string, max: number): string => {
    if (text.length <= max) return text;
    let end = 0;
    for (const { index, segment } of new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(text)) {
      if (index + segment.length > max) break;
      end = index + segment.length;
    }
    return text.slice(0, end);
  };
  const pieces = [
    'a',
    'Z',
    ' ',
    '.',
    '\r\n',
    '\r',
    '\n',
    '\t',
    'e\u0301',
    '\u0301',
    '\u200d',
    '👩‍👩‍👧',
    '😀',
    '🇫🇷',
    '1\ufe0f\u20e3',
    '#\u20e3',
    '\u0600',
    '\u0915\u094d\u0937',
    'ก\u0e33',
    '\u1100\u1161',
    '\ud83d',
    'é',
    '©\ufe0f',
  ];
  let seed = 7;
  const next = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
  for (let round = 0; round < 300; round++) {
    let text = '';
    while (text.length < 60) text += pieces[next(pieces.length)]!;
    for (let max = 0; max <= text.length; max++) {
      assert.equal(headByUnits(text, max), bySegmenter(text, max), `${JSON.stringify(text)} at ${max}`);
    }
  }
  assert.equal(headByUnits('a\r\nb', 2), 'a', 'CR LF is one grapheme: not split by the ASCII shortcut');
});

test('punctuation at the cut gives way to the ellipsis: never "captain.…" (four dots) or ",…"', () => {
  assert.equal(truncate('Releases are cut by the release captain. Hotfixes ship any day.', 45), 'Releases are cut by the release captain…');
  assert.equal(truncate('Use pnpm, not npm, for installs in this repository', 10), 'Use pnpm…');
});

test('ASCII text is cut without segmenting, exactly as the grapheme path cuts it', () => {
  // The grapheme path, as truncate() runs it for any text: the reference for the ASCII shortcut.
  const bySegments = (text: string, max: number): string => {
    if (text.length <= max) return text;
    const kept = [...new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(text)].map((s) => s.segment);
    if (kept.length <= max) return text;
    const parts = kept.slice(0, max - 1);
    const floor = Math.ceil((parts.length * 2) / 3);
    let head = parts.join('').trimEnd();
    for (let i = parts.length - 1; i >= floor; i--) {
      if (/^\s+$/u.test(parts[i]!)) {
        head = parts.slice(0, i).join('').trimEnd();
        break;
      }
    }
    return head.replace(/[\s.,;:!?\u2026]+$/u, '') + '…';
  };
  const alphabet = 'ab cd.,;:!?\t\r\n-xyz';
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648);
  for (let round = 0; round < 2000; round++) {
    const text = Array.from({ length: 1 + (next() % 60) }, () => alphabet[next() % alphabet.length]).join('');
    const max = 1 + (next() % 40);
    assert.equal(truncate(text, max), bySegments(text, max), `${JSON.stringify(text)} at ${max}`);
  }
  // A CR LF pair is one grapheme: at the cut it falls back to segmenting.
  assert.equal(truncate('abcd\r\nefgh', 5), bySegments('abcd\r\nefgh', 5));
  assert.equal(truncate('abc\r\nefgh', 4), bySegments('abc\r\nefgh', 4));
});
