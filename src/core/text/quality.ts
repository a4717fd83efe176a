// Content quality gates of the write path (docs/write-path.md "Validate"): too short, pure filler,
// non-content placeholder. Each failure is a `skipped` outcome with a reason, never an error.
// The checks match the WHOLE text (after normalization) against filler/placeholder shapes, so
// a real sentence that merely contains "ok" or "todo" passes.

export const MIN_CONTENT_CHARS = 10;
/** Filler detection by vocabulary only applies to short texts (the "length check"). */
const MAX_FILLER_WORDS = 12;

export type QualityReason = 'too_short' | 'low_value' | 'placeholder';

/** Length in code points after trimming and collapsing whitespace runs to one space. */
export function contentLength(text: string): number {
  return Array.from(text.trim().replace(/\s+/g, ' ')).length;
}

export function isTooShort(text: string): boolean {
  return contentLength(text) < MIN_CONTENT_CHARS;
}

/** First failing gate in write-path order (length, low value, placeholder), or null if the text passes. */
export function checkContentQuality(text: string): QualityReason | null {
  if (isTooShort(text)) return 'too_short';
  if (isLowValue(text)) return 'low_value';
  if (isPlaceholder(text)) return 'placeholder';
  return null;
}

// Single words that carry no information on their own: greetings, acknowledgements, thanks,
// laughter, interjections, test strings, keyboard mash, plus the small function words that
// glue them together ("thank you so much", "i got it"), and a few basics in other languages.
const FILLER_WORDS: ReadonlySet<string> = new Set([
  // greetings / farewells
  'hi',
  'hello',
  'hey',
  'heya',
  'hiya',
  'howdy',
  'yo',
  'sup',
  'greetings',
  'morning',
  'evening',
  'gm',
  'gn',
  'bye',
  'goodbye',
  'byebye',
  'cya',
  'later',
  'ttyl',
  'welcome',
  // acknowledgements
  'ok',
  'okay',
  'okey',
  'okie',
  'k',
  'kk',
  'alright',
  'aight',
  'sure',
  'fine',
  'cool',
  'nice',
  'great',
  'good',
  'awesome',
  'perfect',
  'excellent',
  'wonderful',
  'amazing',
  'neat',
  'sweet',
  'right',
  'correct',
  'exactly',
  'indeed',
  'agreed',
  'noted',
  'understood',
  'roger',
  'ack',
  'gotcha',
  'done',
  'yes',
  'yeah',
  'yea',
  'yep',
  'yup',
  'ya',
  'yah',
  'aye',
  'no',
  'nope',
  'nah',
  'maybe',
  'idk',
  'dunno',
  'true',
  'np',
  'nvm',
  'gg',
  'ikr',
  'smh',
  'brb',
  'afk',
  'lgtm',
  // thanks / politeness
  'thanks',
  'thank',
  'thx',
  'thnx',
  'tnx',
  'ty',
  'tysm',
  'tyvm',
  'cheers',
  'appreciated',
  'please',
  'pls',
  'plz',
  'sorry',
  // laughter / interjections
  'lol',
  'lmao',
  'lmfao',
  'rofl',
  'haha',
  'hehe',
  'hihi',
  'xd',
  'heh',
  'ha',
  'kek',
  'hmm',
  'hm',
  'um',
  'umm',
  'uh',
  'uhh',
  'er',
  'erm',
  'oh',
  'ah',
  'aha',
  'oops',
  'wow',
  'whoa',
  'meh',
  'ugh',
  'yay',
  'woo',
  'hooray',
  'omg',
  // test strings / keyboard mash
  'test',
  'testing',
  'asdf',
  'asdfgh',
  'asdfghjkl',
  'qwerty',
  'qwertyuiop',
  'zxcv',
  'blah',
  'bla',
  // glue words, only filler in combination with the above
  'you',
  'u',
  'so',
  'much',
  'very',
  'a',
  'lot',
  'again',
  'all',
  'it',
  'that',
  'too',
  'just',
  'really',
  'for',
  'the',
  'me',
  'got',
  'i',
  'am',
  'is',
  'this',
  'well',
  'then',
  'and',
  'now',
  'sounds',
  'looks',
  'was',
  'its',
  'did',
  'does',
  // what people say once a fix works ("ok thanks, that works great!"), only filler with the above
  'works',
  'worked',
  'working',
  'work',
  'fixed',
  'solved',
  'helps',
  'helped',
  'helpful',
  // other languages (basics)
  'hola',
  'gracias',
  'adios',
  'adiós',
  'si',
  'sí',
  'vale',
  'bonjour',
  'salut',
  'merci',
  'oui',
  'non',
  'bien',
  'ciao',
  'grazie',
  'prego',
  'ja',
  'nein',
  'danke',
  'hallo',
  'tschüss',
  'bitte',
  'obrigado',
  'obrigada',
  'olá',
  'tak',
  'dzięki',
  'cześć',
  'bedankt',
  'tack',
  'hej',
  'kiitos',
  'merhaba',
  'teşekkürler',
  'evet',
  'спасибо',
  'привет',
  'да',
  'нет',
  'ок',
  'пока',
  '谢谢',
  '谢谢你',
  '你好',
  '好的',
  '好',
  '嗯',
  '哈哈',
  '是的',
  '对',
  '再见',
  'ありがとう',
  'こんにちは',
  'はい',
  'いいえ',
  'おはよう',
  '감사합니다',
  '안녕하세요',
  '안녕',
  '네',
  'شكرا',
  'مرحبا',
  'نعم',
  'नमस्ते',
  'धन्यवाद',
]);

/** Fixed multi-word fillers, removed before the word-by-word check. */
const FILLER_PHRASES: readonly string[] = [
  'this is a test',
  'hello world',
  'just testing',
  'test message',
  'how are you',
  'what s up',
  'whats up',
  'see you',
  'see ya',
  'talk later',
  'never mind',
  'no worries',
  'no problem',
  'sounds good',
  'my bad',
  'of course',
  'good job',
  'well done',
  'makes sense',
  'xin chào',
  'cảm ơn',
];

export function isLowValue(text: string): boolean {
  const words = wordsOf(text);
  // Punctuation-only, emoji-only, symbols-only or empty.
  if (words.length === 0) return true;
  // "aaaaaaaa", "hahahaha", "ok ok ok", "1111111111": one short unit repeated.
  if (isPeriodic(Array.from(words.join('')))) return true;
  if (words.length > MAX_FILLER_WORDS) return false;
  let joined = ` ${words.join(' ')} `;
  for (const phrase of FILLER_PHRASES) joined = joined.split(` ${phrase} `).join('  ');
  return joined
    .trim()
    .split(/ +/)
    .filter((w) => w.length > 0)
    .every(isFillerWord);
}

function wordsOf(text: string): string[] {
  // NFKC folds full-width letters and compatibility forms; apostrophes are dropped so that
  // "what's" and "whats" read the same.
  const s = text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/['\u2019]/g, '');
  return s.match(/[\p{L}\p{N}][\p{L}\p{N}\p{M}]*/gu) ?? [];
}

function isFillerWord(w: string): boolean {
  if (/^\p{N}+$/u.test(w)) return true; // "+1", "123": a bare number says nothing
  // Elongated spellings: "okkk", "thaaanks", "coool", "yesss".
  const candidates = [w, w.replace(/(.)\1{2,}/gu, '$1$1'), w.replace(/(.)\1{2,}/gu, '$1'), w.replace(/(.)\1+/gu, '$1')];
  return candidates.some((c) => FILLER_WORDS.has(c));
}

/** True when the sequence is a unit of 1–4 code points repeated at least three times (a tail of a partial unit allowed). */
function isPeriodic(chars: string[]): boolean {
  for (let p = 1; p <= 4; p++) {
    if (chars.length < 3 * p) break;
    let ok = true;
    for (let i = p; i < chars.length && ok; i++) ok = chars[i] === chars[i - p];
    if (ok) return true;
  }
  return false;
}

// Placeholders: each pattern must match the whole normalized text (lowercase words joined by
// single spaces, punctuation removed).
const NOUN = '(?:file|document|doc|note|notes|memory|page|entry|item|placeholder|sample|example|stub|template|text|content)';
const FIELD = '(?:text|content|description|details|summary|body|notes?|message|memory|title|name|info|information|value)';
const PLACEHOLDER_PATTERNS: readonly RegExp[] = [
  new RegExp(`^(?:this is|it is|here is)(?: a| an| the| my| some| just a)?(?: new| test| sample| dummy| empty)? ${NOUN}$`),
  new RegExp(`^(?:untitled|unnamed|new|empty|blank)(?: ${NOUN})?(?: \\d+)?$`),
  /^(?:todo|tbd|tba|tbc|fixme|xxx|wip|pending|coming soon|to be (?:added|determined|written|decided|filled in|completed|done))$/,
  new RegExp(
    `^(?:todo|tbd|fixme)(?: (?:add|write|fill in|fill|insert|update|describe))?(?: (?:the|some))?(?: ${FIELD}| this| here| me| later)+$`,
  ),
  /^(?:n a|na|none|null|nil|undefined|nan|empty|blank|nothing|nothing here|no content|no description|no text|no data|not applicable|not available|void|default)$/,
  new RegExp(`^placeholder(?: ${FIELD})?$`),
  /^lorem ipsum(?: dolor\b.*)?$/, // the filler text itself, which always goes on with "dolor"
  new RegExp(`^${FIELD} (?:goes|go) here$`),
  new RegExp(`^(?:your|insert|add|enter|put|type|write)(?: (?:your|the|some|a))? ${FIELD}(?: goes)?(?: here)?$`),
  new RegExp(`^${FIELD} here$`),
  /^(?:insert|add|put|type|write) (?:something|anything|here)(?: here)?$/,
  /^something (?:goes )?here$/,
  /^(?:sample|example|dummy|test|some|random|filler|default|fake|mock) (?:text|content|data|file|string|note|value|description|memory|entry|message)$/,
  new RegExp(`^${FIELD}$`),
  /^(?:foo|bar|baz|qux|quux|foobar)(?: (?:foo|bar|baz|qux|quux|foobar))*$/,
  /^the quick brown fox jumps over the lazy dog$/,
];

export function isPlaceholder(text: string): boolean {
  const trimmed = text.normalize('NFKC').trim();
  // Unrendered template variables: "{{content}}", "${text}".
  if (/^\{\{[^{}]*\}\}$/.test(trimmed) || /^\$\{[^{}]*\}$/.test(trimmed)) return true;
  const words =
    trimmed
      .toLowerCase()
      .replace(/['\u2019]/g, '')
      .match(/[\p{L}\p{N}][\p{L}\p{N}\p{M}]*/gu) ?? [];
  if (words.length === 0) return false; // symbol-only text is low value, not a placeholder
  const joined = words.join(' ');
  if (PLACEHOLDER_PATTERNS.some((re) => re.test(joined))) return true;
  // "<insert description>", "[your text here]": bracketed hints made of placeholder vocabulary.
  if (
    /^[<[(].*[>\])]$/.test(trimmed) &&
    words.length <= 6 &&
    words.some((w) => /^(?:insert|your|here|placeholder|todo|tbd|enter)$/.test(w))
  )
    return true;
  return false;
}
