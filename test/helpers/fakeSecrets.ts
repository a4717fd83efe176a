/**
 * Well-formed but fake credentials for the secret guard's tests (none of them works anywhere).
 * They are put together from pieces so that secret scanners run over this repository do not
 * report the test fixtures themselves.
 */

const join = (...parts: string[]) => parts.join('');

/** The five kinds the issue saw stored verbatim: an AWS key, a GitHub token, a database URL, an OpenAI key, an SSH private key. */
export const FIVE = {
  awsAccessKey: join('AKIA', 'Q3ZT7RWX', '5NBH2KLM'),
  awsSecretKey: join('q8Jd2Lk4', 'Mz9Vb1Xc', '7Nn3Ty6R', 'e0Wp5Hs2', 'Ga4Uf8Ko'),
  githubToken: join('ghp_', 'R7tK2mQ9', 'xV4bN8cL', '1zW6pH3s', 'J5dF0gY2', 'aE7u'),
  dbPassword: join('Zx9', '-Vault', '-42q'),
  openaiKey: join('sk-proj-', 'N4vB8xQ2', 'mK7tR1zP', '5wL9cH3j', 'D6sF0gY8', 'aE2uT4iO'),
  sshKeyBody: [
    join('b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW'),
    join('QyNTUxOQAAACBXq1Tz8kR4mN2pL7vC9xB3hJ6dF0gY5sK8eW2uI4oA1wAAAJi7Gm8Ruxpv'),
    join('EQAAAAtzc2gtZWQyNTUxOQAAACBXq1Tz8kR4mN2pL7vC9xB3hJ6dF0gY5sK8eW2uI4oA1w'),
  ],
};

export const DB_URL = `postgres://app_owner:${FIVE.dbPassword}@db.internal.example:5432/orders`;
export const SSH_KEY = [
  '-----BEGIN OPENSSH ',
  'PRIVATE KEY-----',
  '\n',
  FIVE.sshKeyBody.join('\n'),
  '\n-----END OPENSSH ',
  'PRIVATE KEY-----',
].join('');

/** The five texts as a person or an agent would add them. */
export const FIVE_TEXTS = [
  `Deploy user AWS key ${FIVE.awsAccessKey} with aws_secret_access_key = ${FIVE.awsSecretKey} for the staging bucket.`,
  `The CI bot pushes with the GitHub token ${FIVE.githubToken} (repo scope).`,
  `Orders database: DATABASE_URL=${DB_URL} in production.`,
  `The summarizer calls OpenAI with the key ${FIVE.openaiKey} from the team account.`,
  `Jump host deploy key:\n${SSH_KEY}\nuse it with ssh -i.`,
];

/** Substrings none of which may appear anywhere once the guard has run (each secret, and a distinctive piece of it). */
export const FIVE_NEEDLES = [
  FIVE.awsAccessKey,
  FIVE.awsSecretKey,
  FIVE.githubToken,
  FIVE.githubToken.slice(4, 24),
  FIVE.dbPassword,
  FIVE.openaiKey,
  FIVE.openaiKey.slice(8, 30),
  // The part of the key body that is this key's own (every OpenSSH key starts alike).
  FIVE.sshKeyBody[1]!.slice(28, 70),
  FIVE.sshKeyBody[1]!.slice(-12),
];
