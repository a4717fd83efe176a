import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { normalizeAndHashContent } from '../../../src/core/text/normalize';
import { normalizeTags, MAX_TAGS, MAX_TAG_CHARS } from '../../../src/core/text/tags';
import {
  MIN_CONTENT_CHARS,
  checkContentQuality,
  contentLength,
  isLowValue,
  isPlaceholder,
  isTooShort,
} from '../../../src/core/text/quality';
import { isNearDuplicate, nearDuplicate, wordOverlap } from '../../../src/core/text/overlap';
import { detectContradiction } from '../../../src/core/text/contradiction';
import { canonicalDocJson, computeDocHash } from '../../../src/core/text/docHash';
import { tokenizeWords } from '../../../src/core/text/tokenize';

describe('normalizeAndHashContent (content normalization, docs/write-path.md)', () => {
  test('trims and collapses whitespace, keeps casing for storage', () => {
    const r = normalizeAndHashContent('  User Alice\tprefers \n\n concise   replies.  ');
    assert.equal(r.storageContent, 'User Alice prefers concise replies.');
    assert.equal(r.normalizedContent, 'user alice prefers concise replies');
  });

  test('hash is SHA-256 hex of the normalized content', () => {
    assert.equal(normalizeAndHashContent('Hello World!').contentHash, 'b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9');
    assert.equal(
      normalizeAndHashContent('User Alice prefers concise replies and uses dark mode.').contentHash,
      'b7b274bf3acd1e17a5d47e7f2cc31c97f4a654928e56670677c6e545232018db',
    );
  });

  test('only trailing punctuation is stripped, a run of it at once', () => {
    const r = normalizeAndHashContent('Wait... really?!;: ');
    assert.equal(r.storageContent, 'Wait... really?!;:');
    assert.equal(r.normalizedContent, 'wait... really');
    assert.equal(normalizeAndHashContent('v1.2 is out').normalizedContent, 'v1.2 is out');
  });

  test('casing, spacing and trailing punctuation variants share one hash', () => {
    const a = normalizeAndHashContent('Use pnpm, not npm.');
    const b = normalizeAndHashContent('  use PNPM,   not npm!!');
    assert.equal(a.contentHash, b.contentHash);
    assert.notEqual(a.storageContent, b.storageContent);
  });

  test('punctuation-only content hashes the lowercased storage content', () => {
    const r = normalizeAndHashContent(' ... ');
    assert.equal(r.storageContent, '...');
    assert.equal(r.normalizedContent, '');
    assert.equal(r.contentHash, 'ab5df625bc76dbd4e163bed2dd888df828f90159bb93556525c31821b6541d46');
    assert.equal(normalizeAndHashContent('').contentHash, 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });

  test('hash is 64 lowercase hex chars and stable', () => {
    const h = normalizeAndHashContent('Café ☕ naïve').contentHash;
    assert.match(h, /^[0-9a-f]{64}$/);
    assert.equal(h, normalizeAndHashContent('café ☕ naïve').contentHash);
  });
});

describe('normalizeTags (tag normalization)', () => {
  test('trims, lowercases and dedupes keeping first-seen order', () => {
    const r = normalizeTags(['  UI ', 'Preference', 'ui', 'PREFERENCE ', 'dark  mode']);
    assert.deepEqual(r.tags, ['ui', 'preference', 'dark mode']);
    assert.deepEqual(r.warnings, []);
  });

  test('accepts a comma-separated string', () => {
    assert.deepEqual(normalizeTags('Build, CI ,build,,  ').tags, ['build', 'ci']);
    assert.deepEqual(normalizeTags('Build, CI ,build,,  ').warnings, []);
  });

  test('null and undefined mean no tags, silently', () => {
    assert.deepEqual(normalizeTags(undefined), { tags: [], warnings: [] });
    assert.deepEqual(normalizeTags(null), { tags: [], warnings: [] });
  });

  test('non-strings and empty entries are dropped with warnings', () => {
    const r = normalizeTags(['ok', 42, null, '   ', { a: 1 }, 'fine']);
    assert.deepEqual(r.tags, ['ok', 'fine']);
    assert.equal(r.warnings.length, 4);
    assert.match(r.warnings[0]!, /#2 .*number/);
    assert.match(r.warnings[3]!, /#5 .*object/);
  });

  test('a wrong container type is ignored with a warning', () => {
    const r = normalizeTags(7);
    assert.deepEqual(r.tags, []);
    assert.equal(r.warnings.length, 1);
  });

  test(`caps at ${MAX_TAGS} tags, counting the overflow once per distinct tag`, () => {
    const input = Array.from({ length: 20 }, (_, i) => `t${i}`).concat(['t18', 'T19']);
    const r = normalizeTags(input);
    assert.equal(r.tags.length, 16);
    assert.equal(r.tags[15], 't15');
    assert.deepEqual(r.warnings, ['more than 16 tags; 4 dropped']);
  });

  test(`truncates tags longer than ${MAX_TAG_CHARS} characters (by code point)`, () => {
    const long = 'X'.repeat(70);
    const r = normalizeTags([long, '😀'.repeat(65)]);
    assert.equal(r.tags[0], 'x'.repeat(64));
    assert.equal(Array.from(r.tags[1]!).length, 64);
    assert.equal(r.tags[1], '😀'.repeat(64));
    assert.equal(r.warnings.length, 2);
  });

  test('composed and decomposed unicode forms dedupe', () => {
    assert.deepEqual(normalizeTags(['Caf\u00e9', 'cafe\u0301']).tags, ['caf\u00e9']);
  });
});

describe('content quality (write-path stages 2–3)', () => {
  test(`minimum length is ${MIN_CONTENT_CHARS} characters after trimming and collapsing whitespace`, () => {
    assert.equal(MIN_CONTENT_CHARS, 10);
    assert.equal(contentLength('   abc    def   '), 7);
    assert.equal(isTooShort('   short   '), true);
    assert.equal(isTooShort('123456789'), true);
    assert.equal(isTooShort('1234567890'), false);
    assert.equal(isTooShort('😀😀😀😀😀😀😀😀😀'), true); // 9 code points, 18 UTF-16 units
    assert.equal(checkContentQuality('hi'), 'too_short');
  });

  const lowValue = [
    'hi',
    'ok',
    'thanks',
    'lol',
    'test',
    'yes',
    'no',
    '+1',
    '👍',
    '🎉🎉🎉',
    '!!!!!!!!!!!!',
    '...........',
    '???',
    'aaaaaaaaaaaa',
    'zzzzzzzzzzzzzzzz',
    'hahahahaha',
    'lolololol',
    'ok ok ok ok',
    'Thank you so much!',
    'okkkkk thanks!!!',
    'Thaaanks a lot 🙏',
    'yes please',
    'no thanks',
    'Hello world!',
    'this is a test',
    'test test test',
    'testing 123',
    'hmm, ok then',
    'Got it, thanks',
    'Sounds good 👍',
    'Sounds great!',
    'LGTM, thanks',
    'Wow, that is so cool!',
    'cool cool cool',
    '1111111111',
    'asdfasdfasdf',
    'asdfghjkl',
    'gracias!!',
    'Merci !',
    'Danke',
    '谢谢',
    '哈哈哈哈哈',
    'спасибо!',
    'ありがとう',
    'ＯＫ ＴＨＡＮＫＳ',
    '   ',
    '',
    '- - - - -',
    // chit-chat after a fix (issue: "ok thanks, that works great!" was stored)
    'ok thanks, that works great!',
    'Thanks, it works now!',
    "It's working, thank you so much",
    'That did it, thanks',
    'Perfect, that fixed it!',
    'makes sense, thanks',
    'great, that was really helpful',
    'solved, thanks a lot',
  ];
  for (const text of lowValue) {
    test(`low value: ${JSON.stringify(text)}`, () => {
      assert.equal(isLowValue(text), true);
      assert.equal(isPlaceholder(text) && !isLowValue(text), false);
    });
  }

  const placeholders = [
    'This is a file',
    'this is a file.',
    'Untitled',
    'Untitled document',
    'untitled-3',
    'TODO',
    'TODO: add content',
    'TBD',
    'lorem ipsum',
    'Lorem ipsum dolor sit amet, consectetur adipiscing elit.',
    'N/A',
    'n/a',
    'null',
    'undefined',
    'placeholder',
    'Placeholder text',
    'content goes here',
    'Content goes here...',
    'Insert text here',
    'Your description here',
    'Enter description',
    'sample text',
    'Description',
    '{{content}}',
    '${memory}',
    '<insert description here>',
    '[your text here]',
    'This is a placeholder',
    'New note',
    'foo bar baz',
    'The quick brown fox jumps over the lazy dog',
    'No description',
    'To be determined',
    'coming soon',
  ];
  for (const text of placeholders) {
    test(`placeholder: ${JSON.stringify(text)}`, () => {
      assert.equal(isPlaceholder(text), true);
    });
  }

  const realSentences = [
    'The build uses esbuild and outputs to dist/extension.js.',
    'OK so the tests need Node 20 because of the --test flag.',
    'Thanks to the lock file, a second window cannot corrupt the store.',
    'Yes: the API returns 200 with status skipped for low-value input.',
    'The user prefers tabs over spaces in TypeScript files.',
    'TODO: fix the race condition in the snapshot writer before release.',
    'This is a file watcher bug: renames on macOS fire two events.',
    'Untitled files are saved to the workspace root by default.',
    'N/A values in the CSV export must be parsed as null.',
    'Lorem ipsum text must never be shipped in the onboarding screen.',
    'Hi-DPI screenshots go in media/ at 2x resolution.',
    'Test fixtures live in test/fixtures and are never bundled.',
    'No, we do not support Windows ARM yet; track issue 42.',
    'Port 8080 is reserved for the dev server.',
    'Le serveur de développement écoute sur le port 3000.',
    'ユーザーはダークモードを好みます。設定で変更できます。',
    'Caroline went to the LGBTQ support group on 7 May 2023.',
    'lol the CI cache key must include the lockfile hash or builds go stale',
    // short facts that use the same words as thanks-for-the-fix chit-chat
    'The build works only with Node 20.',
    'It works on Linux but not on macOS.',
    'That fixed the flaky login test.',
    'Hot reload works in the docs site.',
    'Works great with pnpm 9, not with npm.',
  ];
  for (const text of realSentences) {
    test(`real content passes: ${JSON.stringify(text)}`, () => {
      assert.equal(isLowValue(text), false, 'low value');
      assert.equal(isPlaceholder(text), false, 'placeholder');
      assert.equal(checkContentQuality(text), null);
    });
  }

  test('checkContentQuality reports the first failing gate', () => {
    assert.equal(checkContentQuality('thanks!!!!!!!'), 'low_value');
    assert.equal(checkContentQuality('This is a file'), 'placeholder');
    assert.equal(checkContentQuality('Lorem ipsum dolor sit amet'), 'placeholder');
    assert.equal(checkContentQuality('ok'), 'too_short');
  });
});

describe('tokenizeWords', () => {
  test('unicode word runs, lowercased, contractions kept whole', () => {
    assert.deepEqual(tokenizeWords("Don’t use café-style NAMES; it's v2.0!"), [
      "don't",
      'use',
      'café',
      'style',
      'names',
      "it's",
      'v2',
      '0',
    ]);
    assert.deepEqual(tokenizeWords('😀 — !!'), []);
  });
});

describe('word overlap and near-duplicates (≥80% word overlap)', () => {
  test('containment is measured over the NEW text', () => {
    const o = wordOverlap('The API uses JWT', 'The API uses JWT for auth');
    assert.equal(o.wordContainment, 1);
    assert.equal(o.bigramContainment, 1);
    assert.equal(o.newWordCount, 4);
    assert.equal(o.existingWordCount, 6);
    const reverse = wordOverlap('The API uses JWT for auth', 'The API uses JWT');
    assert.equal(reverse.wordContainment, 4 / 6);
  });

  test('a new text already covered by an existing one is a duplicate', () => {
    assert.equal(isNearDuplicate('The API uses JWT', 'The API uses JWT for auth'), true);
    assert.equal(isNearDuplicate('the api uses jwt for auth.', 'The API uses JWT for auth'), true);
  });

  test('a new text adding information is not a duplicate', () => {
    assert.equal(isNearDuplicate('The API uses JWT for auth and rotates keys daily', 'The API uses JWT for auth'), false);
  });

  test('exactly at the threshold counts as duplicate; just below does not', () => {
    // 4 of 5 distinct new words shared = 0.8; bigrams 3/4 = 0.75.
    assert.equal(wordOverlap('alpha beta gamma delta omega', 'alpha beta gamma delta').wordContainment, 0.8);
    assert.equal(isNearDuplicate('alpha beta gamma delta omega', 'alpha beta gamma delta'), true);
    assert.equal(isNearDuplicate('alpha beta gamma omega sigma', 'alpha beta gamma delta'), false);
    assert.equal(isNearDuplicate('alpha beta gamma delta omega', 'alpha beta gamma delta', 0.9), false);
  });

  test('same words in a different order are not a duplicate', () => {
    const r = nearDuplicate('use tabs not spaces', 'use spaces not tabs');
    assert.equal(r.overlap.wordContainment, 1);
    assert.equal(r.overlap.bigramContainment, 0);
    assert.equal(r.duplicate, false);
    assert.equal(r.keptBecause, 'word_order');
  });

  test('a changed number is new information', () => {
    const r = nearDuplicate('The dev server runs on port 8080', 'The dev server runs on port 3000');
    assert.ok(r.overlap.wordContainment >= 0.8);
    assert.equal(r.duplicate, false);
    assert.equal(r.keptBecause, 'new_number');
  });

  test('a contradiction is never a duplicate', () => {
    const r = nearDuplicate('Never use strict mode in TypeScript files', 'Always use strict mode in TypeScript files');
    assert.ok(r.overlap.wordContainment >= 0.8 && r.overlap.bigramContainment >= 0.6);
    assert.equal(r.duplicate, false);
    assert.equal(r.keptBecause, 'contradiction');
  });

  test('empty or wordless new text is not a duplicate', () => {
    assert.equal(isNearDuplicate('', 'anything at all'), false);
    assert.equal(isNearDuplicate('🎉', '🎉'), false);
    assert.equal(wordOverlap('', 'x').wordContainment, 0);
  });

  test('short texts skip the bigram check', () => {
    assert.equal(wordOverlap('dark mode', 'mode dark please').bigramContainment, 1);
    assert.equal(isNearDuplicate('dark mode', 'mode dark please'), true);
  });
});

describe('detectContradiction (controlled writes)', () => {
  test('negation polarity difference', () => {
    const r = detectContradiction('Use semicolons in TypeScript files', "Don't use semicolons in TypeScript files");
    assert.equal(r.contradicts, true);
    assert.equal(r.reason, 'negation: "don\'t" in one text only');
    assert.equal(detectContradiction('The cache is shared between workers', 'The cache is not shared between workers').contradicts, true);
    assert.equal(detectContradiction('Deploy on Fridays', 'Never deploy on Fridays').contradicts, true);
    assert.equal(detectContradiction('Run tests with coverage', 'Run tests without coverage').contradicts, true);
  });

  test('antonym pair conflict', () => {
    const r = detectContradiction('Telemetry is enabled in release builds', 'Telemetry is disabled in release builds');
    assert.deepEqual(r, { contradicts: true, reason: 'antonyms: enabled / disabled' });
    assert.equal(detectContradiction('Allow network access for the sandbox', 'Deny network access for the sandbox').contradicts, true);
    assert.equal(detectContradiction('strictNullChecks is true in tsconfig', 'strictNullChecks is false in tsconfig').contradicts, true);
    assert.equal(
      detectContradiction('Include source maps in the VSIX package', 'Exclude source maps from the VSIX package').contradicts,
      true,
    );
    assert.equal(
      detectContradiction('Increase the snapshot interval for large stores', 'Decrease the snapshot interval for large stores').contradicts,
      true,
    );
    assert.equal(detectContradiction('Run lint before each commit', 'Run lint after each commit').contradicts, true);
  });

  test('fewer than two shared content tokens is never a contradiction', () => {
    assert.deepEqual(detectContradiction('Dark mode is enabled', 'Telemetry is disabled'), { contradicts: false });
    // Only stop-words are shared.
    assert.equal(detectContradiction('It is not here', 'It is here').contradicts, false);
  });

  test('agreeing statements are not flagged', () => {
    assert.equal(detectContradiction('Use tabs not spaces', 'Use spaces not tabs').contradicts, false); // both negated
    assert.equal(detectContradiction('Telemetry is disabled in tests', 'Telemetry stays disabled in tests').contradicts, false);
    assert.equal(
      detectContradiction('The store is enabled and disabled by a setting', 'The store is enabled by a setting').contradicts,
      false,
    );
    assert.equal(
      detectContradiction('Snapshots are written on shutdown', 'Snapshots are written on idle and on shutdown').contradicts,
      false,
    );
  });
});

describe('doc_hash canonicalization (deduplication hash)', () => {
  test('sorted keys, trimmed topic/context, compact JSON', () => {
    const doc = { topic: '  Topic ', context: '\nctx\t', decisions: ['a', 'b'], rationale: [], metadata: { ignored: true } };
    assert.equal(canonicalDocJson(doc), '{"context":"ctx","decisions":["a","b"],"rationale":[],"topic":"Topic"}');
    assert.equal(computeDocHash(doc), 'fb37e775977d19492c751cca5da3a25bcac437b7e4bafa1cf4401571628eb645');
  });

  test('metadata and key order do not change the hash; content does', () => {
    const base = computeDocHash({ topic: 'T', context: 'C', decisions: [{ why: 1, what: 2 }], rationale: ['r'] });
    assert.equal(
      computeDocHash({ rationale: ['r'], decisions: [{ what: 2, why: 1 }], context: 'C ', topic: ' T', metadata: { x: 1 } }),
      base,
    );
    assert.notEqual(computeDocHash({ topic: 'T', context: 'C', decisions: [{ why: 1, what: 3 }], rationale: ['r'] }), base);
    assert.notEqual(computeDocHash({ topic: 'T', context: 'C', decisions: [{ why: 1, what: 2 }], rationale: [' r'] }), base);
  });

  test('missing decisions/rationale hash as empty arrays', () => {
    assert.equal(
      computeDocHash({ topic: 'Topic', context: 'ctx', decisions: ['a', 'b'] }),
      'fb37e775977d19492c751cca5da3a25bcac437b7e4bafa1cf4401571628eb645',
    );
  });

  test('UTF-8 of non-ASCII text, nested keys sorted (matches Python json.dumps sort_keys, ensure_ascii=False)', () => {
    const doc = { topic: 'Café ☕', context: 'Line1\nLine2', decisions: [{ b: 1, a: 'x' }], rationale: ['why "quoted"'] };
    assert.equal(
      canonicalDocJson(doc),
      '{"context":"Line1\\nLine2","decisions":[{"a":"x","b":1}],"rationale":["why \\"quoted\\""],"topic":"Café ☕"}',
    );
    assert.equal(computeDocHash(doc), 'be50f2d2c68b4771a2a5306f53ec37885cc6c01568f5c071e9bc68c94aaa3067');
  });
});
