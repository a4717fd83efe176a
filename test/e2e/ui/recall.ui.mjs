// Recall as people meet it (issue 22, docs/recall.md "Relevance"), in the search panel over the
// 40 coding memories of the coding-memory benchmark (bench/coding/dataset.ts: decisions, fixes,
// conventions, preferences): an everyday question that shares one common word with them ("fix")
// says "No relevant memories"; a question that shares no word with the memory answering it finds
// that memory first, and the relevance shown never rises down the list.
// Screenshots: test-artifacts/e2e/recall--*--{light,hc,dark}.png.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cli, deleteAllMemories, findFrame, runCommand } from './workbench.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** The benchmark's memories (type and text), read from its TypeScript source through tsx. */
function codingMemories() {
  const script =
    "import('./bench/coding/dataset.ts').then((m) => process.stdout.write(JSON.stringify((m.MEMORIES ?? m.default.MEMORIES).map(({ type, content }) => ({ type, content })))))";
  return JSON.parse(execFileSync(process.execPath, ['--import', 'tsx', '-e', script], { cwd: ROOT, encoding: 'utf8' }));
}

const COMMON_WORD = 'How do I fix a flat bicycle tyre?';
// Shares no stemmed word with its answer (test/bench/codingSet.test.ts checks the benchmark's paraphrases).
const PARAPHRASE = 'Where are toggles for unfinished functionality kept?';
const ANSWER = 'Feature flags live in LaunchDarkly';

/** The relevance badges of the results shown, in order, as numbers (their "NN %"). */
async function shownRelevance(frame) {
  const labels = await frame.locator('#results .result .relevance').evaluateAll((els) => els.map((e) => e.getAttribute('aria-label')));
  return labels.map((l) => Number(/(\d+) %/.exec(l ?? '')?.[1] ?? NaN));
}

export const timeouts = {
  'recall: one common word finds nothing relevant, a paraphrase finds its memory first, relevance decreases': 180_000,
};

export const tests = {
  async 'recall: one common word finds nothing relevant, a paraphrase finds its memory first, relevance decreases'({
    page,
    screenshot,
    workspace,
  }) {
    // Its own store content only: the UI tests share one store.
    await deleteAllMemories(workspace);
    const memories = codingMemories();
    assert.equal(memories.length, 40);
    const dir = join(workspace, 'e2e-recall');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, 'coding.jsonl');
    const header = { format: 'agent-memory-jsonl', version: 1, exportedAt: '2026-01-01T00:00:00.000Z', projectId: 'e2e', count: 40 };
    writeFileSync(file, [header, ...memories].map((m) => JSON.stringify(m)).join('\n') + '\n');
    await cli(workspace, 'import', file);

    await runCommand(page, 'Agent Memory: Open Search Panel');
    const frame = await findFrame(page, async (f) => (await f.locator('#query').count()) > 0, { timeoutMs: 30000 });
    const query = frame.locator('#query');

    // The paraphrase: asked again until the imported memories have their vectors (embedded after the import).
    const deadline = Date.now() + 90_000;
    let first;
    for (;;) {
      await query.fill('');
      await query.fill(PARAPHRASE);
      await frame
        .locator('#status', { hasText: /^\d+ relevant memor(y|ies) \(|^No relevant memories/ })
        .waitFor({ state: 'visible', timeout: 20000 });
      const results = frame.locator('#results .result');
      first = (await results.count()) > 0 ? await results.first().locator('.content').innerText() : '';
      if (first.startsWith(ANSWER) || Date.now() > deadline) break;
      await page.waitForTimeout(2000);
    }
    assert.ok(first.startsWith(ANSWER), `the answer first, got: ${first.slice(0, 80)}`);
    const relevance = await shownRelevance(frame);
    assert.ok(relevance.length >= 2, `several results: ${relevance.join(', ')}`);
    assert.ok(
      relevance.every((r, i) => Number.isFinite(r) && (i === 0 || r <= relevance[i - 1])),
      `relevance decreases down the list: ${relevance.join(', ')}`,
    );
    assert.match(await frame.locator('#status').innerText(), new RegExp(`^${relevance.length} relevant memories`));
    await screenshot('paraphrase-first');

    // One word the store holds ("fix", in four of the memories) of an everyday question: nothing relevant.
    await query.fill(COMMON_WORD);
    await frame
      .locator('#status.empty', { hasText: `No relevant memories for “${COMMON_WORD}”.` })
      .waitFor({ state: 'visible', timeout: 20000 });
    assert.equal(await frame.locator('#results .result').count(), 0);
    await screenshot('common-word-nothing-relevant');
  },
};
