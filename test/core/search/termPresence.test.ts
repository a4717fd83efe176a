/**
 * termPresence.ts decides "does this memory hold this term" from the memory's own tokens; the
 * full-text index decides it with MATCH. Both must agree on every term kind (stemmed words,
 * prefixes, phrases, identifiers with digits, non-ASCII words, tags), so the oracle here is
 * SQLite's MATCH itself over random memories and random terms.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { termsPresent } from '../../../src/core/search/termPresence';
import { needsExactIndex } from '../../../src/core/search/fullTextExact';
import { buildFtsTerms } from '../../../src/core/search/ftsQuery';
import { matchedTerms, contentTerms } from '../../../src/core/search/relevance';
import { openMemory } from '../../helpers/memoryFixture';
import { rng } from '../vector/data';

const WORDS = [
  'deploy',
  'deploying',
  'deployed',
  'deployment',
  'build',
  'builds',
  'building',
  'cache',
  'caching',
  'cached',
  'sha256sum',
  'sha512sum',
  'v2beta1',
  'node20',
  'x86',
  'k8s',
  'café',
  'über',
  'Ünïcode',
  'naïve',
  'the',
  'a',
  'is',
  'server',
  'servers',
  'happily',
  'happiness',
  'running',
  'runs',
  'flaky',
  'test',
  'tests',
  'auth',
  'authentication',
  'authorize',
  'token',
  'tokens',
  'database',
  'Postgres',
  'pnpm',
  'npm',
  // The anchors' edge cases (termPresence.anchorOf): stems that change the last letter, words
  // with a digit cut to their first and last 3 letters, words over 20 letters cut to 10 + 10.
  'day',
  'days',
  'happy',
  'base64url',
  'kubernetes1234',
  'internationalization',
  'internationalizations',
  'counterrevolutionaries',
  'Überprüfungsverfahrens',
];
const QUERIES = [
  'deploy',
  'deployment*',
  'dep*',
  'build',
  '"build cache"',
  '"flaky test"',
  'sha256sum',
  'sha*',
  'sha256*',
  'v2beta1',
  'node20',
  'café',
  'cafe',
  'über',
  'ünïcode',
  'naive',
  'running',
  'run*',
  'happy',
  'happiness',
  'auth*',
  'authentication',
  'tokens',
  '"the server"',
  'postgres',
  'pnpm',
  'npm',
  'k8s',
  'x86',
  '"deployed servers"',
  'caching',
  'au*',
  'releasetag',
  'day',
  'happy',
  'happi*',
  'basur*',
  'basurl',
  'kub*',
  'kub1234',
  'internationalizations',
  'counterrevolutionaries',
  'counterrevolution*',
  'interna*',
  'überprüfungsverfahrens',
];

/** Which memories MATCH a rendered term, by the index that answers it (the oracle). */
function matchOracle(store: Awaited<ReturnType<typeof openMemory>>['store'], rendered: string, rids: number[]): Set<number> {
  const table = needsExactIndex(rendered) ? 'memories_exact' : 'memories_fts';
  const rows = store.all(`SELECT docid FROM ${table} WHERE ${table} MATCH ? AND docid IN (${rids.map(() => '?').join(', ')})`, [
    rendered,
    ...rids,
  ]);
  return new Set(rows.map((r) => Number(r.docid)));
}

describe('termsPresent', () => {
  test('agrees with MATCH on random memories for words, prefixes, phrases, identifiers and non-ASCII words', async () => {
    const m = await openMemory();
    try {
      const next = rng(20261124);
      const pick = () => WORDS[Math.floor(next() * WORDS.length)]!;
      const rids: number[] = [];
      for (let i = 0; i < 60; i++) {
        const content = `memo${i} ` + Array.from({ length: 4 + Math.floor(next() * 12) }, pick).join(next() < 0.5 ? ' ' : ', ');
        const r = m.svc.create({
          content,
          title: next() < 0.4 ? `${pick()} ${pick()}` : undefined,
          tags:
            next() < 0.4
              ? [
                  pick()
                    .toLowerCase()
                    .replace(/[^a-z0-9]/g, '') || 'tag',
                  'releasetag',
                ]
              : [],
          allowNearDuplicate: true,
          ttlSeconds: null,
        });
        assert.equal(r.status, 'created');
        if (r.status === 'created') rids.push(r.memory.rid);
      }
      let compared = 0;
      for (const q of QUERIES) {
        for (const rendered of buildFtsTerms(q, { stopWords: false }) ?? []) {
          const want = matchOracle(m.store, rendered, rids);
          const got = termsPresent(m.store, [rendered], rids);
          const have = new Set([...got].filter(([, s]) => s.own.has(rendered) || s.context.has(rendered)).map(([rid]) => rid));
          assert.deepEqual([...have].sort(), [...want].sort(), `term ${rendered}`);
          compared += want.size;
        }
      }
      assert.ok(compared > 100, `the terms matched something (${compared} matches compared)`);
    } finally {
      await m.store.close();
    }
  });

  test('matchedTerms takes the keyword leg’s answer for its terms and finds the others in the text', async () => {
    const m = await openMemory();
    try {
      const a = m.svc.create({ content: 'We deploy the build cache with pnpm.', ttlSeconds: null });
      const b = m.svc.create({ content: 'Nothing relevant here.', ttlSeconds: null });
      assert.ok(a.status === 'created' && b.status === 'created');
      const terms = contentTerms('deploying pnpm caches');
      // The leg answers for "deploying" only (say "pnpm" and "caches" were left out as very common):
      // it claims nothing for memory a, so "deploying" is not matched; the others come from the text.
      const leg = { heldTerms: ['"deploying"'], held: () => new Map<number, { own: Set<string>; context: Set<string> }>() };
      const none = new Set<string>();
      assert.deepEqual(
        matchedTerms(m.store, terms, [a.memory.rid, b.memory.rid], leg),
        new Map([[a.memory.rid, { own: new Set(['"pnpm"', '"caches"']), context: none }]]),
      );
      // Without a leg every term is looked for in the text.
      assert.deepEqual(
        matchedTerms(m.store, terms, [a.memory.rid, b.memory.rid]),
        new Map([[a.memory.rid, { own: new Set(['"deploying"', '"pnpm"', '"caches"']), context: none }]]),
      );
    } finally {
      await m.store.close();
    }
  });

  test('a word of the search context only is told apart from one of the memory’s own text', async () => {
    const m = await openMemory();
    try {
      const a = m.svc.create({ content: 'Yes, every weekend!', searchContext: 'Do you go hiking with the dog?', ttlSeconds: null });
      assert.ok(a.status === 'created');
      const got = termsPresent(m.store, ['"hiking"', '"weekend"', '"dog"'], [a.memory.rid]);
      assert.deepEqual(got.get(a.memory.rid), { own: new Set(['"weekend"']), context: new Set(['"hiking"', '"dog"']) });
    } finally {
      await m.store.close();
    }
  });
});
