/**
 * The rule table of the secret guard (docs/secrets.md): one rule per kind of credential, each a
 * regular expression over the raw text (line breaks kept, so a key block spread over lines is
 * one match) and, where a pattern alone would catch ordinary code or prose, a check of the
 * matched value. The formats are the providers' published ones (the same that gitleaks and
 * secretlint use); `value` names the capture group that is the secret itself when only part of
 * the match is (the password of a URL, the value of an assignment), else the whole match is.
 *
 * Every pattern is linear: bounded repetitions, no nested quantifiers, so a 64 KB text of
 * near-misses costs one pass per rule (test/core/secrets/rules.test.ts feeds such texts).
 */

/** What kind of credential a rule finds; the words are what people read (`[redacted: AWS access key]`). */
export const SECRET_KINDS = {
  aws_access_key: 'AWS access key',
  aws_secret_key: 'AWS secret key',
  github_token: 'GitHub token',
  gitlab_token: 'GitLab token',
  slack_token: 'Slack token',
  slack_webhook: 'Slack webhook',
  stripe_key: 'Stripe key',
  openai_key: 'OpenAI key',
  anthropic_key: 'Anthropic key',
  google_api_key: 'Google API key',
  huggingface_token: 'Hugging Face token',
  sendgrid_key: 'SendGrid key',
  npm_token: 'npm token',
  azure_key: 'Azure key',
  jwt: 'JSON web token',
  private_key: 'private key',
  url_password: 'password in a URL',
  connection_password: 'password in a connection string',
  assigned_secret: 'secret value',
} as const;

export type SecretKind = keyof typeof SECRET_KINDS;

export interface SecretRule {
  kind: SecretKind;
  /** Global flag required; a named group `value` marks the secret inside the match. */
  pattern: RegExp;
  /** Whether a match is a real secret (false: an example, a placeholder, a reference to one). */
  accept?: (value: string, match: RegExpExecArray, text: string) => boolean;
}

/**
 * Values that stand for a secret without being one: documentation placeholders, variables
 * and templates, masks. Allowed on purpose (docs/secrets.md "What is allowed"). `\u2026` is
 * "…" (ASCII regexes: esbuild.mjs).
 */
const PLACEHOLDER =
  /^(?:\$\{?[A-Za-z_][\w.]*\}?|\$\(.*\)|%[A-Za-z_]\w*%|\{\{.*\}\}|<[^<>]*>|\[[^[\]]*\]|\*+|x+|X+|\.{3,}|\u2026|(?:your|my|the)[-_ ]?\w*|changeme|change[-_]me|placeholder|redacted|secret|password|passwd|pass|pwd|token|none|null|undefined|example|test|dummy|foo|bar)$/i;

/** The published example credentials of the providers' documentation (AWS's `…EXAMPLE` pair). */
const EXAMPLE_MARK = /EXAMPLE|example|[Ff]ake|FAKE|[Dd]ummy|DUMMY|[Pp]laceholder|PLACEHOLDER/;

export function isPlaceholderValue(value: string): boolean {
  const v = value.trim().replace(/^["'`]|["'`]$/g, '');
  return PLACEHOLDER.test(v) || /^(.)\1+$/.test(v);
}

function notExample(value: string): boolean {
  return !EXAMPLE_MARK.test(value) && !isPlaceholderValue(value);
}

/** Shannon entropy in bits per character. */
export function entropy(s: string): number {
  const counts = new Map<string, number>();
  for (const ch of s) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let h = 0;
  for (const n of counts.values()) {
    const p = n / s.length;
    h -= p * Math.log2(p);
  }
  return h;
}

/** Names that say their value is a credential: API_KEY, db_password, clientSecret, GITHUB_TOKEN, aws_secret_access_key. */
const SECRET_NAME =
  /(?:passw(?:or)?d|passphrase|\bpwd|secret|token|api[-_]?key|apikey|access[-_]?key|private[-_]?key|auth[-_]?key|credential)/i;
/** Names that merely mention a token or key (counts, lengths, types, kinds). */
const NOT_SECRET_NAME =
  /(?:max|min|count|num|length|len|limit|type|kind|name|id|url|uri|path|file|dir|expir|ttl|size|prefix|format|usage|budget)s?$/i;
const PASSWORD_NAME = /(?:passw(?:or)?d|passphrase|\bpwd)/i;
/** Words a type annotation or a schema puts where a value would be: `password: string`. */
const TYPE_WORDS =
  /^(?:string|str|text|number|int|integer|bool|boolean|bytes|object|any|unknown|optional|required|null|none|nil|true|false|undefined|hidden|masked|empty|unset)$/i;
/** A dotted identifier or call: `process.env.API_KEY`, `config.secret`, `getToken()`. */
const CODE_REFERENCE = /^(?:[A-Za-z_$][\w$]*)(?:\.[A-Za-z_$][\w$]*|\[[^\]]*\]|\(.*\))+$/;

/** A value that stands for a credential without being one: an example, a type, code, a marker. */
function notAValue(value: string): boolean {
  return !notExample(value) || TYPE_WORDS.test(value) || CODE_REFERENCE.test(value) || value.startsWith('[redacted');
}

/** Whether the value assigned to a secret-sounding name is a credential rather than code or a placeholder. */
function assignedSecret(value: string, m: RegExpExecArray): boolean {
  const name = m.groups?.name ?? '';
  if (!SECRET_NAME.test(name) || NOT_SECRET_NAME.test(name) || notAValue(value)) return false;
  const quoted = Boolean(m.groups?.quote);
  if (PASSWORD_NAME.test(name)) {
    // A password can be any word, but an unquoted word in prose or code is usually not one.
    return value.length >= 6 && (quoted || /[\d\W_]/.test(value));
  }
  const classes = [/[a-z]/, /[A-Z]/, /\d/, /[^A-Za-z0-9]/].filter((re) => re.test(value)).length;
  return value.length >= 16 && classes >= 2 && /\d/.test(value) && entropy(value) >= 3.2;
}

/** A 40-character AWS secret key: base64 with upper, lower and digits, AWS or a secret named shortly before. */
function awsSecretKey(value: string, m: RegExpExecArray, text: string): boolean {
  if (!/[a-z]/.test(value) || !/[A-Z]/.test(value) || !/\d/.test(value) || !notExample(value)) return false;
  const before = text.slice(Math.max(0, m.index - 120), m.index);
  return /aws|secret|AKIA|ASIA/i.test(before);
}

const B64 = 'A-Za-z0-9+/';
const KEY_LABEL = String.raw`(?:[A-Z0-9]+ ){0,3}PRIVATE KEY(?: BLOCK)?`;

/**
 * The rules, most specific first: where two matches overlap, the earlier rule's kind names the
 * redaction (a GitHub token inside a URL's password is a GitHub token).
 */
export const SECRET_RULES: readonly SecretRule[] = [
  {
    kind: 'private_key',
    // A key block, with its END line or, when cut short, as far as its base64 body runs.
    pattern: new RegExp(
      String.raw`-----BEGIN ${KEY_LABEL}-----(?:(?:[^-]|-(?!----END)){20,20000}?-----END ${KEY_LABEL}-----|\s*[${B64}=]{16,4096}(?:\s+[${B64}=]{16,4096}){0,2000})`,
      'g',
    ),
    // The body between the lines, not the labels, must hold a key: a header alone in prose is no secret.
    accept: (block) => (block.replace(/^-----BEGIN[^\n]*?-----|-----END[\s\S]*$/g, '').match(/[A-Za-z0-9+/]/g)?.length ?? 0) >= 20,
  },
  {
    kind: 'aws_access_key',
    pattern: /\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|A3T[A-Z0-9])[A-Z0-9]{16}\b/g,
    accept: notExample,
  },
  { kind: 'github_token', pattern: /(?<![A-Za-z0-9_])(?:gh[pousr]_[A-Za-z0-9]{36,251}|github_pat_[A-Za-z0-9_]{22,251})(?![A-Za-z0-9_])/g },
  { kind: 'gitlab_token', pattern: /(?<![A-Za-z0-9_-])gl(?:pat|dt|rt|ptt|cbt|soat|ft|imt)-[A-Za-z0-9_-]{20,128}(?![A-Za-z0-9_-])/g },
  { kind: 'slack_webhook', pattern: /https:\/\/hooks\.slack\.com\/(?:services|workflows)\/[A-Za-z0-9/_-]{20,200}/g },
  { kind: 'slack_token', pattern: /(?<![A-Za-z0-9])xox[abposr]-(?:\d-)?[A-Za-z0-9-]{10,250}(?![A-Za-z0-9-])/g },
  { kind: 'stripe_key', pattern: /(?<![A-Za-z0-9])(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,247}(?![A-Za-z0-9])|whsec_[A-Za-z0-9]{24,}/g },
  { kind: 'anthropic_key', pattern: /(?<![A-Za-z0-9])sk-ant-[A-Za-z0-9_-]{20,250}(?![A-Za-z0-9_-])/g },
  {
    kind: 'openai_key',
    pattern:
      /(?<![A-Za-z0-9])sk-(?:(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{20,250}|[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}|[A-Za-z0-9]{32,64})(?![A-Za-z0-9_-])/g,
    accept: (v) => /\d/.test(v) && notExample(v),
  },
  { kind: 'google_api_key', pattern: /(?<![A-Za-z0-9_-])AIza[0-9A-Za-z_-]{35}(?![A-Za-z0-9_-])/g },
  { kind: 'huggingface_token', pattern: /(?<![A-Za-z0-9_])hf_[A-Za-z0-9]{34,40}(?![A-Za-z0-9])/g },
  { kind: 'sendgrid_key', pattern: /(?<![A-Za-z0-9])SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/g },
  {
    kind: 'npm_token',
    pattern: /(?<![A-Za-z0-9_])npm_[A-Za-z0-9]{36}(?![A-Za-z0-9])|_authToken\s*=\s*(?<value>[^\s'"]{8,512})/g,
    accept: (v) => notExample(v) && !v.startsWith('${'),
  },
  {
    kind: 'azure_key',
    pattern:
      /\b(?:AccountKey|SharedAccessKey|AccessKey)\s*=\s*(?<value>[A-Za-z0-9+/]{30,120}={0,2})|[?&]sig=(?<sig>[A-Za-z0-9%+/]{40,200}={0,2})/g,
  },
  {
    kind: 'jwt',
    pattern: /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{10,4000}\.eyJ[A-Za-z0-9_-]{10,8000}\.[A-Za-z0-9_-]{10,4000}(?![A-Za-z0-9_-])/g,
  },
  {
    kind: 'url_password',
    // scheme://user:password@host — only the password is the secret.
    pattern: /\b[A-Za-z][A-Za-z0-9+.-]{1,30}:\/\/[^\s:/?#@'"]{0,256}:(?<value>[^\s@/?#'"]{1,256})@[A-Za-z0-9[\]_.-]{1,256}/g,
    accept: notExample,
  },
  {
    kind: 'aws_secret_key',
    pattern: new RegExp(String.raw`(?<![${B64}])(?<value>[${B64}]{40})(?![${B64}=])`, 'g'),
    accept: awsSecretKey,
  },
  {
    kind: 'connection_password',
    // Password=…; in an ADO / JDBC / ODBC connection string (the `;` says it is one).
    pattern: /(?:^|[;\s"'])(?:Password|Pwd)\s*=\s*(?<value>[^;\s'"]{3,256})\s*(?=;)/gi,
    accept: notExample,
  },
  {
    kind: 'assigned_secret',
    // NAME = value, NAME: "value", "name": "value", name => 'value' (env files, YAML, JSON, code).
    pattern:
      /(?<![A-Za-z0-9_])(?<name>[A-Za-z_][A-Za-z0-9_.-]{0,60})["']?[ \t]*(?::=|=>|[:=])[ \t]*(?:\r?\n[ \t]*)?(?<quote>["'`]?)(?<value>[^\s"'`,;)}\]]{6,512})\k<quote>/g,
    accept: assignedSecret,
  },
];
