/**
 * The coding-memory set (bench/coding/README.md): what an agent's memory of one software project
 * holds — decisions, fixes, conventions, preferences, workflows — and three kinds of questions
 * asked of it:
 *
 * - `offTopic`: everyday questions a person might type anywhere (cooking, travel, home, health,
 *   money…). None is answered by any memory; the right answer is "nothing relevant". Several
 *   share an ordinary word with a memory ("time", "get", "fix", "live", "use", "store") the way
 *   everyday language does.
 * - `paraphrases`: questions answered by exactly one memory while sharing no stemmed content word
 *   with it (checked by test/bench/codingSet.test.ts with the store's own porter tokenizer):
 *   only meaning can find them.
 * - `direct`: questions that name what they look for (a tool, an identifier, a word of the
 *   memory), as people usually ask: the floor must keep these.
 *
 * Written for this benchmark, not taken from any data set; the memories are not about any real
 * project. A benchmark, not a tuning target: changing a sentence to move a figure defeats it.
 */

export interface CodingMemory {
  /** Stable key of this set (never a store id). */
  key: string;
  type: 'decision' | 'fix' | 'general' | 'preference' | 'workflow' | 'code_pattern';
  content: string;
}

export interface AnsweredQuestion {
  query: string;
  /** The key of the one memory that answers it. */
  answer: string;
}

export const MEMORIES: readonly CodingMemory[] = [
  {
    key: 'm01',
    type: 'decision',
    content: 'Package installs go through pnpm only; CI fails if a package-lock.json or yarn.lock appears in a pull request.',
  },
  {
    key: 'm02',
    type: 'general',
    content: 'Branch names follow type/short-description, for example feat/export-csv or fix/login-redirect.',
  },
  {
    key: 'm03',
    type: 'fix',
    content:
      'The flaky checkout test was caused by the payment mock resolving before the cart rendered; awaiting cartReady() in beforeEach fixed it.',
  },
  {
    key: 'm04',
    type: 'preference',
    content: 'Alice prefers small pull requests under 400 changed lines, reviewed within one working day.',
  },
  { key: 'm05', type: 'decision', content: 'Postgres 16 is the production database; SQLite is only used for local unit tests.' },
  {
    key: 'm06',
    type: 'fix',
    content: 'Docker builds on Apple Silicon failed with "exec format error" until we added --platform linux/amd64 to the base image.',
  },
  {
    key: 'm07',
    type: 'general',
    content: 'All timestamps are stored in UTC as ISO-8601 strings and converted to local time only in the UI.',
  },
  {
    key: 'm08',
    type: 'decision',
    content: 'Feature flags live in LaunchDarkly; never hard-code a flag check behind an environment variable.',
  },
  {
    key: 'm09',
    type: 'fix',
    content:
      'Memory leak in the websocket server: listeners were added on every reconnect without removing the old ones. Fixed by calling socket.removeAllListeners() in onClose.',
  },
  {
    key: 'm10',
    type: 'general',
    content: 'Use Prettier with printWidth 120 and single quotes; ESLint runs with --max-warnings 0 in CI.',
  },
  {
    key: 'm11',
    type: 'workflow',
    content:
      'Releases are cut every other Thursday from main; the release manager tags vX.Y.Z and the deploy pipeline promotes staging to production after smoke tests.',
  },
  {
    key: 'm12',
    type: 'decision',
    content: 'Authentication uses short-lived JWT access tokens (15 minutes) with refresh tokens stored in httpOnly cookies.',
  },
  {
    key: 'm13',
    type: 'fix',
    content: 'CORS errors on the staging API came from a missing trailing slash in ALLOWED_ORIGINS; origins must match exactly.',
  },
  {
    key: 'm14',
    type: 'preference',
    content: 'Bob wants error messages to tell the user what to do next, not just what went wrong.',
  },
  {
    key: 'm15',
    type: 'general',
    content: 'Database migrations are numbered files in db/migrations and are never edited after they are merged.',
  },
  {
    key: 'm16',
    type: 'fix',
    content:
      'The nightly backup job copies the Postgres database to cold storage in S3; it failed silently when the IAM role lost s3:PutObject, so it now alerts on a non-zero exit.',
  },
  {
    key: 'm17',
    type: 'decision',
    content: 'We chose Vitest over Jest because it shares the Vite config and runs the suite about three times faster.',
  },
  {
    key: 'm18',
    type: 'code_pattern',
    content: 'API handlers return Result<T, AppError> instead of throwing; the error middleware maps AppError codes to HTTP status codes.',
  },
  {
    key: 'm19',
    type: 'fix',
    content:
      "Dates shifted by one day for users in Australia because new Date('2024-03-01') parses as UTC; use parseISO from date-fns with the user's zone.",
  },
  {
    key: 'm20',
    type: 'general',
    content: "Commit messages use the imperative mood and reference the ticket, e.g. 'Add CSV export (PROJ-142)'.",
  },
  {
    key: 'm21',
    type: 'decision',
    content: 'Redis is used for the session cache and rate limiting, with a 24-hour TTL on session keys.',
  },
  {
    key: 'm22',
    type: 'workflow',
    content: 'To reproduce production bugs locally, restore the anonymized snapshot with make db-restore-anon.',
  },
  {
    key: 'm23',
    type: 'fix',
    content:
      'Image uploads over 10 MB timed out behind the nginx proxy; client_max_body_size was raised to 25m and uploads now stream to S3.',
  },
  {
    key: 'm24',
    type: 'preference',
    content: 'The team prefers composition over inheritance for React components; no class components in new code.',
  },
  {
    key: 'm25',
    type: 'decision',
    content: 'Logs are structured JSON via pino and shipped to Grafana Loki; never log access tokens or email addresses.',
  },
  {
    key: 'm26',
    type: 'fix',
    content:
      'The search page was slow because every keystroke fired a request; a 300 ms debounce and an AbortController on the previous request fixed it.',
  },
  {
    key: 'm27',
    type: 'general',
    content:
      'Environment variables are documented in .env.example and validated at startup with zod; the app refuses to boot with a missing one.',
  },
  {
    key: 'm28',
    type: 'decision',
    content: 'The mobile app talks to the backend only through the GraphQL gateway; REST endpoints are for internal services.',
  },
  {
    key: 'm29',
    type: 'fix',
    content:
      'sha256sum mismatches in the artifact check came from CRLF line endings on Windows runners; .gitattributes now forces LF for *.sh.',
  },
  {
    key: 'm30',
    type: 'workflow',
    content: 'On-call engineers acknowledge PagerDuty alerts within 15 minutes and write a short incident note in #incidents.',
  },
  {
    key: 'm31',
    type: 'preference',
    content: "Carol likes code review comments prefixed with 'nit:' when they are optional.",
  },
  {
    key: 'm32',
    type: 'decision',
    content: 'Payments go through Stripe; webhook signatures are verified with the endpoint secret before any order is updated.',
  },
  {
    key: 'm33',
    type: 'fix',
    content:
      'Node 18 crashed with ERR_REQUIRE_ESM after upgrading node-fetch to v3; we pinned node-fetch 2.7 until the service moves to native fetch.',
  },
  {
    key: 'm34',
    type: 'general',
    content: 'Translations live in locales/<lang>.json and keys are dot-separated, like checkout.button.pay.',
  },
  {
    key: 'm35',
    type: 'fix',
    content:
      'The Kubernetes pod kept restarting because the liveness probe hit /health before migrations finished; a separate startupProbe with a 120-second budget solved it.',
  },
  {
    key: 'm36',
    type: 'decision',
    content:
      'Infrastructure is managed with Terraform in the infra repository; manual changes in the AWS console are reverted on the next apply.',
  },
  {
    key: 'm37',
    type: 'code_pattern',
    content: 'Background jobs are idempotent: each job carries a dedupe key and the worker skips keys it has already completed.',
  },
  {
    key: 'm38',
    type: 'fix',
    content: 'Tests failed only in CI because TZ was unset; the test script now exports TZ=UTC.',
  },
  {
    key: 'm39',
    type: 'preference',
    content: 'Dave asks for screenshots of UI changes in the pull request description, in the light and the dark theme.',
  },
  {
    key: 'm40',
    type: 'workflow',
    content: 'New dependencies need a short note in the PR about why, their license and their bundle size impact.',
  },
];

/** Answered by one memory while sharing no stemmed content word with it. */
export const PARAPHRASES: readonly AnsweredQuestion[] = [
  { query: 'Which tool fetches our JavaScript libraries?', answer: 'm01' },
  { query: 'How do we label a git line of work?', answer: 'm02' },
  { query: 'Why did the purchase spec randomly break?', answer: 'm03' },
  { query: 'How large may a merge proposal be?', answer: 'm04' },
  { query: 'Which relational engine holds live customer records?', answer: 'm05' },
  { query: 'Why did container packaging break on M1 laptops?', answer: 'm06' },
  { query: 'Which clock zone do we persist dates in?', answer: 'm07' },
  { query: 'Where are toggles for unfinished functionality kept?', answer: 'm08' },
  { query: "Why did the realtime service's RAM keep growing?", answer: 'm09' },
  { query: 'How wide may source lines be, and which kind of string delimiters?', answer: 'm10' },
  { query: 'How often do we ship a new version?', answer: 'm11' },
  { query: 'How long do login credentials stay valid?', answer: 'm12' },
  { query: 'Why were cross-site calls to the pre-release backend rejected?', answer: 'm13' },
  { query: 'What should failure text shown to people include?', answer: 'm14' },
  { query: 'Can a schema change script be modified once it has landed?', answer: 'm15' },
  { query: 'How is our data archived each night?', answer: 'm16' },
  { query: 'Which runner executes our specs, and why that one?', answer: 'm17' },
  { query: 'Do endpoint functions raise exceptions on failure?', answer: 'm18' },
  { query: 'Why were Sydney customers seeing calendar values off by twenty-four hours?', answer: 'm19' },
  { query: 'How should I word the description of a change I check in?', answer: 'm20' },
  { query: 'Where do we keep logged-in state and request throttling?', answer: 'm21' },
  { query: 'How can I get realistic prod data onto my laptop?', answer: 'm22' },
  { query: 'Why did sending big photos fail?', answer: 'm23' },
  { query: 'Should interface widgets be built by subclassing?', answer: 'm24' },
  { query: 'Where does diagnostic output go, and what must it leave out?', answer: 'm25' },
  { query: 'Why was typing in the lookup box laggy?', answer: 'm26' },
  { query: 'What happens when a required setting is absent at launch?', answer: 'm27' },
  { query: 'How does the phone client reach the server?', answer: 'm28' },
  { query: 'Why did checksum verification of build outputs fail?', answer: 'm29' },
  { query: 'How quickly must the person on duty respond to a page?', answer: 'm30' },
  { query: 'How do we flag a suggestion someone may ignore?', answer: 'm31' },
  { query: 'How do we confirm that a card processor callback is genuine?', answer: 'm32' },
  { query: 'Which HTTP client major release broke startup, and what did we do?', answer: 'm33' },
  { query: 'Where are UI strings for other languages kept?', answer: 'm34' },
  { query: 'Why was the container in the cluster rebooting in a loop?', answer: 'm35' },
  { query: 'How are cloud resources provisioned?', answer: 'm36' },
  { query: 'How do we avoid running the same queued task twice?', answer: 'm37' },
  { query: 'Why did specs pass on laptops but break on the build server?', answer: 'm38' },
  { query: 'What images should accompany a front-end tweak for review?', answer: 'm39' },
  { query: 'What must I explain when adding a third-party library?', answer: 'm40' },
];

/** Questions that name what they look for: words, tools and identifiers of the memory. */
export const DIRECT: readonly AnsweredQuestion[] = [
  { query: 'which package manager do we use', answer: 'm01' },
  { query: 'branch naming convention', answer: 'm02' },
  { query: 'flaky checkout test', answer: 'm03' },
  { query: 'how big should pull requests be for Alice', answer: 'm04' },
  { query: 'which Postgres version runs in production', answer: 'm05' },
  { query: 'exec format error docker', answer: 'm06' },
  { query: 'are timestamps stored in UTC', answer: 'm07' },
  { query: 'where do feature flags live', answer: 'm08' },
  { query: 'websocket memory leak', answer: 'm09' },
  { query: 'prettier printWidth', answer: 'm10' },
  { query: 'when are releases cut', answer: 'm11' },
  { query: 'JWT access token lifetime', answer: 'm12' },
  { query: 'CORS errors on staging', answer: 'm13' },
  { query: 'what does Bob want from error messages', answer: 'm14' },
  { query: 'can I edit a merged migration', answer: 'm15' },
  { query: 'nightly backup job', answer: 'm16' },
  { query: 'why Vitest instead of Jest', answer: 'm17' },
  { query: 'AppError middleware', answer: 'm18' },
  { query: 'parseISO date-fns zone', answer: 'm19' },
  { query: 'commit message format', answer: 'm20' },
  { query: 'redis session TTL', answer: 'm21' },
  { query: 'restore the anonymized snapshot', answer: 'm22' },
  { query: 'client_max_body_size nginx', answer: 'm23' },
  { query: 'class components in React', answer: 'm24' },
  { query: 'what must never be logged', answer: 'm25' },
  { query: 'debounce on the search page', answer: 'm26' },
  { query: 'zod environment validation', answer: 'm27' },
  { query: 'GraphQL gateway for the mobile app', answer: 'm28' },
  { query: 'sha256sum mismatch', answer: 'm29' },
  { query: 'PagerDuty acknowledge time', answer: 'm30' },
  { query: 'nit: prefix in code review', answer: 'm31' },
  { query: 'Stripe webhook signature', answer: 'm32' },
  { query: 'ERR_REQUIRE_ESM', answer: 'm33' },
  { query: 'translation keys format', answer: 'm34' },
  { query: 'liveness probe restarts', answer: 'm35' },
  { query: 'Terraform manual changes', answer: 'm36' },
  { query: 'dedupe key for background jobs', answer: 'm37' },
  { query: 'TZ=UTC in the test script', answer: 'm38' },
  { query: 'screenshots in dark theme', answer: 'm39' },
  { query: 'adding a new dependency', answer: 'm40' },
];

/** Everyday questions no memory of a software project answers. */
export const OFF_TOPIC: readonly string[] = [
  'What time does the bakery open on Sunday?',
  'How do I get red wine out of a carpet?',
  'How can I fix a squeaky door hinge?',
  'Where is the nicest place to live in Lisbon?',
  'How long should I boil an egg?',
  'What should I pack for a week of hiking in Scotland?',
  'Is it going to rain tomorrow afternoon?',
  'How many calories are in a banana?',
  'What is a good name for a golden retriever puppy?',
  'How do I use a French press?',
  'When is the best time to plant tulip bulbs?',
  'How do I get my toddler to sleep through the night?',
  'What is the capital of Australia?',
  'How much should I tip a taxi driver in New York?',
  'Can I freeze cooked rice?',
  'How do I fix a flat bicycle tyre?',
  'What are some easy vegetarian dinner ideas?',
  'How often should I water a cactus?',
  'Which running shoes are good for flat feet?',
  'How do I get to the airport by train?',
  'What is the difference between baking soda and baking powder?',
  'How do I remove a stripped screw?',
  'Who won the football match last night?',
  'How long does it take to walk ten kilometres?',
  'What should I cook for a birthday dinner?',
  'How do I store fresh basil so it lasts?',
  'Is it safe to eat eggs after the expiry date?',
  'How can I save money on groceries?',
  'What wine goes with salmon?',
  'How do I get rid of fruit flies in the kitchen?',
  'How do I change a car tyre?',
  'What is a healthy breakfast before a long run?',
  'How do I make sourdough starter?',
  'When does the summer sale start?',
  'How do I clean a cast iron pan?',
  'How many hours of sleep does a teenager need?',
  'What are the rules of chess castling?',
  'Where can I buy a cheap second-hand sofa?',
  'How do I keep my houseplants alive while on holiday?',
  'What is the best way to learn Spanish quickly?',
  'How do I unclog a bathroom sink?',
  'How long is the flight from London to Tokyo?',
  'What time zone is Hawaii in?',
  'How do I treat a mild sunburn?',
  'What is a good gift for my grandmother?',
  'How do I get better at drawing faces?',
  'How many people live in Canada?',
  'How do I train my cat to use a scratching post?',
  'Can you recommend a good mystery novel?',
  'How much does a wedding photographer usually cost?',
  'What should I wear to a job interview at a bank?',
  'How do I hang a heavy mirror on a plaster wall?',
  'What is the best season to visit Japan?',
  'How do I make my own pizza dough?',
  'How can I stop my dog barking at the postman?',
  'What are the symptoms of a cold versus the flu?',
  'How do I set up a fish tank for goldfish?',
  'How long does paint take to dry before a second coat?',
  'Where can I watch the marathon live this weekend?',
  'Which board games are fun for a family of four?',
  'How do I get a parking permit for my street?',
  'How can I make my morning commute less stressful?',
  'What is the proper way to fold a fitted sheet?',
  'How do I renew my passport?',
  'Is it worth buying an electric bike?',
  'How do I descale a kettle with vinegar?',
  'What are good stretches after cycling?',
  'How do I keep guacamole from turning brown?',
  'When do the clocks go back this year?',
  'How do I write a thank-you card to a teacher?',
  'What is the best way to pack a suitcase without creases?',
  'How many cups of coffee a day are too many?',
  'How do I repot an orchid?',
  'Which museums are free to visit in Paris?',
  'How do I get chewing gum out of hair?',
  'What should I do if my phone falls in water?',
  'How can I improve my credit score?',
  'How long do I roast a chicken for?',
  'What is a good routine for a beginner at the gym?',
  'How do I teach a child to ride a bike?',
  'Where do swallows fly in winter?',
  'How do I make a budget for a family holiday?',
  'How do I fix a running toilet?',
  'What do I need for a picnic at the beach?',
  'How do I get a stain out of a white shirt?',
  'What is the tallest mountain in Africa?',
  'How do I cook lentils without them going mushy?',
  'How can I stop my glasses fogging up?',
  'What time is the last bus home on Saturday?',
  'How do I choose a ripe avocado?',
  'How do I build a simple bookshelf?',
  'What are the opening hours of the post office?',
  'How do I look after a sourdough loaf so it stays fresh?',
  'How can I calm down before giving a speech at a wedding?',
  'What flowers are safe for cats?',
  'How do I make a cheap costume for a school play?',
  'How long should a nap be?',
  'What is the quickest way to defrost a freezer?',
  'How do I tell if a melon is ripe?',
  'How much water should I drink on a hot day?',
];
