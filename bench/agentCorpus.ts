/**
 * Coding-project memories in plain English for the agent-path benchmark (bench/agent.bench.ts):
 * decisions, fixes, conventions and preferences composed from small word pools, deterministic
 * for a seed, so the texts read like what an agent stores and the model embeds real words.
 */
import { Rng } from './corpus';

const AREAS = [
  'the payments service',
  'the auth module',
  'the build',
  'the CI pipeline',
  'the database migrations',
  'the search panel',
  'the billing worker',
  'the admin dashboard',
  'the mobile client',
  'the public API',
  'the importer',
  'the notification service',
  'the session store',
  'the report generator',
  'the settings page',
  'the deploy script',
  'the cache layer',
  'the webhook handler',
  'the rate limiter',
  'the onboarding flow',
];
const TOOLS = [
  'pnpm',
  'Postgres 15',
  'Redis',
  'esbuild',
  'Vitest',
  'Playwright',
  'Terraform',
  'Docker Compose',
  'OpenTelemetry',
  'zod',
  'Prisma',
  'GitHub Actions',
  'Sentry',
  'Kafka',
  'nginx',
  'SQLite',
];
const PURPOSES = [
  'schema validation',
  'end-to-end tests',
  'local development',
  'tracing requests',
  'queueing background jobs',
  'bundling the server',
  'storing sessions',
  'infrastructure changes',
  'error reporting',
  'package management',
  'unit tests',
  'caching lookups',
];
const REASONS = [
  'it is faster on cold starts',
  'the team already knows it',
  'it keeps the lockfile deterministic',
  'the old tool dropped support for Node 20',
  'it halves the CI time',
  'it runs offline',
  'its errors name the failing field',
  'it needs no extra service in production',
];
const SYMPTOMS = [
  'Requests timed out after exactly 30 seconds',
  'Logins failed for users with a plus sign in their email',
  'The nightly job ran twice',
  'Uploads over 10 MB were silently truncated',
  'Dates showed one day early for users in Asia',
  'The container ran out of memory under load',
  'Tests were flaky on the first run after a merge',
  'Webhooks were delivered out of order',
  'The page flashed unstyled content on reload',
  'Invoices were rounded to the wrong cent',
];
const CAUSES = [
  'a missing index on the foreign key',
  'the proxy keeping idle connections too long',
  'two schedulers running in one deployment',
  'URL encoding applied twice',
  'local time used where UTC was meant',
  'an unbounded in-memory buffer',
  'a race between the migration and the seed data',
  'floating point arithmetic on money',
  'the retry loop ignoring the idempotency key',
  'a stale service worker cache',
];
const FIXES = [
  'added the index in a new migration',
  'set the keep-alive timeout below the proxy limit',
  'took a lock before scheduling',
  'decoded the parameter once at the edge',
  'stored every timestamp in UTC and formatted at display',
  'streamed the body instead of buffering it',
  'ran the seed only after migrations completed',
  'switched to integer cents',
  'passed the idempotency key on every retry',
  'versioned the service worker cache name',
];
const RULES = [
  'every public function has a doc comment',
  'feature flags are removed within two releases',
  'migrations are never edited after they are merged',
  'errors shown to users say what to do next',
  'no network calls in unit tests',
  'branches are named after the ticket',
  'secrets come from the environment, never from files in the repository',
  'log lines are structured JSON',
  'pull requests need one review and a green build',
  'time zones are handled only at the edges',
];
const PEOPLE = ['Dana', 'Lee', 'Priya', 'Marco', 'Sam', 'Yuki', 'Omar', 'Ines'];
const LIKES = [
  'small pull requests over large ones',
  'tabs rendered as two spaces in reviews',
  'explicit return types on exported functions',
  'tests next to the code they test',
  'squash merges with a written summary',
  'early returns over nested conditions',
];

function pick<T>(rng: Rng, xs: readonly T[]): T {
  return xs[rng.int(xs.length)]!;
}

function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

export interface AgentMemory {
  content: string;
  type: 'decision' | 'fix' | 'workflow' | 'preference';
  tags: string[];
}

function one(rng: Rng, i: number): AgentMemory {
  const area = pick(rng, AREAS);
  const tag = area.replace(/^the /, '').split(' ')[0]!.toLowerCase();
  switch (i % 4) {
    case 0:
      return {
        type: 'decision',
        tags: [tag],
        content: `For ${area} we use ${pick(rng, TOOLS)} for ${pick(rng, PURPOSES)}, because ${pick(rng, REASONS)} (decision ${i}).`,
      };
    case 1:
      return {
        type: 'fix',
        tags: [tag, 'bug'],
        content: `${pick(rng, SYMPTOMS)} in ${area}. The cause was ${pick(rng, CAUSES)}; we ${pick(rng, FIXES)} (fix ${i}).`,
      };
    case 2:
      return { type: 'workflow', tags: [tag], content: `${capitalize(area)}: ${pick(rng, RULES)} (convention ${i}).` };
    default:
      return {
        type: 'preference',
        tags: ['team'],
        content: `${pick(rng, PEOPLE)} prefers ${pick(rng, LIKES)} when working on ${area} (note ${i}).`,
      };
  }
}

/** `n` memories, each text different (a running number keeps them apart). */
export function agentMemories(n: number, seed = 11): AgentMemory[] {
  const rng = new Rng(seed);
  return Array.from({ length: n }, (_, i) => one(rng, i));
}

const QUESTION_STARTS = [
  'why do we use',
  'what broke in',
  'how do we handle',
  'who prefers',
  'what is the rule for',
  'which tool do we use for',
  'what was the fix for',
];

/** `n` different questions an agent might ask before a task (never the same text twice). */
export function agentQueries(n: number, seed = 5): string[] {
  const rng = new Rng(seed);
  const out = new Set<string>();
  while (out.size < n) {
    const q = `${pick(rng, QUESTION_STARTS)} ${pick(rng, [...AREAS, ...PURPOSES, ...TOOLS])}`;
    out.add(out.has(q) ? `${q} ${pick(rng, PURPOSES)}` : q);
  }
  return [...out];
}

/** `n` new memories to store, none of them in {@link agentMemories} (another seed and numbering). */
export function agentNewMemories(n: number): AgentMemory[] {
  return agentMemories(n, 97).map((m, i) => ({ ...m, content: m.content.replace(/\((\w+) (\d+)\)\.$/, `($1 new ${i}).`) }));
}
