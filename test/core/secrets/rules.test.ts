import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { describeKinds, findSecrets, redactDeep, redactSecrets } from '../../../src/core/secrets/detect';
import { SECRET_KINDS, SECRET_RULES, type SecretKind } from '../../../src/core/secrets/rules';
import { DB_URL, FIVE, FIVE_NEEDLES, FIVE_TEXTS, SSH_KEY } from '../../helpers/fakeSecrets';

const j = (...p: string[]) => p.join('');

/** Per kind: texts holding one credential of that kind (the secret itself is what must go). */
const TRUE_POSITIVES: Record<SecretKind, { text: string; secret: string }[]> = {
  aws_access_key: [
    { text: `key id ${FIVE.awsAccessKey}`, secret: FIVE.awsAccessKey },
    { text: j('temporary ', 'ASIA', 'Y7RT2QWE5NBH2KLM', ' expires soon'), secret: j('ASIA', 'Y7RT2QWE5NBH2KLM') },
  ],
  aws_secret_key: [
    { text: `AWS_SECRET_ACCESS_KEY=${FIVE.awsSecretKey}`, secret: FIVE.awsSecretKey },
    { text: `the aws secret is ${FIVE.awsSecretKey} (rotate monthly)`, secret: FIVE.awsSecretKey },
  ],
  github_token: [
    { text: `use ${FIVE.githubToken} in CI`, secret: FIVE.githubToken },
    {
      text: j('fine-grained github_pat_', '11ABCDEFG0', 'abcdefghijKLMNOPQRSTuv_wxyz0123456789ABCDEFGHIJ', 'klmnopqrstuvwxyz0123456'),
      secret: j('github_pat_', '11ABCDEFG0', 'abcdefghijKLMNOPQRSTuv_wxyz0123456789ABCDEFGHIJ', 'klmnopqrstuvwxyz0123456'),
    },
    {
      text: j('app token ghs_', 'Kq7Tz2Wm9Xv4Bn8Cl1Zp6Hs3Jd5Fg0Ya7eQ2', ' expires'),
      secret: j('ghs_', 'Kq7Tz2Wm9Xv4Bn8Cl1Zp6Hs3Jd5Fg0Ya7eQ2'),
    },
  ],
  gitlab_token: [{ text: j('GITLAB token glpat-', 'x8Yk2Lm9Qp4Rs7Tv1Wz3'), secret: j('glpat-', 'x8Yk2Lm9Qp4Rs7Tv1Wz3') }],
  slack_token: [
    {
      text: j('bot xoxb-', '1234567890-0987654321-Ab3Cd5Ef7Gh9Ij1Kl3Mn5Op'),
      secret: j('xoxb-', '1234567890-0987654321-Ab3Cd5Ef7Gh9Ij1Kl3Mn5Op'),
    },
  ],
  slack_webhook: [
    {
      text: j('post to https://hooks.slack.com/services/', 'T0ABC1234/B0DEF5678/Xy9Zq2Wm4Kp7Ln1Rt5Vs8Hb3'),
      secret: j('https://hooks.slack.com/services/', 'T0ABC1234/B0DEF5678/Xy9Zq2Wm4Kp7Ln1Rt5Vs8Hb3'),
    },
  ],
  stripe_key: [{ text: j('stripe sk_live_', '51Hq2Kx9Lm3Np7Qr4St8Uv1Wx'), secret: j('sk_live_', '51Hq2Kx9Lm3Np7Qr4St8Uv1Wx') }],
  openai_key: [
    { text: `key ${FIVE.openaiKey}`, secret: FIVE.openaiKey },
    {
      text: j('legacy sk-', 'Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2Yz3Ab4Cd5Ef6'),
      secret: j('sk-', 'Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2Yz3Ab4Cd5Ef6'),
    },
  ],
  anthropic_key: [
    {
      text: j('claude key sk-ant-', 'api03-Zx8Kq2Wm7Lp4Rt9Vn1Bs6Hj3Df0Gy5Ae2Uc8Io4'),
      secret: j('sk-ant-', 'api03-Zx8Kq2Wm7Lp4Rt9Vn1Bs6Hj3Df0Gy5Ae2Uc8Io4'),
    },
  ],
  google_api_key: [
    { text: j('maps AIza', 'SyB3x9Kq2Wm7Lp4Rt9Vn1Bs6Hj3Df0Gy5Aq'), secret: j('AIza', 'SyB3x9Kq2Wm7Lp4Rt9Vn1Bs6Hj3Df0Gy5Aq') },
  ],
  huggingface_token: [{ text: j('HF hf_', 'Kq7Tz2Wm9Xv4Bn8Cl1Zp6Hs3Jd5Fg0YaQe'), secret: j('hf_', 'Kq7Tz2Wm9Xv4Bn8Cl1Zp6Hs3Jd5Fg0YaQe') }],
  sendgrid_key: [
    {
      text: j('mail SG.', 'Kq7Tz2Wm9Xv4Bn8Cl1Zp6H', '.', 'Kq7Tz2Wm9Xv4Bn8Cl1Zp6Hs3Jd5Fg0YaQeKq7Tz2Wm9'),
      secret: j('SG.', 'Kq7Tz2Wm9Xv4Bn8Cl1Zp6H', '.', 'Kq7Tz2Wm9Xv4Bn8Cl1Zp6Hs3Jd5Fg0YaQeKq7Tz2Wm9'),
    },
  ],
  npm_token: [
    { text: j('publish with npm_', 'Kq7Tz2Wm9Xv4Bn8Cl1Zp6Hs3Jd5Fg0YaQe9z'), secret: j('npm_', 'Kq7Tz2Wm9Xv4Bn8Cl1Zp6Hs3Jd5Fg0YaQe9z') },
    {
      text: j('//registry.npmjs.org/:_authToken=', 'a1b2c3d4-e5f6-7890-abcd-ef1234567890'),
      secret: j('a1b2c3d4-e5f6-7890-abcd-ef1234567890'),
    },
  ],
  azure_key: [
    {
      text: j(
        'DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=',
        'Zx8Kq2Wm7Lp4Rt9Vn1Bs6Hj3Df0Gy5Ae2Uc8Io4Zx8Kq2Wm7Lp4Rt9Vn1Bs6Hj3Df0Gy5Ae2Uc8Io4Zx8Kq2Wm7Lp4==',
        ';EndpointSuffix=core.windows.net',
      ),
      secret: j('Zx8Kq2Wm7Lp4Rt9Vn1Bs6Hj3Df0Gy5Ae2Uc8Io4Zx8Kq2Wm7Lp4Rt9Vn1Bs6Hj3Df0Gy5Ae2Uc8Io4Zx8Kq2Wm7Lp4=='),
    },
  ],
  jwt: [
    {
      text: j(
        'Bearer eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9',
        '.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ',
        '.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c',
      ),
      secret: j(
        'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9',
        '.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ',
        '.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c',
      ),
    },
  ],
  private_key: [
    { text: `deploy key:\n${SSH_KEY}\n`, secret: SSH_KEY },
    {
      text: j(
        '-----BEGIN RSA PRIVATE KEY-----\n',
        'MIIEpAIBAAKCAQEA0Z3VS5JJcds3xfn/ygWyF8PbnGy0AHB7MhgHcTz6sE2I2yPB\n',
        '-----END RSA PRIVATE KEY-----',
      ),
      secret: 'MIIEpAIBAAKCAQEA0Z3VS5JJcds3xfn/ygWyF8PbnGy0AHB7MhgHcTz6sE2I2yPB',
    },
    {
      // Pasted cut short: no END line. The body goes, the prose after it stays.
      text: j('key: -----BEGIN EC PRIVATE KEY-----\n', 'MHcCAQEEIBkg4LVWM9nuwNSk3yByxZpYRTBnVJk5oGyZ8z1Lq2Wm\n', 'and the rest was lost.'),
      secret: 'MHcCAQEEIBkg4LVWM9nuwNSk3yByxZpYRTBnVJk5oGyZ8z1Lq2Wm',
    },
  ],
  url_password: [
    { text: `DATABASE_URL=${DB_URL}`, secret: FIVE.dbPassword },
    { text: 'redis://:Sup3rS3cret!@cache:6379/0', secret: 'Sup3rS3cret!' },
    { text: 'clone https://deploy:hunter2go@git.example.org/repo.git', secret: 'hunter2go' },
  ],
  connection_password: [
    { text: 'Server=tcp:db.example.net;Database=shop;User ID=app;Password=Tr1cky!pw;Encrypt=true', secret: 'Tr1cky!pw' },
  ],
  assigned_secret: [
    { text: 'SECRET_KEY=5f4dcc3b5aa765d61d8327deb882cf99', secret: '5f4dcc3b5aa765d61d8327deb882cf99' },
    { text: 'db_password: "correcthorse"', secret: 'correcthorse' },
    { text: '{"client_secret": "Xy9Zq2Wm4Kp7Ln1Rt5Vs8Hb3"}', secret: 'Xy9Zq2Wm4Kp7Ln1Rt5Vs8Hb3' },
    { text: 'export API_TOKEN=Xy9Zq2Wm4Kp7Ln1Rt5Vs8Hb3Qe', secret: 'Xy9Zq2Wm4Kp7Ln1Rt5Vs8Hb3Qe' },
    { text: 'password=hunter22 for the test box', secret: 'hunter22' },
    { text: 'password:\n  Winter2024!', secret: 'Winter2024!' },
  ],
};

/** Ordinary code and prose that must come through unchanged. */
const FALSE_POSITIVES = [
  'Fixed in commit 3f2a9c1e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a39 after the review.',
  'The request id is 123e4567-e89b-12d3-a456-426614174000 in the log.',
  '![diagram](data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==)',
  'interface Login { password: string; token?: string; apiKey: string | undefined }',
  'const token = getToken(); const apiKey = process.env.OPENAI_API_KEY; secret = os.environ["SECRET"]',
  'Set max_tokens: 4096 and token_count = 12 and token_limit=128000 for long answers.',
  'The password must be at least 12 characters; a token expires after 1 hour.',
  'AWS documents the example key AKIAIOSFODNN7EXAMPLE and wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY.',
  'Connect with postgres://user:password@localhost:5432/db or postgres://app:${DB_PASSWORD}@db/app.',
  'Put API_KEY=<your-api-key> or API_KEY=your_api_key_here or SECRET_KEY=changeme in .env.',
  'password = "********" and token: xxxxxxxxxxxxxxxx are masked in the screenshot.',
  'A PEM file begins with -----BEGIN PRIVATE KEY----- and ends with the END line.',
  'Use git@github.com:acme/shop.git or ssh://git@github.com:22/acme/shop.git to clone.',
  'The skeleton uses class names like sk-button-primary-large-rounded and sk-grid.',
  'Tokens are counted with tiktoken; the tokenizer is cl100k_base and secretsmanager is the AWS service.',
  'Run `npm publish --access public`; the npm token lives in the CI secret store.',
  'sha256: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
  'Remember that [redacted: GitHub token] was rotated; SECRET_KEY=[redacted: secret value].',
];

describe('secret rules: each kind is found (true positives)', () => {
  for (const [kind, cases] of Object.entries(TRUE_POSITIVES) as [SecretKind, { text: string; secret: string }[]][]) {
    test(`${SECRET_KINDS[kind]}`, () => {
      for (const c of cases) {
        const r = redactSecrets(c.text);
        assert.ok(!r.text.includes(c.secret), `${kind}: the secret is still in ${JSON.stringify(r.text)}`);
        assert.deepEqual(r.kinds, [kind], `${kind}: kinds of ${JSON.stringify(c.text)}`);
        assert.ok(r.text.includes(`[redacted: ${SECRET_KINDS[kind]}]`), r.text);
      }
    });
  }

  test('every kind of the table has true positives here', () => {
    assert.deepEqual(Object.keys(TRUE_POSITIVES).sort(), Object.keys(SECRET_KINDS).sort());
    assert.deepEqual([...new Set(SECRET_RULES.map((r) => r.kind))].sort(), Object.keys(SECRET_KINDS).sort());
  });
});

describe('secret rules: ordinary code and prose is left alone (false positives)', () => {
  for (const text of FALSE_POSITIVES) {
    test(text.slice(0, 60), () => {
      assert.deepEqual(findSecrets(text), [], `found in ${JSON.stringify(text)}: ${JSON.stringify(redactSecrets(text).text)}`);
    });
  }
});

describe('redaction', () => {
  test('only the secret is replaced: the rest of the text, and the URL around a password, stay', () => {
    assert.equal(
      redactSecrets(`DATABASE_URL=${DB_URL} in production.`).text,
      'DATABASE_URL=postgres://app_owner:[redacted: password in a URL]@db.internal.example:5432/orders in production.',
    );
    assert.equal(redactSecrets(`a ${FIVE.githubToken} b`).text, 'a [redacted: GitHub token] b');
  });

  test('a key block spread over lines is one redaction, header and footer included', () => {
    const r = redactSecrets(`before\n${SSH_KEY}\nafter`);
    assert.equal(r.text, 'before\n[redacted: private key]\nafter');
  });

  test('a token cut by a line break (wrapped by a terminal or an editor) is found over both lines', () => {
    const t = FIVE.githubToken;
    const r = redactSecrets(`The CI bot token is ${t.slice(0, 20)}\n    ${t.slice(20)} (repo scope).`);
    assert.equal(r.text, 'The CI bot token is [redacted: GitHub token] (repo scope).');
    const k = FIVE.openaiKey;
    const crlf = redactSecrets(`OPENAI key:\r\n${k.slice(0, 12)}\r\n${k.slice(12, 30)}\r\n${k.slice(30)}\r\nthat is all`);
    assert.deepEqual(crlf.kinds, ['openai_key']);
    assert.equal(crlf.text, 'OPENAI key:\r\n[redacted: OpenAI key]\r\nthat is all');
    const aws = redactSecrets(`id ${FIVE.awsAccessKey.slice(0, 9)}\n${FIVE.awsAccessKey.slice(9)} for staging`);
    assert.equal(aws.text, 'id [redacted: AWS access key] for staging');
    // A whole key at the end of a line keeps the next line's first word.
    assert.equal(redactSecrets(`${t}\nThen rotate it.`).text, '[redacted: GitHub token]\nThen rotate it.');
    // Prose and code wrapped at ordinary words are not joined into a secret.
    for (const text of [
      'The task list:\n- ghp_ prefixes mark GitHub tokens\n- sk- prefixes mark OpenAI keys',
      'See the AIza\nprefix in the Google docs.',
      'const risk = 3;\nconst skill = 4;\nnpm_config_cache=/tmp/npm',
      'eyJ is how a JSON web token starts;\nthe rest follows.',
    ])
      assert.deepEqual(findSecrets(text), [], text);
  });

  test('redacting twice changes nothing (the marker is never a secret)', () => {
    for (const text of FIVE_TEXTS) {
      const once = redactSecrets(text).text;
      assert.equal(redactSecrets(once).text, once);
      assert.deepEqual(findSecrets(once), []);
    }
  });

  test('the five kinds of the report are all found, and none of their bytes remain', () => {
    const kinds = FIVE_TEXTS.flatMap((t) => redactSecrets(t).kinds);
    assert.deepEqual(kinds, ['aws_access_key', 'aws_secret_key', 'github_token', 'url_password', 'openai_key', 'private_key']);
    const all = FIVE_TEXTS.map((t) => redactSecrets(t).text).join('\n');
    for (const needle of FIVE_NEEDLES) assert.ok(!all.includes(needle), needle);
  });

  test('overlapping finds are one redaction named by the more specific rule', () => {
    const text = `https://x-access-token:${FIVE.githubToken}@github.com/acme/shop.git`;
    const r = redactSecrets(text);
    assert.deepEqual(r.kinds, ['github_token']);
    assert.equal(r.text, 'https://x-access-token:[redacted: GitHub token]@github.com/acme/shop.git');
  });

  test('redactDeep redacts every string of a JSON value, keys included, and reports the kinds once', () => {
    const r = redactDeep({ a: [FIVE.githubToken, { b: `x ${FIVE.githubToken}` }], [FIVE.openaiKey]: 1, n: 2, t: true, z: null });
    assert.deepEqual(r.kinds, ['github_token', 'openai_key']);
    assert.ok(!JSON.stringify(r.value).includes(FIVE.githubToken));
    assert.ok(!JSON.stringify(r.value).includes(FIVE.openaiKey));
    assert.equal((r.value as { n: number }).n, 2);
  });

  test('kinds in words for people', () => {
    assert.equal(describeKinds(['aws_access_key']), 'an AWS access key');
    assert.equal(describeKinds(['github_token', 'npm_token']), 'a GitHub token and an npm token');
    assert.equal(describeKinds(['openai_key', 'url_password', 'private_key']), 'an OpenAI key, a password in a URL and a private key');
  });

  test('near-miss texts of 64 KB are scanned in one pass per rule (no catastrophic backtracking)', () => {
    // Each of these would make a backtracking pattern explode; the steps are bounded by the
    // length, so the whole set is found (or not) without a wall-clock limit to assert.
    const texts = [
      '-----BEGIN RSA PRIVATE KEY-----' + 'A'.repeat(65_000),
      'x://' + 'a:'.repeat(32_000),
      'password=' + '='.repeat(65_000),
      'eyJ' + 'a'.repeat(30_000) + '.eyJ' + 'b'.repeat(30_000),
      'token: ' + 'ab1 '.repeat(16_000),
      'A'.repeat(65_000),
    ];
    for (const t of texts) assert.ok(Array.isArray(findSecrets(t)));
  });
});
