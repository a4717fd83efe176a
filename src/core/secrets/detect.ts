/**
 * Finding and redacting credentials in text (docs/secrets.md): every rule of rules.ts over the
 * raw text, overlapping finds merged (the first rule's kind names them), each replaced by
 * `[redacted: <kind>]`. Redacting twice changes nothing: the marker is never a secret.
 */
import { SECRET_KINDS, SECRET_RULES, type SecretKind } from './rules';

export interface SecretFind {
  kind: SecretKind;
  start: number;
  end: number;
}

/** Texts longer than this are scanned in this many characters at a time (with an overlap), bounding each regex's work. */
const MAX_SCAN = 1 << 20;

export function redactionMarker(kind: SecretKind): string {
  return `[redacted: ${SECRET_KINDS[kind]}]`;
}

/** The credentials in `text`, in order, not overlapping. */
export function findSecrets(text: string): SecretFind[] {
  if (typeof text !== 'string' || text.length < 8) return [];
  return mergeOverlaps([...ruleFinds(text, () => true), ...wrappedFinds(text)]);
}

type RankedFind = SecretFind & { rank: number };

function ruleFinds(text: string, which: (kind: SecretKind) => boolean): RankedFind[] {
  const finds: RankedFind[] = [];
  SECRET_RULES.forEach((rule, rank) => {
    if (!which(rule.kind)) return;
    const re = new RegExp(rule.pattern.source, `${rule.pattern.flags}d`);
    for (let m = re.exec(text); m; m = re.exec(text)) {
      if (m[0].length === 0) {
        re.lastIndex++;
        continue;
      }
      const span = secretSpan(m);
      if (!span) continue;
      if (rule.accept && !rule.accept(span.value, m, text)) continue;
      finds.push({ kind: rule.kind, start: span.start, end: span.start + span.value.length, rank });
      if (text.length > MAX_SCAN && finds.length > 10_000) break;
    }
  });
  return finds;
}

/**
 * Kinds with a fixed prefix, also found when a line break cuts them (a token wrapped by a
 * terminal, an editor or an e-mail): the text is read again with such breaks removed, and a
 * find that spans one is redacted over the lines it covers (docs/secrets.md).
 */
const WRAPPABLE = new Set<SecretKind>([
  'aws_access_key',
  'github_token',
  'gitlab_token',
  'slack_token',
  'stripe_key',
  'anthropic_key',
  'openai_key',
  'google_api_key',
  'huggingface_token',
  'npm_token',
  'jwt',
]);
/** A prefix of one of them running into a line break: only then is the text read again. */
const WRAPPED_PREFIX =
  /(?:AKIA|ASIA|gh[pousr]_|github_pat_|gl[a-z]{2,4}-|xox[abposr]-|[srp]k_(?:live|test)_|sk-|AIza|hf_|npm_|eyJ)[A-Za-z0-9_.-]*\r?\n/;
/** A line break between two characters of a token (the next line's indentation included). */
const TOKEN_BREAK = /(?<=[A-Za-z0-9_.-])\r?\n[ \t]*(?=[A-Za-z0-9_.-])/g;

/**
 * Whether the run of token characters at `i` looks like the rest of a token rather than a word
 * (a digit, or a lower-case letter followed by an upper-case one): a key at the end of a line is
 * not joined with the word that starts the next.
 */
function tokenLike(text: string, i: number): boolean {
  const run = /[A-Za-z0-9_.-]+/y;
  run.lastIndex = i;
  const piece = run.exec(text)?.[0] ?? '';
  return /\d|[a-z][A-Z]/.test(piece);
}

function wrappedFinds(text: string): RankedFind[] {
  if (!WRAPPED_PREFIX.test(text)) return [];
  // `joined` is `text` without the breaks; at[i] is where joined[i] is in `text`.
  let joined = '';
  const at: number[] = [];
  let from = 0;
  const keep = (end: number) => {
    joined += text.slice(from, end);
    for (let i = from; i < end; i++) at.push(i);
  };
  for (const m of text.matchAll(TOKEN_BREAK)) {
    const after = m.index + m[0].length;
    if (!tokenLike(text, after)) continue;
    keep(m.index);
    from = after;
  }
  keep(text.length);
  return ruleFinds(joined, (k) => WRAPPABLE.has(k))
    .map((f) => ({ ...f, start: at[f.start]!, end: at[f.end - 1]! + 1 }))
    .filter((f) => text.slice(f.start, f.end).includes('\n'));
}

/** Where the secret is inside a match: the `value` (or `sig`) group when the rule has one, else the whole match. */
function secretSpan(m: RegExpExecArray): { start: number; value: string } | undefined {
  const name = m.groups?.value !== undefined ? 'value' : m.groups?.sig !== undefined ? 'sig' : undefined;
  if (!name) return { start: m.index, value: m[0] };
  const at = m.indices?.groups?.[name];
  const value = m.groups![name]!;
  return at && value ? { start: at[0], value } : undefined;
}

function mergeOverlaps(finds: RankedFind[]): SecretFind[] {
  finds.sort((a, b) => a.start - b.start || a.rank - b.rank);
  const out: (SecretFind & { rank: number })[] = [];
  for (const f of finds) {
    const last = out.at(-1);
    if (last && f.start < last.end) {
      last.end = Math.max(last.end, f.end);
      if (f.rank < last.rank) {
        last.kind = f.kind;
        last.rank = f.rank;
      }
      continue;
    }
    out.push({ ...f });
  }
  return out.map(({ kind, start, end }) => ({ kind, start, end }));
}

export interface Redaction {
  text: string;
  /** The kinds replaced, each once, in the order first met. */
  kinds: SecretKind[];
}

/** `text` with every credential replaced by its marker. */
export function redactSecrets(text: string): Redaction {
  const finds = findSecrets(text);
  if (!finds.length) return { text, kinds: [] };
  let out = '';
  let at = 0;
  const kinds: SecretKind[] = [];
  for (const f of finds) {
    out += text.slice(at, f.start) + redactionMarker(f.kind);
    at = f.end;
    if (!kinds.includes(f.kind)) kinds.push(f.kind);
  }
  return { text: out + text.slice(at), kinds };
}

/** Whether `text` holds a credential. */
export function hasSecret(text: string): boolean {
  return findSecrets(text).length > 0;
}

/**
 * Every string inside a JSON-like value redacted (object keys too), and the kinds met. Values
 * that are not plain data (functions, class instances) are returned as they are.
 */
export function redactDeep<T>(value: T, kinds: SecretKind[] = []): { value: T; kinds: SecretKind[] } {
  const walk = (v: unknown, depth: number): unknown => {
    if (typeof v === 'string') {
      const r = redactSecrets(v);
      for (const k of r.kinds) if (!kinds.includes(k)) kinds.push(k);
      return r.text;
    }
    if (depth > 64 || v === null || typeof v !== 'object') return v;
    if (Array.isArray(v)) return v.map((x) => walk(x, depth + 1));
    if (Object.getPrototypeOf(v) !== Object.prototype && Object.getPrototypeOf(v) !== null) return v;
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) out[walk(k, depth + 1) as string] = walk(x, depth + 1);
    return out;
  };
  return { value: walk(value, 0) as T, kinds };
}

/** "an AWS access key, a GitHub token and a private key": the kinds as people read them. */
export function describeKinds(kinds: readonly SecretKind[]): string {
  const words = kinds.map((k) => withArticle(SECRET_KINDS[k]));
  if (words.length <= 1) return words[0] ?? '';
  return `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`;
}

/** What the secret guard did to a saved text (docs/secrets.md), for every surface that reports a save, an edit or an import. */
export function describeRedacted(kinds: readonly SecretKind[] | undefined): string {
  if (!kinds?.length) return '';
  return `Removed before saving: ${describeKinds(kinds)}, replaced by [redacted: …] so it is never stored.`;
}

function withArticle(words: string): string {
  return /^(?:[aeiouAEIO]|npm\b)/.test(words) ? `an ${words}` : `a ${words}`;
}
