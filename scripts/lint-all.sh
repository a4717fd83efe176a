#!/usr/bin/env bash
# Switches style checks on, once, after every branch of a session is merged (formatting the whole tree while several
# people edit it would conflict with everything):
#   1. formats the repository with Prettier (.prettierrc.json, .prettierignore);
#   2. makes `npm test` run `npm run lint` and `npm run format:check` after the typecheck, before the unit tests
#      (and so CI, which runs `npm test`);
#   3. records the ESLint violations still left in eslint-suppressions.json (ESLint's bulk suppressions), so that
#      `npm run lint` passes today and fails on any new violation; fixing one and running
#      `npx eslint --prune-suppressions .` burns the list down;
#   4. runs both checks.
# Then review `git diff --stat`, run `npm test` and commit. Idempotent: a second run changes nothing.
set -euo pipefail
cd "$(dirname "$0")/.."

echo '[lint-all] prettier --write .'
npx prettier --write . --log-level warn

echo '[lint-all] npm test: lint and format:check before the unit tests'
node -e '
const fs = require("node:fs");
const text = fs.readFileSync("package.json", "utf8");
const before = "npm run typecheck && node scripts/run-tests.mjs";
const after = "npm run typecheck && npm run lint && npm run format:check && node scripts/run-tests.mjs";
if (text.includes(after)) process.exit(0);
if (!text.includes(before)) {
  console.error("[lint-all] the test script no longer reads \"" + before + "\": add `npm run lint && npm run format:check` by hand");
  process.exit(1);
}
fs.writeFileSync("package.json", text.replace(before, after));
'

echo '[lint-all] recording the violations left (eslint-suppressions.json)'
npx eslint --suppress-all . > /dev/null || true
if [ -f eslint-suppressions.json ]; then
  node -e '
const s = JSON.parse(require("node:fs").readFileSync("eslint-suppressions.json", "utf8"));
const byRule = {};
let total = 0;
for (const rules of Object.values(s)) {
  for (const [rule, { count }] of Object.entries(rules)) {
    byRule[rule] = (byRule[rule] ?? 0) + count;
    total += count;
  }
}
console.log(`[lint-all] ${total} violations in ${Object.keys(s).length} files suppressed:`);
for (const [rule, n] of Object.entries(byRule).sort((a, b) => b[1] - a[1])) console.log(`  ${String(n).padStart(4)} ${rule}`);
'
fi

npm run lint
npm run format:check
echo '[lint-all] done: review `git diff --stat`, run `npm test`, commit.'
