// @tier process
// The LoCoMo engine configs and the search benchmark, on small inputs: real stores, real
// FTS4/bm25, real hash embedder and hnswlib-wasm.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { EngineRetriever } from '../../bench/locomo/engineRetriever';
import { parseSessionDate } from '../../bench/locomo/sessionDate';
import { DEFAULT_CONFIG, configs } from '../../bench/locomo/configs';
import { evaluate } from '../../bench/locomo/harness';
import { parseLocomo } from '../../bench/locomo/data';
import { HashEmbedder } from '../../src/core/embed/hashEmbedder';
import { runSearchBench } from '../../bench/search.bench';
import { tmpDir } from '../helpers/tmp';

const ROOT = path.resolve(__dirname, '..', '..');

const TURNS = [
  { id: 'D1:1', text: 'Ann: I adopted a puppy from the shelter.', date: '1:56 pm on 8 May, 2023' },
  { id: 'D1:2', text: 'Bob: Cute! [image: a photo of a puppy]', date: '1:56 pm on 8 May, 2023' },
  { id: 'D1:3', text: 'Ann: Cute!', date: '1:56 pm on 8 May, 2023' }, // same words as D1:2's first part
  { id: 'D2:1', text: 'Ann: The puppy is named Rex and loves running.', date: '9:00 am on 1 June, 2023' },
  { id: 'D2:2', text: 'Bob: I started painting sunsets at the lake.', date: '9:00 am on 1 June, 2023' },
];

describe('locomo engine configs', () => {
  test('session dates parse; junk is null', () => {
    assert.equal(parseSessionDate('1:56 pm on 8 May, 2023')?.toISOString(), '2023-05-08T13:56:00.000Z');
    assert.equal(parseSessionDate('12:05 am on 30 January, 2024')?.toISOString(), '2024-01-30T00:05:00.000Z');
    assert.equal(parseSessionDate('sometime'), null);
    assert.equal(parseSessionDate(''), null);
  });

  test('the registry holds full-text, each embedder alone and hybrids; the default is an engine config', () => {
    for (const name of ['reference-bm25', 'fts', 'hash', 'use', 'hybrid-hash', 'hybrid-use']) assert.ok(Object.hasOwn(configs, name), name);
    assert.equal(DEFAULT_CONFIG, 'hybrid-use');
  });

  for (const [label, embedder] of [
    ['full text', undefined],
    ['hybrid hash', () => new HashEmbedder({ dimension: 128 })],
  ] as const) {
    test(`every turn is a memory and search answers dia ids (${label})`, async () => {
      const r = await EngineRetriever.create('t', { workDir: tmpDir('am-locomo-'), log: () => undefined }, { embedder });
      try {
        await r.index('s1', TURNS);
        const puppy = await r.search('s1', 'What is the name of the puppy?', 20);
        assert.equal(puppy[0], 'D2:1');
        assert.ok(puppy.includes('D1:1'));
        assert.equal(new Set(puppy).size, puppy.length);
        // Filler and repeated words are kept (the write path would skip them; the metric counts every turn).
        const cute = await r.search('s1', 'cute', 20);
        assert.deepEqual(cute.slice(0, 2).sort(), ['D1:2', 'D1:3']);
        // Stemming: "paint" finds "painting".
        assert.equal((await r.search('s1', 'paint', 5))[0], 'D2:2');
      } finally {
        await r.close();
      }
    });
  }

  test('the harness scores an engine config end to end', async () => {
    const ds = parseLocomo([
      {
        sample_id: 's1',
        conversation: {
          speaker_a: 'Ann',
          speaker_b: 'Bob',
          session_1_date_time: '1:56 pm on 8 May, 2023',
          session_1: TURNS.slice(0, 3).map((t) => ({
            speaker: t.text.split(':')[0],
            dia_id: t.id,
            text: t.text.split(': ').slice(1).join(': '),
          })),
        },
        qa: [{ question: 'Where did Ann adopt the puppy?', answer: 'shelter', evidence: ['D1:1'], category: 4 }],
      },
    ]);
    const e = await evaluate('fts', configs['fts']!.create, ds, { log: () => undefined });
    assert.equal(e.report.questions, 1);
    assert.equal(e.report.recall_any['1'], 1);
    assert.deepEqual(e.warnings, []);
  });
});

describe('search benchmark', () => {
  test('a small run reports every figure; ANN agrees with exact', async () => {
    const r = await runSearchBench(400, tmpDir('am-sbench-'));
    assert.equal(r.memories, 400);
    assert.equal(r.queries, 300);
    for (const [k, v] of Object.entries(r)) assert.ok(typeof v === 'number' && Number.isFinite(v), k);
    assert.ok(r.hybrid_p50_ms > 0 && r.hybrid_p99_ms >= r.hybrid_p50_ms);
    assert.ok(r.ann_recall_at_10 >= 0.9, String(r.ann_recall_at_10));
    assert.ok(r.ann_recall_at_10_vs_float32 >= 0.9, String(r.ann_recall_at_10_vs_float32));
    // The product's peak is taken before the baseline runs; the whole run's peak cannot be lower.
    assert.ok(r.peak_rss_mb > 0 && r.peak_rss_mb <= r.peak_rss_with_baseline_mb);
    assert.ok(r.embeddings_mb > 0 && r.embeddings_mb < r.db_mb);
    assert.ok(r.fts_matches_p50 >= 1, 'queries are drawn from memory text, so they match');
  });

  test('bench/index.ts --json prints one JSON object on stdout and nothing else', () => {
    const out = spawnSync(process.execPath, ['--import', 'tsx', 'bench/index.ts', '--json', '--sizes', '300', '--sections', 'search'], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, NODE_OPTIONS: '' },
    });
    assert.equal(out.status, 0, out.stderr);
    const lines = out.stdout.trim().split('\n');
    assert.equal(lines.length, 1);
    const j = JSON.parse(lines[0]!);
    assert.deepEqual(Object.keys(j), ['machine', 'search', 'targets']);
    assert.equal(j.search['300'].memories, 300);
    assert.equal(j.targets['search.hybrid_p50_ms@100000'], '≤ 5');
    const bad = spawnSync(process.execPath, ['--import', 'tsx', 'bench/index.ts', '--json', '--sections', 'nope'], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    assert.notEqual(bad.status, 0);
    assert.equal(bad.stdout, '');
  });
});
