// The `sessions` LoCoMo config on a tiny conversation: the turns logged as session events
// through the real write path (sql.js, FTS4, hash embedder, hnswlib-wasm), the chunk query's
// chunks turned into turns — a chunk's score to every turn it covers, the list cut at k turns.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { HashEmbedder } from '../../src/core/embed/hashEmbedder';
import { chunkHash } from '../../src/core/sessions/chunking';
import { SessionsRetriever, locomoSessionId, turnsAsSessions } from '../../bench/locomo/sessionsRetriever';
import { chunkHashesOf, coveredSequences, rankTurns, type EventChunks } from '../../bench/locomo/sessionTurns';
import { evaluate } from '../../bench/locomo/harness';
import { parseLocomo } from '../../bench/locomo/data';
import type { RetrieverDoc } from '../../bench/locomo/retriever';
import { tmpDir } from '../helpers/tmp';

const MAY = '1:56 pm on 8 May, 2023';
const JUNE = '9:00 am on 1 June, 2023';
const DOCS: RetrieverDoc[] = [
  { id: 'D1:1', text: 'Ann: I adopted a puppy from the shelter.', date: MAY, speaker: 'Ann', session: 1 },
  { id: 'D1:2', text: 'Bob: Cute!', date: MAY, speaker: 'Bob', session: 1 },
  { id: 'D1:3', text: 'Ann: I also started a pottery class on Tuesdays.', date: MAY, speaker: 'Ann', session: 1 },
  { id: 'D1:4', text: 'Bob: Cute!', date: MAY, speaker: 'Bob', session: 1 }, // the same text as D1:2: one chunk for both
  { id: 'D2:1', text: 'Ann: The puppy is named Rex and loves running on the beach.', date: JUNE, speaker: 'Ann', session: 2 },
  { id: 'D2:2', text: 'Bob: I started painting sunsets at the lake.', date: JUNE, speaker: 'Bob', session: 2 },
];

const hash = () => new HashEmbedder({ dimension: 256 });

describe('LoCoMo through sessions: chunks to turns', () => {
  test('a repeated text is one chunk covering both turns, not the turns between them', () => {
    const ev: EventChunks = new Map(
      turnsAsSessions('s', DOCS.slice(0, 4))
        .get(locomoSessionId('s', 1))!
        .map((e, i) => [i + 1, chunkHashesOf(e.payload)]),
    );
    const cute = { sessionId: 'x', text: 'Bob: Cute!', sequenceStart: 2, sequenceEnd: 4, score: 1 };
    assert.deepEqual(coveredSequences(cute, ev), [2, 4]);
    assert.ok(ev.get(1)!.has(chunkHash('Ann: I adopted a puppy from the shelter.')));
  });

  test('a turn takes its best chunk score, equal scores keep the order, the cut is k turns', () => {
    const one = (text: string): EventChunks => new Map([[1, new Set([chunkHash(text)])]]);
    const events = new Map<string, EventChunks>([
      [
        'a',
        new Map([
          [1, new Set([chunkHash('a1'), chunkHash('a1 tail')])],
          [2, new Set([chunkHash('a2')])],
          [3, new Set([chunkHash('a2')])],
        ]),
      ],
      ['b', one('b1')],
    ]);
    const turnOf = (s: string, seq: number) => `${s}${seq}`;
    const hit = (sessionId: string, text: string, sequenceStart: number, sequenceEnd: number, score: number) => ({
      sessionId,
      text,
      sequenceStart,
      sequenceEnd,
      score,
    });
    const hits = [hit('a', 'a1', 1, 1, 0.9), hit('a', 'a2', 2, 3, 0.8), hit('b', 'b1', 1, 1, 0.8), hit('a', 'a1 tail', 1, 1, 0.5)];
    // a1's second chunk adds no turn; a2's chunk gives its score to turns 2 and 3.
    assert.deepEqual(rankTurns(hits, events, turnOf, 10), ['a1', 'a2', 'a3', 'b1']);
    assert.deepEqual(rankTurns(hits, events, turnOf, 2), ['a1', 'a2']);
    // A turn the map does not name (not a LoCoMo turn) is left out.
    assert.deepEqual(
      rankTurns(hits, events, (s, seq) => (s === 'b' ? undefined : `${s}${seq}`), 10),
      ['a1', 'a2', 'a3'],
    );
  });

  test('the conversation is stored as sessions of events through the write path and searched through the chunks', async () => {
    const log: string[] = [];
    const r = await SessionsRetriever.create(
      'sessions',
      { workDir: tmpDir('am-locomo-sessions-'), log: (m) => log.push(m) },
      { embedder: hash },
    );
    try {
      await r.index('s1', DOCS);
      assert.equal(r.pending, 0);
      const top = await r.search('s1', 'What is the name of the puppy?', 3);
      assert.equal(top[0], 'D2:1');
      assert.ok(top.length <= 3 && new Set(top).size === top.length);
      // "Cute" names two turns through one chunk: both come back, each once.
      const cute = await r.search('s1', 'cute', 5);
      assert.deepEqual([...cute].sort(), ['D1:2', 'D1:4']);
      assert.deepEqual(await r.search('s1', 'cute', 1), [cute[0]]);
      // The relevance floor of the chunk query: an off-topic query finds no turn.
      assert.deepEqual(await r.search('s1', 'quantum chromodynamics lattice', 5), []);
    } finally {
      await r.close();
    }
    assert.deepEqual(log, []);
  });

  test('the harness scores the sessions config end to end', async () => {
    const turn = (d: RetrieverDoc) => ({ speaker: d.speaker, dia_id: d.id, text: d.text.split(': ').slice(1).join(': ') });
    const ds = parseLocomo([
      {
        sample_id: 's1',
        conversation: {
          speaker_a: 'Ann',
          speaker_b: 'Bob',
          session_1_date_time: MAY,
          session_1: DOCS.filter((d) => d.session === 1).map(turn),
          session_2_date_time: JUNE,
          session_2: DOCS.filter((d) => d.session === 2).map(turn),
        },
        qa: [
          { question: 'Where did Ann adopt the puppy?', answer: 'shelter', evidence: ['D1:1'], category: 4 },
          { question: 'What does Bob paint?', answer: 'sunsets', evidence: ['D2:2'], category: 4 },
        ],
      },
    ]);
    const e = await evaluate('sessions', (ctx) => SessionsRetriever.create('sessions', ctx, { embedder: hash }), ds, {
      log: () => undefined,
    });
    assert.equal(e.report.questions, 2);
    assert.equal(e.report.recall_any['1'], 1);
    assert.equal(e.report.recall_all['5'], 1);
    assert.deepEqual(e.warnings, []);
  });
});
