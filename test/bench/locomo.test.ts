// @tier process
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { DEFAULT_LOCOMO_PATH, REPO_ROOT, canonicalDiaId, loadLocomo, parseEvidence, parseLocomo, turnText } from '../../bench/locomo/data';
import { KS, MAX_K, computeRecall, hitAt } from '../../bench/locomo/metric';
import { PerSampleRetriever, type RetrieverDoc } from '../../bench/locomo/retriever';
import { Bm25Index, ReferenceBm25Retriever, referenceTokenize } from '../../bench/locomo/referenceBm25';
import { evaluate } from '../../bench/locomo/harness';
import { DEFAULT_CONFIG, configs } from '../../bench/locomo/configs';
import { parseArgs, toJson } from '../../bench/locomo/run';

const HAVE_FILE = existsSync(DEFAULT_LOCOMO_PATH);
const SKIP_FILE = HAVE_FILE ? false : `LoCoMo data not found at ${DEFAULT_LOCOMO_PATH} (CC BY-NC, not in the repo): skipped`;

describe('locomo evidence parsing', () => {
  test('canonical dia ids: leading zeros removed, junk rejected', () => {
    assert.equal(canonicalDiaId('D3:12'), 'D3:12');
    assert.equal(canonicalDiaId('D03:007'), 'D3:7');
    assert.equal(canonicalDiaId('D10:0010'), 'D10:10');
    assert.equal(canonicalDiaId(' D2:4 '), 'D2:4');
    for (const junk of ['D:11:26', 'D0:1', 'D1:0', 'd1:2', 'D1', '1:2', 'D1:2:3', 'D1:x', 'S1:2', '', 'D1;2']) {
      assert.equal(canonicalDiaId(junk), null, junk);
    }
  });

  test('splits on ; , and white space, drops ids naming no turn, dedupes', () => {
    const known = new Set(['D1:3', 'D2:4', 'D9:1', 'D4:4', 'D4:6', 'D8:6', 'D9:17']);
    const p = parseEvidence(['D8:6; D9:17', 'D9:1 D4:4\tD4:6', 'D1:3,D02:04', 'D:11:26', 'D4:36', 'D01:3', 'oops', 42], known);
    assert.deepEqual(p.ids, ['D8:6', 'D9:17', 'D9:1', 'D4:4', 'D4:6', 'D1:3', 'D2:4']);
    assert.deepEqual(p.malformed, ['D:11:26', 'oops', '42']);
    assert.deepEqual(p.unknown, ['D4:36']);
    assert.deepEqual(parseEvidence([' ;, ', 'D7:7'], known).ids, []);
    assert.deepEqual(parseEvidence([], known).ids, []);
  });

  test('turn text: speaker prefix and image caption', () => {
    assert.equal(turnText('Mel', 'Hi!'), 'Mel: Hi!');
    assert.equal(turnText('Mel', 'Look', 'a photo of a dog'), 'Mel: Look [image: a photo of a dog]');
    assert.equal(turnText('Mel', 'Look', ''), 'Mel: Look');
  });
});

const SMALL = [
  {
    sample_id: 's1',
    conversation: {
      speaker_a: 'Ann',
      speaker_b: 'Bob',
      session_1_date_time: '1:56 pm on 8 May, 2023',
      session_1: [
        { speaker: 'Ann', dia_id: 'D1:1', text: 'I adopted a puppy.' },
        { speaker: 'Bob', dia_id: 'D1:2', text: 'Cute!', img_url: ['x'], blip_caption: 'a photo of a puppy' },
      ],
      session_2_date_time: '9:00 am on 1 June, 2023',
      session_2: [{ speaker: 'Ann', dia_id: 'D2:1', text: 'The puppy is named Rex.' }],
      session_3_date_time: 'date of a session with no turns list',
    },
    qa: [
      { question: 'What did Ann adopt?', answer: 'a puppy', evidence: ['D1:1'], category: 4 },
      { question: 'Name?', answer: 'Rex', evidence: ['D02:01; D1:1'], category: 1 },
      { question: 'Adversarial', adversarial_answer: 'x', evidence: ['D1:1'], category: 5 },
      { question: 'No evidence', answer: 'x', evidence: [], category: 3 },
      { question: 'Only junk evidence', answer: 2022, evidence: ['D:1:1', 'D5:5'], category: 2 },
    ],
  },
];

describe('locomo data', () => {
  test('documents and scorable questions from a small sample', () => {
    const ds = parseLocomo(structuredClone(SMALL));
    const [s] = ds.samples;
    assert.deepEqual(s!.docs, [
      { id: 'D1:1', text: 'Ann: I adopted a puppy.', date: '1:56 pm on 8 May, 2023', speaker: 'Ann', session: 1 },
      { id: 'D1:2', text: 'Bob: Cute! [image: a photo of a puppy]', date: '1:56 pm on 8 May, 2023', speaker: 'Bob', session: 1 },
      { id: 'D2:1', text: 'Ann: The puppy is named Rex.', date: '9:00 am on 1 June, 2023', speaker: 'Ann', session: 2 },
    ]);
    assert.deepEqual(
      s!.questions.map((q) => [q.index, q.category, q.evidence]),
      [
        [0, 4, ['D1:1']],
        [1, 1, ['D2:1', 'D1:1']],
      ],
    );
    assert.deepEqual(ds.stats, {
      samples: 1,
      turns: 3,
      qaTotal: 5,
      qaOtherCategory: 1,
      qaNoEvidence: 2,
      scorable: 2,
      evidenceMalformed: 1,
      evidenceUnknown: 1,
    });
  });

  test('sessions are ordered numerically, not by key order', () => {
    const raw = structuredClone(SMALL) as any[];
    const conv = raw[0].conversation;
    raw[0].conversation = {
      speaker_a: 'Ann',
      speaker_b: 'Bob',
      session_10: [{ speaker: 'Ann', dia_id: 'D10:1', text: 'ten' }],
      session_2: conv.session_2,
      session_1: conv.session_1,
    };
    raw[0].qa = [];
    assert.deepEqual(
      parseLocomo(raw).samples[0]!.docs.map((d) => d.id),
      ['D1:1', 'D1:2', 'D2:1', 'D10:1'],
    );
  });

  test('malformed files are rejected with a clear message', () => {
    assert.throws(() => parseLocomo({}), /top level must be a JSON array/);
    const bad = (f: (s: any) => void) => {
      const raw = structuredClone(SMALL) as any[];
      f(raw[0]);
      return () => parseLocomo(raw);
    };
    assert.throws(
      bad((s) => delete s.sample_id),
      /"sample_id" must be a string/,
    );
    assert.throws(
      bad((s) => delete s.conversation.session_1[0].dia_id),
      /sample s1 session_1 turn 0: "dia_id" must be a string/,
    );
    assert.throws(
      bad((s) => (s.conversation.session_1[1].dia_id = 'D1:1')),
      /duplicate dia_id D1:1/,
    );
    assert.throws(
      bad((s) => (s.conversation.session_1[1].dia_id = 'turn 2')),
      /is not D<session>:<turn>/,
    );
    assert.throws(
      bad((s) => (s.qa[0].category = 'x')),
      /qa 0: "category" must be an integer/,
    );
    assert.throws(
      bad((s) => (s.qa = null)),
      /"qa" must be a list/,
    );
    assert.throws(() => loadLocomo(path.join(REPO_ROOT, 'no-such-locomo.json')), /cannot read .*no-such-locomo\.json \(ENOENT\)/);
  });

  test('default path is resolved from the repo root', () => {
    assert.equal(DEFAULT_LOCOMO_PATH, path.resolve(REPO_ROOT, '../shared/bench/locomo-dev.json'));
    assert.ok(statSync(path.join(REPO_ROOT, 'package.json')).isFile());
  });
});

describe('locomo metric', () => {
  test('hitAt: any / all within the first k', () => {
    assert.deepEqual(hitAt(['a', 'b'], ['x', 'a', 'y', 'b'], 1), { any: false, all: false });
    assert.deepEqual(hitAt(['a', 'b'], ['x', 'a', 'y', 'b'], 2), { any: true, all: false });
    assert.deepEqual(hitAt(['a', 'b'], ['x', 'a', 'y', 'b'], 4), { any: true, all: true });
    assert.deepEqual(hitAt(['a'], [], 20), { any: false, all: false });
  });

  test('recall_any / recall_all at 1, 5, 10, 20, overall and by category', () => {
    const filler = (n: number) => Array.from({ length: n }, (_, i) => `f${i}`);
    const results = [
      // q1 (cat 1): evidence a at rank 1 → any and all from k = 1
      { question: { category: 1, evidence: ['a'] }, ranked: ['a', ...filler(19)] },
      // q2 (cat 1): b at rank 3, c at rank 8 → any from 5, all from 10
      { question: { category: 1, evidence: ['b', 'c'] }, ranked: ['f0', 'f1', 'b', 'f2', 'f3', 'f4', 'f5', 'c'] },
      // q3 (cat 2): d at rank 15, e missing → any from 20, never all
      { question: { category: 2, evidence: ['d', 'e'] }, ranked: [...filler(14), 'd'] },
      // q4 (cat 4): nothing retrieved
      { question: { category: 4, evidence: ['g'] }, ranked: [] },
    ];
    const r = computeRecall(results);
    assert.equal(r.questions, 4);
    assert.deepEqual(r.recall_any, { '1': 0.25, '5': 0.5, '10': 0.5, '20': 0.75 });
    assert.deepEqual(r.recall_all, { '1': 0.25, '5': 0.25, '10': 0.5, '20': 0.5 });
    assert.deepEqual(Object.keys(r.by_category), ['1', '2', '4']);
    assert.deepEqual(r.by_category['1'], {
      questions: 2,
      recall_any: { '1': 0.5, '5': 1, '10': 1, '20': 1 },
      recall_all: { '1': 0.5, '5': 0.5, '10': 1, '20': 1 },
    });
    assert.deepEqual(r.by_category['2'], {
      questions: 1,
      recall_any: { '1': 0, '5': 0, '10': 0, '20': 1 },
      recall_all: { '1': 0, '5': 0, '10': 0, '20': 0 },
    });
    assert.deepEqual(r.by_category['4']!.recall_any, { '1': 0, '5': 0, '10': 0, '20': 0 });
    // Rounding; only the first k entries count (an id past position k is not a hit).
    assert.equal(computeRecall([...results, results[3]!], { digits: 3 }).recall_any['20'], 0.6);
    assert.equal(computeRecall([{ question: { category: 1, evidence: ['z'] }, ranked: [...filler(20), 'z'] }]).recall_any['20'], 0);
    assert.throws(() => computeRecall([{ question: { category: 1, evidence: [] }, ranked: [] }]), /without evidence/);
    assert.deepEqual(KS, [1, 5, 10, 20]);
    assert.equal(MAX_K, 20);
  });
});

describe('locomo harness', () => {
  test('drives a per-sample retriever: index → search → release → close, warns on bad results', async () => {
    const calls: string[] = [];
    let workDir = '';
    class Fake extends PerSampleRetriever<RetrieverDoc[]> {
      protected async open(sampleId: string, docs: RetrieverDoc[]) {
        calls.push(`open ${sampleId} ${docs.length}`);
        assert.ok(existsSync(workDir));
        return docs;
      }
      protected async query(docs: RetrieverDoc[], query: string, k: number) {
        // Reverse order, plus a repeat and an unknown id for the "Name?" question.
        const ids = [...docs].reverse().map((d) => d.id);
        return query === 'Name?' ? [...ids, ids[0]!, 'D9:9'] : ids.slice(0, k);
      }
      protected async dispose(docs: RetrieverDoc[]) {
        calls.push(`dispose ${docs.length}`);
      }
      override async close() {
        calls.push('close');
        await super.close();
      }
    }
    const ds = parseLocomo(structuredClone(SMALL));
    const e = await evaluate(
      'fake',
      (ctx) => {
        workDir = ctx.workDir;
        return new Fake('fake');
      },
      ds,
      { log: () => {} },
    );
    assert.deepEqual(calls, ['open s1 3', 'dispose 3', 'close']);
    assert.equal(existsSync(workDir), false, 'work dir removed');
    // q0 evidence D1:1 at rank 3; q1 evidence D2:1 (rank 1) + D1:1 (rank 3).
    assert.deepEqual(e.report.recall_any, { '1': 0.5, '5': 1, '10': 1, '20': 1 });
    assert.deepEqual(e.report.recall_all, { '1': 0, '5': 1, '10': 1, '20': 1 });
    assert.equal(e.warnings.length, 2);
    assert.match(e.warnings.join('\n'), /s1#1: repeated ids/);
    assert.match(e.warnings.join('\n'), /s1#1: ids naming no turn: D9:9/);
  });

  test('close runs and the work dir is removed when a step throws', async () => {
    let closed = false;
    let workDir = '';
    await assert.rejects(
      evaluate(
        'boom',
        (ctx) => {
          workDir = ctx.workDir;
          return {
            name: 'boom',
            index: async () => {
              throw new Error('index failed');
            },
            search: async () => [],
            close: async () => {
              closed = true;
            },
          };
        },
        parseLocomo(structuredClone(SMALL)),
        { log: () => {} },
      ),
      /index failed/,
    );
    assert.ok(closed);
    assert.equal(existsSync(workDir), false);
  });

  test('reference BM25 basics', () => {
    assert.deepEqual(referenceTokenize("Caroline's LGBTQ group, 2023!"), ['caroline', 's', 'lgbtq', 'group', '2023']);
    const idx = new Bm25Index([
      { id: 'a', text: 'the cat sat on the mat' },
      { id: 'b', text: 'a dog and a cat' },
      { id: 'c', text: 'dogs bark' },
      { id: 'd', text: 'a dog and a cat' },
    ]);
    assert.deepEqual(idx.search('dog', 10), ['d', 'b'], 'ties: later document first');
    assert.deepEqual(idx.search('the', 10), [], 'stop words only: no results');
    assert.deepEqual(idx.search('mat cat', 1), ['a']);
  });

  test('argument parsing and JSON shape', () => {
    assert.deepEqual(parseArgs(['f.json', '--json', '--configs', 'a,b']), {
      file: 'f.json',
      json: true,
      configs: ['a', 'b'],
      list: false,
      help: false,
    });
    assert.deepEqual(parseArgs(['--configs=a']).configs, ['a']);
    assert.throws(() => parseArgs(['--configs']), /needs a comma-separated list/);
    assert.throws(() => parseArgs(['--bogus']), /unknown option --bogus/);
    assert.ok(Object.hasOwn(configs, DEFAULT_CONFIG));
    const report = {
      ...computeRecall([{ question: { category: 1, evidence: ['a'] }, ranked: ['a'] }]),
      nonsense_queries: 240,
      nonsense_hit_rate: 0.01,
    };
    const j = toJson({ x: { report, timings: { indexMs: 0, searchMs: 0, searchP50Ms: 0 }, warnings: [] } }, 'x');
    assert.deepEqual(Object.keys(j), ['configs', 'default']);
    assert.deepEqual(Object.keys(j.configs['x']!), [
      'questions',
      'recall_any',
      'recall_all',
      'by_category',
      'nonsense_queries',
      'nonsense_hit_rate',
    ]);
    assert.equal(j.default, 'x');
  });
});

describe('locomo on the real file', () => {
  test('2,960 turns and 786 scorable questions', { skip: SKIP_FILE }, () => {
    const ds = loadLocomo();
    assert.equal(ds.stats.samples, 5);
    assert.equal(ds.stats.turns, 2960);
    assert.equal(ds.stats.scorable, 786);
    assert.equal(
      ds.samples.reduce((n, s) => n + s.docs.length, 0),
      2960,
    );
    assert.equal(
      ds.samples.reduce((n, s) => n + s.questions.length, 0),
      786,
    );
    assert.deepEqual(
      ds.samples.map((s) => s.sampleId),
      ['conv-26', 'conv-41', 'conv-43', 'conv-47', 'conv-49'],
    );
    for (const s of ds.samples) for (const d of s.docs) assert.ok(d.date !== '', `${s.sampleId} ${d.id} has a session date`);
  });

  test('reference BM25 reproduces the README table within ±0.005', { skip: SKIP_FILE }, async () => {
    const e = await evaluate('reference-bm25', () => new ReferenceBm25Retriever(), loadLocomo(), { log: () => {}, digits: undefined });
    const readme = { any: { 1: 0.302, 5: 0.561, 10: 0.648, 20: 0.712 }, all: { 1: 0.258, 5: 0.466, 10: 0.531, 20: 0.58 } };
    for (const k of KS) {
      const any = e.report.recall_any[String(k)]!;
      const all = e.report.recall_all[String(k)]!;
      assert.ok(Math.abs(any - readme.any[k]) <= 0.005, `recall_any@${k} = ${any}, README ${readme.any[k]}`);
      assert.ok(Math.abs(all - readme.all[k]) <= 0.005, `recall_all@${k} = ${all}, README ${readme.all[k]}`);
    }
    assert.equal(e.report.questions, 786);
  });

  test('CLI --json prints exactly one JSON object on stdout', { skip: SKIP_FILE }, () => {
    const r = spawnSync(
      process.execPath,
      ['--import', 'tsx', path.join(REPO_ROOT, 'bench/locomo/run.ts'), '--json', '--configs', 'reference-bm25'],
      {
        cwd: path.join(REPO_ROOT, 'test'), // the default file is found from the repo root, not the cwd
        encoding: 'utf8',
        env: { ...process.env, NODE_OPTIONS: '' },
      },
    );
    assert.equal(r.status, 0, r.stderr);
    const out = r.stdout.trim();
    assert.equal(out.split('\n').length, 1);
    const j = JSON.parse(out);
    assert.equal(j.default, DEFAULT_CONFIG);
    assert.equal(j.configs['reference-bm25'].questions, 786);
    assert.deepEqual(Object.keys(j.configs['reference-bm25'].by_category), ['1', '2', '3', '4']);
    assert.match(r.stderr, /reference-bm25/);

    const bad = spawnSync(
      process.execPath,
      ['--import', 'tsx', path.join(REPO_ROOT, 'bench/locomo/run.ts'), '--json', '--configs', 'nope'],
      {
        encoding: 'utf8',
        env: { ...process.env, NODE_OPTIONS: '' },
      },
    );
    assert.equal(bad.status, 2);
    assert.equal(bad.stdout, '');
    assert.match(bad.stderr, /unknown config nope \(known: .*reference-bm25/);
  });
});
