import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { stringify } from 'yaml';
import {
  applyOverrides,
  CONFIG_SCHEMA,
  CONFIG_SECTIONS,
  configChangedAt,
  defaultConfig,
  findConfigFile,
  formatByteSize,
  formatDurationMs,
  formatIssue,
  formatValue,
  getConfigValue,
  isRanged,
  loadConfigFile,
  loadProjectConfig,
  maintenanceScheduled,
  parseByteSize,
  parseConfig,
  parseDurationMs,
  pipelineMode,
  specFor,
  type ConfigIssue,
  type ConfigKeySpec,
  type ResolvedConfig,
} from '../../../src/core/config/index.js';

// ── helpers ──────────────────────────────────────────────────────────────────────────────

/** `{ 'a.b.c': 1 }` → `{ a: { b: { c: 1 } } }` */
function nest(flat: Record<string, unknown>): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  for (const [path, value] of Object.entries(flat)) {
    const parts = path.split('.');
    let node = root;
    for (const p of parts.slice(0, -1)) node = (node[p] ??= {}) as Record<string, unknown>;
    node[parts[parts.length - 1] as string] = value;
  }
  return root;
}

/** agent.yaml text with the given dotted keys, nested as a person would write them. */
function yamlOf(flat: Record<string, unknown>): string {
  return stringify(nest(flat));
}

const get = (cfg: ResolvedConfig, path: string): unknown => getConfigValue(cfg, path);
const errors = (issues: ConfigIssue[]) => issues.filter((i) => i.severity === 'error');
const warnings = (issues: ConfigIssue[]) => issues.filter((i) => i.severity === 'warning');
const P = 'memory.pipelineV2';

/** Keys that must move along so a boundary value of another key does not break a cross-field rule. */
const COMPANIONS: Record<string, Record<string, unknown>> = {
  [`${P}.documentChunkOverlap`]: { [`${P}.documentChunkSize`]: 50_000 },
  [`${P}.documentChunkSize`]: { [`${P}.documentChunkOverlap`]: 0 },
  'search.default_limit': { 'search.max_limit': 1000 },
  'search.max_limit': { 'search.default_limit': 1 },
  'memory.auto_merge_threshold': { 'memory.similarity_threshold': 0 },
  'memory.similarity_threshold': { 'memory.auto_merge_threshold': 1 },
};

function withCompanions(path: string, value: unknown): Record<string, unknown> {
  return { ...(COMPANIONS[path] ?? {}), [path]: value };
}

// ── the schema table ─────────────────────────────────────────────────────────────────────

describe('CONFIG_SCHEMA', () => {
  test('paths are unique and every default is valid for its own entry', () => {
    const paths = CONFIG_SCHEMA.map((s) => s.path);
    assert.equal(new Set(paths).size, paths.length);
    for (const spec of CONFIG_SCHEMA) {
      assert.ok(spec.description.length > 10, `${spec.path} has a description`);
      if (isRanged(spec)) {
        assert.ok(spec.min <= spec.default && spec.default <= spec.max, `${spec.path} default within range`);
        assert.ok(spec.unit, `${spec.path} has a unit`);
      }
      if (spec.type === 'enum') assert.ok(spec.values.includes(spec.default), `${spec.path} default is allowed`);
    }
    // The defaults satisfy every rule, individually and together.
    const { issues } = applyOverrides(defaultConfig(), Object.fromEntries(CONFIG_SCHEMA.map((s) => [s.path, s.default])));
    assert.deepEqual(issues, []);
  });

  test('every leaf of the default configuration has exactly one entry, and sections are known', () => {
    const leaves: string[] = [];
    const visit = (node: unknown, prefix: string) => {
      for (const [k, v] of Object.entries(node as Record<string, unknown>)) {
        const path = prefix ? `${prefix}.${k}` : k;
        if (v !== null && typeof v === 'object' && !Array.isArray(v)) visit(v, path);
        else leaves.push(path); // a list (webhooks.endpoints) is one value
      }
    };
    visit(defaultConfig(), '');
    assert.deepEqual([...leaves].sort(), CONFIG_SCHEMA.map((s) => s.path).sort());
    assert.deepEqual([...CONFIG_SECTIONS].sort(), [
      'embedding',
      'memory',
      'memory.pipelineV2',
      'search',
      'store',
      'team',
      'vector',
      'webhooks',
    ]);
  });

  test('memory.pipelineV2 matches docs/configuration.md exactly', () => {
    // [key, default, min, max] — copied from the seed, not from the schema.
    const seed: Array<[string, unknown, number?, number?]> = [
      ['enabled', false],
      ['shadowMode', false],
      ['allowUpdateDelete', false],
      ['graphEnabled', false],
      ['autonomousEnabled', false],
      ['mutationsFrozen', false],
      ['autonomousFrozen', false],
      ['extractionModel', 'qwen3:4b'],
      ['extractionTimeout', 45000, 5000, 300000],
      ['workerPollMs', 2000, 100, 60000],
      ['workerMaxRetries', 3, 1, 10],
      ['leaseTimeoutMs', 300000, 10000, 600000],
      ['minFactConfidenceForWrite', 0.7, 0, 1],
      ['graphBoostWeight', 0.15, 0, 1],
      ['graphBoostTimeoutMs', 500, 50, 5000],
      ['rerankerEnabled', false],
      ['rerankerModel', ''],
      ['rerankerTopN', 20, 1, 100],
      ['rerankerTimeoutMs', 2000, 100, 30000],
      ['maintenanceIntervalMs', 1800000, 60000, 86400000],
      ['maintenanceMode', 'observe'],
      ['repairReembedCooldownMs', 300000, 10000, 3600000],
      ['repairReembedHourlyBudget', 10, 1, 1000],
      ['repairRequeueCooldownMs', 60000, 5000, 3600000],
      ['repairRequeueHourlyBudget', 50, 1, 1000],
      ['documentWorkerIntervalMs', 10000, 1000, 300000],
      ['documentChunkSize', 2000, 200, 50000],
      ['documentChunkOverlap', 200, 0, 10000],
      ['documentMaxContentBytes', 10485760, 1024, 104857600],
    ];
    const cfg = defaultConfig();
    for (const [key, def, min, max] of seed) {
      const spec = specFor(`${P}.${key}`);
      assert.ok(spec, key);
      assert.equal(spec.default, def, `${key} default`);
      assert.equal(get(cfg, `${P}.${key}`), def, `${key} resolved default`);
      if (min !== undefined) {
        assert.ok(isRanged(spec));
        assert.equal(spec.min, min, `${key} min`);
        assert.equal(spec.max, max, `${key} max`);
      }
    }
    const mode = specFor(`${P}.maintenanceMode`);
    assert.ok(mode?.type === 'enum');
    assert.deepEqual([...mode.values], ['observe', 'execute']);
  });

  test('smart-store tunables, embedding, vector, store and retention defaults', () => {
    const expected: Record<string, unknown> = {
      'memory.default_ttl': 86400,
      'memory.promote_access_count': 5,
      'memory.promote_importance': 0.8,
      'memory.ttl_extend_factor': 0.5,
      'memory.cleanup_interval': 5 * 60_000,
      'memory.normalize_project_id': true,
      'memory.similarity_threshold': 0.75,
      'memory.auto_merge_threshold': 0.92,
      'memory.dedup_scan_interval': 3_600_000,
      'memory.merge_strategy': 'smart_merge',
      'search.vector_weight': 0.5,
      'search.keyword_weight': 0.5,
      'search.default_limit': 20,
      'search.max_limit': 100,
      'search.min_score': 0,
      'embedding.provider': 'auto',
      'embedding.model': 'nomic-embed-text',
      'embedding.ollama_url': 'http://127.0.0.1:11434',
      'vector.M': 16,
      'vector.efConstruction': 100,
      'vector.efSearch': 50,
      'store.snapshotLogBytes': 8 * 1024 * 1024,
      [`${P}.ollamaUrl`]: 'http://127.0.0.1:11434',
      [`${P}.tombstoneRetentionMs`]: 30 * 86_400_000,
      [`${P}.historyRetentionMs`]: 180 * 86_400_000,
      [`${P}.completedJobRetentionMs`]: 14 * 86_400_000,
      [`${P}.deadJobRetentionMs`]: 30 * 86_400_000,
      [`${P}.retentionIntervalMs`]: 6 * 3_600_000,
    };
    const cfg = defaultConfig();
    for (const [path, value] of Object.entries(expected)) assert.equal(get(cfg, path), value, path);
    assert.equal(cfg.memory.pipelineV2.ollamaUrl, 'http://127.0.0.1:11434');
    const merge = specFor('memory.merge_strategy');
    assert.ok(merge?.type === 'enum');
    assert.deepEqual([...merge.values], ['latest_wins', 'append', 'smart_merge']);
    const provider = specFor('embedding.provider');
    assert.ok(provider?.type === 'enum');
    assert.deepEqual([...provider.values], ['auto', 'ollama', 'builtin', 'hash']);
    assert.equal(specFor('memory.default_ttl')?.type, 'duration');
    assert.equal((specFor('memory.default_ttl') as { unit: string }).unit, 's');
  });
});

// ── defaults ─────────────────────────────────────────────────────────────────────────────

describe('defaults', () => {
  test('an empty file, blank lines, comments only or a bare document marker give all defaults and no issues', () => {
    for (const text of ['', '\n\n', '# nothing here\n  # indented comment\n', '---\n', '~\n']) {
      const r = parseConfig(text, 'agent.yaml');
      assert.deepEqual(r.issues, [], JSON.stringify(text));
      assert.deepEqual(r.config, defaultConfig());
    }
  });

  test('absent keys take defaults; present ones are used', () => {
    const r = parseConfig(`memory:\n  pipelineV2:\n    enabled: true\n    graphEnabled: true\n    minFactConfidenceForWrite: 0.75\n`);
    assert.deepEqual(r.issues, []);
    assert.equal(r.config.memory.pipelineV2.enabled, true);
    assert.equal(r.config.memory.pipelineV2.graphEnabled, true);
    assert.equal(r.config.memory.pipelineV2.minFactConfidenceForWrite, 0.75);
    assert.equal(r.config.memory.pipelineV2.workerPollMs, 2000);
    assert.equal(r.config.search.max_limit, 100);
  });

  test('the seed examples parse cleanly', () => {
    const examples = [
      'memory:\n  pipelineV2:\n    enabled: true\n    shadowMode: true\n',
      'memory:\n  pipelineV2:\n    enabled: true\n    graphEnabled: true\n    minFactConfidenceForWrite: 0.75\n',
      'memory:\n  pipelineV2:\n    enabled: true\n    autonomousEnabled: true\n    maintenanceMode: execute\n',
    ];
    const modes = examples.map((t) => {
      const r = parseConfig(t);
      assert.deepEqual(r.issues, []);
      return pipelineMode(r.config);
    });
    assert.deepEqual(modes, ['shadow', 'controlled', 'controlled']);
  });

  test('resolved configurations are deep-frozen', () => {
    const r = parseConfig('search:\n  max_limit: 50\n');
    for (const obj of [r.config, r.config.memory, r.config.memory.pipelineV2, r.config.search, r.config.store, defaultConfig()]) {
      assert.ok(Object.isFrozen(obj));
    }
    assert.throws(() => {
      (r.config.search as { max_limit: number }).max_limit = 1;
    }, TypeError);
    assert.throws(() => {
      (defaultConfig().memory.pipelineV2 as { enabled: boolean }).enabled = true;
    }, TypeError);
  });
});

// ── ranges ───────────────────────────────────────────────────────────────────────────────

describe('range boundaries', () => {
  const cases: Array<[string, Array<number | string>, Array<number | string>]> = [
    // [key, accepted, rejected]
    [`${P}.workerPollMs`, [100, 60000, '100ms', '1m'], [99, 60001, '99ms', '61s']],
    [`${P}.extractionTimeout`, [5000, 300000, '5s', '5m'], [4999, 300001, '4s', '6m']],
    [`${P}.workerMaxRetries`, [1, 10], [0, 11, 2.5]],
    [`${P}.leaseTimeoutMs`, [10000, 600000], [9999, 600001]],
    [`${P}.minFactConfidenceForWrite`, [0, 1, 0.5], [-0.01, 1.01]],
    [`${P}.graphBoostWeight`, [0, 1], [-0.0001, 1.0001]],
    [`${P}.rerankerTopN`, [1, 100], [0, 101]],
    [`${P}.maintenanceIntervalMs`, [60000, 86400000, '1d'], [59999, 86400001, '25h']],
    [`${P}.documentChunkOverlap`, [0, 1999], [-1]],
    [`${P}.documentMaxContentBytes`, [1024, 104857600, '1KiB', '100MiB', '10MB'], [1023, 104857601, '101MiB']],
    [`${P}.tombstoneRetentionMs`, ['1h', '3650d'], ['59m', '3651d']],
    ['memory.default_ttl', [60, 31536000, '1m', '365d', '1d'], [59, 31536001, '59s', '366d']],
    ['memory.ttl_extend_factor', [0, 10], [-1, 10.5]],
    ['memory.promote_access_count', [1, 1000], [0, 1001]],
    ['search.default_limit', [1, 100], [0]],
    ['search.min_score', [0, 1], [-0.1, 1.1]],
    ['vector.M', [4, 64], [3, 65]],
    ['store.snapshotLogBytes', ['64KiB', '1GiB', 65536], ['63KiB', 65535, '1025MiB']],
  ];
  for (const [key, good, bad] of cases) {
    test(key, () => {
      const spec = specFor(key);
      assert.ok(spec);
      for (const v of good) {
        const r = parseConfig(yamlOf({ [key]: v }), 'agent.yaml');
        assert.deepEqual(errors(r.issues), [], `${key}: ${v} accepted`);
      }
      for (const v of bad) {
        const r = parseConfig(yamlOf({ [key]: v }), 'agent.yaml');
        const errs = errors(r.issues);
        assert.equal(errs.length, 1, `${key}: ${v} rejected`);
        const e = errs[0] as ConfigIssue;
        assert.equal(e.key, key);
        assert.equal(e.value, v);
        assert.ok(e.allowed, 'the allowed range is given');
        assert.equal(e.source, 'agent.yaml');
        assert.ok(e.message.includes(key), e.message);
        assert.equal(get(r.config, key), spec.default, 'the default is used');
      }
    });
  }

  test('accepted values are converted into the key unit', () => {
    const r = parseConfig(
      yamlOf({
        [`${P}.workerPollMs`]: '250ms',
        [`${P}.extractionTimeout`]: '30s',
        [`${P}.maintenanceIntervalMs`]: '1h',
        [`${P}.documentMaxContentBytes`]: '10MB',
        'memory.default_ttl': '2h',
        'memory.cleanup_interval': '5m',
        'memory.dedup_scan_interval': '1h30m',
        'store.snapshotLogBytes': '16MiB',
      }),
    );
    assert.deepEqual(r.issues, []);
    const p = r.config.memory.pipelineV2;
    assert.equal(p.workerPollMs, 250);
    assert.equal(p.extractionTimeout, 30_000);
    assert.equal(p.maintenanceIntervalMs, 3_600_000);
    assert.equal(p.documentMaxContentBytes, 10 * 1024 * 1024);
    assert.equal(r.config.memory.default_ttl, 7200);
    assert.equal(r.config.memory.cleanup_interval, 300_000);
    assert.equal(r.config.memory.dedup_scan_interval, 5_400_000);
    assert.equal(r.config.store.snapshotLogBytes, 16 * 1024 * 1024);
  });

  test('every ranged key: min and max accepted, min-1 and max+1 rejected with the default kept (file and overrides)', () => {
    let checked = 0;
    for (const spec of CONFIG_SCHEMA) {
      if (!isRanged(spec)) continue;
      checked++;
      for (const edge of [spec.min, spec.max]) {
        const r = parseConfig(yamlOf(withCompanions(spec.path, edge)));
        assert.deepEqual(errors(r.issues), [], `${spec.path} = ${edge} accepted`);
        assert.equal(get(r.config, spec.path), edge);
        const o = applyOverrides(defaultConfig(), withCompanions(spec.path, edge));
        assert.deepEqual(errors(o.issues), [], `${spec.path} = ${edge} accepted as override`);
        assert.equal(get(o.config, spec.path), edge);
      }
      for (const out of [spec.min - 1, spec.max + 1]) {
        const r = parseConfig(yamlOf({ [spec.path]: out }), 'agent.yaml');
        const errs = errors(r.issues);
        assert.equal(errs.length, 1, `${spec.path} = ${out} rejected`);
        const e = errs[0] as ConfigIssue;
        assert.equal(e.key, spec.path);
        assert.equal(e.value, out);
        assert.match(e.message, out < spec.min ? /below the minimum/ : /above the maximum/);
        // A duration's range reads as durations ("from 1m to 365d"); other ranges as numbers.
        const shown = (n: number) => (spec.type === 'duration' ? formatValue(spec, n) : String(n));
        assert.ok(e.allowed?.includes(shown(spec.min)) && e.allowed.includes(shown(spec.max)), e.allowed);
        assert.equal(typeof e.line, 'number', 'value issues carry a line');
        assert.equal(typeof e.column, 'number', 'value issues carry a column');
        assert.equal(get(r.config, spec.path), spec.default);

        const o = applyOverrides(defaultConfig(), { [spec.path]: out }, 'settings');
        assert.equal(errors(o.issues).length, 1);
        assert.equal(errors(o.issues)[0]?.source, 'settings');
        assert.equal(get(o.config, spec.path), spec.default);
      }
    }
    assert.ok(checked >= 40, `checked ${checked} ranged keys`);
  });

  test('every key rejects values of the wrong type and keeps its default', () => {
    const wrongFor = (spec: ConfigKeySpec): unknown[] => {
      switch (spec.type) {
        case 'boolean':
          return ['true', 1, 'yes', [true], { a: 1 }];
        case 'integer':
        case 'number':
          return ['5', true, [1], { v: 1 }];
        case 'duration':
          return ['soon', true, [1], { ms: 1 }, '5 minutes', '-5s', '1.5ms'];
        case 'bytes':
          return ['big', true, [1], '5 parsecs'];
        case 'string':
          return [42, true, ['a'], { a: 'b' }];
        case 'enum':
          return ['nope', 1, true, ['observe']];
        case 'url':
          return [11434, 'localhost:11434', 'ftp://127.0.0.1:21', 'not a url', 'http://127.0.0.1:11434/?x=1'];
        case 'webhooks':
          return [
            'http://127.0.0.1:9000/hook',
            { name: 'ci', url: 'http://127.0.0.1:9000/hook' },
            [{ url: 'http://127.0.0.1:9000/hook' }],
            [{ name: 'ci', url: 'ftp://127.0.0.1/hook' }],
            [{ name: 'ci', url: 'http://user:pw@127.0.0.1/hook' }],
            [{ name: 'ci', url: 'http://127.0.0.1/hook', events: ['memory.create'] }],
            [{ name: 'ci', url: 'http://127.0.0.1/hook', secret: 'x' }],
            [
              { name: 'ci', url: 'http://127.0.0.1/a' },
              { name: 'ci', url: 'http://127.0.0.1/b' },
            ],
          ];
      }
    };
    for (const spec of CONFIG_SCHEMA) {
      for (const bad of wrongFor(spec)) {
        const r = parseConfig(yamlOf({ [spec.path]: bad }), 'agent.yaml');
        const errs = errors(r.issues);
        assert.equal(errs.length, 1, `${spec.path} = ${JSON.stringify(bad)} rejected`);
        assert.equal(errs[0]?.key, spec.path);
        assert.deepEqual(errs[0]?.value, bad);
        assert.ok(errs[0]?.allowed);
        assert.deepEqual(get(r.config, spec.path), spec.default);
      }
    }
  });
});

// ── types, values, positions ─────────────────────────────────────────────────────────────

describe('values', () => {
  test('wrong types name the key, the value and what is allowed', () => {
    const r = parseConfig(
      `memory:\n  pipelineV2:\n    enabled: yes\n    workerPollMs: fast\n    rerankerTopN: "20"\n    extractionModel: 7\n`,
      'agent.yaml',
    );
    const byKey = new Map(r.issues.map((i) => [i.key, i]));
    const enabled = byKey.get(`${P}.enabled`);
    assert.equal(enabled?.severity, 'error');
    assert.equal(enabled?.value, 'yes');
    assert.equal(enabled?.allowed, 'true or false');
    assert.match(enabled?.message ?? '', /write true or false/);
    assert.deepEqual([enabled?.line, enabled?.column], [3, 14]);
    assert.match(byKey.get(`${P}.workerPollMs`)?.message ?? '', /not a valid duration/);
    assert.match(byKey.get(`${P}.rerankerTopN`)?.message ?? '', /expected a number, got the string "20"/);
    assert.match(byKey.get(`${P}.extractionModel`)?.message ?? '', /expected a string/);
    assert.equal(r.config.memory.pipelineV2.enabled, false);
    assert.equal(r.config.memory.pipelineV2.extractionModel, 'qwen3:4b');
  });

  test('enum values: exact match only, with a suggestion for near misses', () => {
    const ok = parseConfig('memory:\n  merge_strategy: append\n');
    assert.deepEqual(ok.issues, []);
    assert.equal(ok.config.memory.merge_strategy, 'append');
    const r = parseConfig('memory:\n  pipelineV2:\n    maintenanceMode: Execute\n  merge_strategy: smartmerge\n');
    assert.equal(errors(r.issues).length, 2);
    assert.match(r.issues[0]?.message ?? '', /did you mean "execute"\?/);
    assert.match(r.issues[1]?.message ?? '', /did you mean "smart_merge"\?/);
    assert.equal(r.issues[0]?.allowed, 'one of: observe, execute');
    assert.equal(r.config.memory.pipelineV2.maintenanceMode, 'observe');
  });

  test('a key with no value is a warning and keeps the default', () => {
    const r = parseConfig('memory:\n  pipelineV2:\n    extractionModel:\n    enabled: ~\n');
    assert.equal(errors(r.issues).length, 0);
    assert.deepEqual(
      warnings(r.issues).map((i) => i.key),
      [`${P}.extractionModel`, `${P}.enabled`],
    );
    assert.equal(r.config.memory.pipelineV2.extractionModel, 'qwen3:4b');
  });

  test('strings are trimmed; required strings must not be empty; reranker model may be empty', () => {
    const r = parseConfig(
      `memory:\n  pipelineV2:\n    extractionModel: "  llama3.2:3b  "\n    rerankerModel: ""\nembedding:\n  model: "   "\n`,
    );
    assert.equal(r.config.memory.pipelineV2.extractionModel, 'llama3.2:3b');
    assert.equal(r.config.memory.pipelineV2.rerankerModel, '');
    assert.deepEqual(
      errors(r.issues).map((i) => i.key),
      ['embedding.model'],
    );
    assert.equal(r.config.embedding.model, 'nomic-embed-text');
  });

  test('URLs always resolve with an explicit port and no trailing slash', () => {
    const cases: Array<[string, string, boolean]> = [
      ['http://127.0.0.1:11434', 'http://127.0.0.1:11434', false],
      ['http://127.0.0.1:11434/', 'http://127.0.0.1:11434', false],
      ['http://localhost:80', 'http://localhost:80', false],
      ['https://ollama.example.com', 'https://ollama.example.com:443', false],
      ['https://ollama.example.com/proxy/', 'https://ollama.example.com:443/proxy', false],
      ['http://[::1]:11434', 'http://[::1]:11434', false],
      ['http://localhost', 'http://localhost:80', true], // no port: warn, port 80 is what the client uses
    ];
    for (const [input, resolved, warns] of cases) {
      const r = parseConfig(yamlOf({ 'embedding.ollama_url': input, [`${P}.ollamaUrl`]: input }));
      assert.equal(errors(r.issues).length, 0, input);
      assert.equal(warnings(r.issues).length, warns ? 2 : 0, input);
      assert.equal(r.config.embedding.ollama_url, resolved);
      assert.equal(r.config.memory.pipelineV2.ollamaUrl, resolved);
    }
  });

  test('durations and sizes that are not whole units are rejected', () => {
    const r = parseConfig(
      yamlOf({ 'memory.default_ttl': '90500ms', [`${P}.workerPollMs`]: 150.5, [`${P}.documentMaxContentBytes`]: '1.1KiB' }),
    );
    assert.deepEqual(
      errors(r.issues)
        .map((i) => i.key)
        .sort(),
      ['memory.default_ttl', `${P}.documentMaxContentBytes`, `${P}.workerPollMs`].sort(),
    );
    assert.match(r.issues.find((i) => i.key === 'memory.default_ttl')?.message ?? '', /whole number of seconds/);
  });

  test('non-finite numbers are rejected', () => {
    const r = parseConfig(`search:\n  min_score: .nan\n  max_limit: .inf\n`);
    assert.deepEqual(
      errors(r.issues).map((i) => i.key),
      ['search.min_score', 'search.max_limit'],
    );
    assert.equal(r.config.search.min_score, 0);
    assert.equal(r.config.search.max_limit, 100);
  });

  test('value issues point at the value; unknown keys at the key', () => {
    const text = ['search:', '  max_limit: 5000', '  colour: blue', 'memory:', '  pipelineV2:', '    workerPollMs:    10'].join('\n');
    const r = parseConfig(text, 'agent.yaml');
    const max = r.issues.find((i) => i.key === 'search.max_limit');
    assert.deepEqual([max?.line, max?.column], [2, 14]);
    const colour = r.issues.find((i) => i.key === 'search.colour');
    assert.deepEqual([colour?.severity, colour?.line, colour?.column], ['warning', 3, 3]);
    const poll = r.issues.find((i) => i.key === `${P}.workerPollMs`);
    assert.deepEqual([poll?.line, poll?.column], [6, 22]);
    assert.equal(
      formatIssue(max as ConfigIssue).startsWith('agent.yaml:2:14: error: search.max_limit: 5000 is above the maximum 1000'),
      true,
    );
  });

  test('anchors and aliases, dotted-key shorthand and a byte-order mark are understood', () => {
    const text = '\uFEFFtimeouts: &t 3000\nsearch:\n  default_limit: 10\nmemory.pipelineV2.enabled: true\nvector:\n  efSearch: 64\n';
    const r = parseConfig(text);
    assert.deepEqual(errors(r.issues), []);
    assert.deepEqual(
      r.issues.map((i) => i.key),
      ['timeouts'],
    ); // unknown top-level key: warning
    assert.equal(r.config.memory.pipelineV2.enabled, true);
    assert.equal(r.config.search.default_limit, 10);
    assert.equal(r.config.vector.efSearch, 64);
    const aliased = parseConfig('memory:\n  pipelineV2:\n    rerankerTimeoutMs: &t 3000\n    graphBoostTimeoutMs: *t\n');
    assert.deepEqual(aliased.issues, []);
    assert.equal(aliased.config.memory.pipelineV2.graphBoostTimeoutMs, 3000);
  });

  test('a key set twice: warning, the last value wins', () => {
    const r = parseConfig('search:\n  max_limit: 50\n  max_limit: 60\n');
    assert.deepEqual(errors(r.issues), []);
    assert.equal(r.config.search.max_limit, 60);
    assert.equal(warnings(r.issues)[0]?.key, 'search.max_limit');
    assert.match(warnings(r.issues)[0]?.message ?? '', /first set at line 2/);
  });

  test('a section that is not a mapping is an error; its keys keep their defaults', () => {
    const r = parseConfig('memory:\n  pipelineV2: true\nsearch: []\n');
    assert.deepEqual(
      errors(r.issues).map((i) => i.key),
      ['memory.pipelineV2', 'search'],
    );
    assert.deepEqual(r.config, defaultConfig());
    const empty = parseConfig('memory:\n  pipelineV2:\nsearch:\n');
    assert.deepEqual(empty.issues, []);
  });

  test('a document that is not a mapping is an error and gives defaults', () => {
    for (const text of ['- a\n- b\n', 'just text\n', '42\n']) {
      const r = parseConfig(text, 'agent.yaml');
      assert.equal(errors(r.issues).length, 1, text);
      assert.equal(r.issues[0]?.key, '');
      assert.deepEqual(r.config, defaultConfig());
    }
  });

  test('parseConfig never throws, whatever the input', () => {
    let seed = 7;
    const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const alphabet = 'memory:pipelineV2 enabled\n\t -[]{}&*!|>\'"#%@`,?0123456789.';
    for (let n = 0; n < 300; n++) {
      let text = '';
      const len = Math.floor(rnd() * 120);
      for (let i = 0; i < len; i++) text += alphabet[Math.floor(rnd() * alphabet.length)];
      const r = parseConfig(text);
      assert.ok(r.config);
      assert.ok(Array.isArray(r.issues));
    }
  });
});

// ── unknown keys ─────────────────────────────────────────────────────────────────────────

describe('unknown keys', () => {
  const cases: Array<[string, string, string | undefined]> = [
    // [yaml, reported key, suggestion]
    ['memory:\n  pipelineV2:\n    enabeld: true\n', `${P}.enabeld`, `${P}.enabled`],
    ['memory:\n  pipelineV2:\n    workerPollMS: 500\n', `${P}.workerPollMS`, `${P}.workerPollMs`],
    ['memory:\n  pipelinev2:\n    enabled: true\n', 'memory.pipelinev2', 'memory.pipelineV2'],
    ['search:\n  vectorWeight: 0.5\n', 'search.vectorWeight', 'search.vector_weight'],
    ['search:\n  max_limt: 5\n', 'search.max_limt', 'search.max_limit'],
    ['serch:\n  max_limit: 5\n', 'serch', 'search'],
    ['memory:\n  enabled: true\n', 'memory.enabled', `${P}.enabled`],
    ['vector:\n  m: 8\n', 'vector.m', 'vector.M'],
    ['embedding:\n  ollamaUrl: http://127.0.0.1:11434\n', 'embedding.ollamaUrl', 'embedding.ollama_url'],
    ['completely_unrelated_setting: 1\n', 'completely_unrelated_setting', undefined],
  ];
  for (const [text, key, hint] of cases) {
    test(`${key} → ${hint ?? 'no suggestion'}`, () => {
      const r = parseConfig(text, 'agent.yaml');
      assert.equal(r.issues.length, 1);
      const w = r.issues[0] as ConfigIssue;
      assert.equal(w.severity, 'warning');
      assert.equal(w.key, key);
      assert.ok(w.message.includes(key), w.message);
      if (hint) assert.ok(w.message.includes(`did you mean ${hint}?`), w.message);
      else assert.doesNotMatch(w.message, /did you mean/);
      assert.equal(typeof w.line, 'number');
      assert.deepEqual(r.config, defaultConfig(), 'unknown keys change nothing');
    });
  }
});

// ── YAML syntax errors ───────────────────────────────────────────────────────────────────

describe('YAML syntax errors', () => {
  test('name line and column; the file is ignored', () => {
    const text = 'memory:\n  pipelineV2:\n    enabled: true\n    workerPollMs: [1, 2\n';
    const r = parseConfig(text, 'agent.yaml');
    assert.ok(errors(r.issues).length >= 1);
    const e = r.issues[0] as ConfigIssue;
    assert.equal(e.severity, 'error');
    assert.equal(e.source, 'agent.yaml');
    assert.equal(typeof e.line, 'number');
    assert.equal(typeof e.column, 'number');
    assert.match(e.message, new RegExp(`line ${e.line}, column ${e.column}`));
    assert.equal(r.config.memory.pipelineV2.enabled, false, 'nothing of a broken file is applied');
  });

  test('exact positions', () => {
    const cases: Array<[string, number, number]> = [
      ['memory:\n  pipelineV2:\n    enabled: true\n   bad: 1\n', 4, 1],
      ['search:\n  max_limit: "50\n', 3, 1],
      ['search:\n\t- max_limit: 5\n', 2, 1],
      ['a: 1\n---\nb: 2\n', 2, 1],
    ];
    for (const [text, line, column] of cases) {
      const e = parseConfig(text).issues[0];
      assert.equal(e?.severity, 'error', text);
      assert.deepEqual([e?.line, e?.column], [line, column], text);
    }
  });
});

// ── durations and sizes ──────────────────────────────────────────────────────────────────

describe('durations and sizes', () => {
  test('parseDurationMs', () => {
    const good: Array<[string, number]> = [
      ['250ms', 250],
      ['30s', 30_000],
      ['5m', 300_000],
      ['1h', 3_600_000],
      ['7d', 604_800_000],
      ['2w', 1_209_600_000],
      ['1h30m', 5_400_000],
      ['1h 30m', 5_400_000],
      ['1.5h', 5_400_000],
      [' 10 s ', 10_000],
      ['0s', 0],
    ];
    for (const [text, ms] of good) assert.equal(parseDurationMs(text), ms, text);
    for (const bad of ['', 'm5', '5', '5x', '-5s', '5 minutes', '1h-30m', 'h', '5S', '.5s']) {
      assert.equal(parseDurationMs(bad), undefined, bad);
    }
  });

  test('formatDurationMs', () => {
    assert.equal(formatDurationMs(250), '250ms');
    assert.equal(formatDurationMs(300_000), '5m');
    assert.equal(formatDurationMs(5_400_000), '1h30m');
    assert.equal(formatDurationMs(30 * 86_400_000), '30d');
    assert.equal(formatDurationMs(0), '0s');
    for (const ms of [1, 999, 61_001, 86_399_999]) assert.equal(parseDurationMs(formatDurationMs(ms)), ms);
  });

  test('bare numbers in a duration key are read in the key unit', () => {
    const r = parseConfig(yamlOf({ 'memory.default_ttl': 3600, [`${P}.workerPollMs`]: 3600, 'memory.cleanup_interval': '60000' }));
    assert.deepEqual(r.issues, []);
    assert.equal(r.config.memory.default_ttl, 3600); // seconds
    assert.equal(r.config.memory.pipelineV2.workerPollMs, 3600); // milliseconds
    assert.equal(r.config.memory.cleanup_interval, 60_000);
  });

  test('byte sizes', () => {
    assert.equal(parseByteSize('8MiB'), 8 * 1024 * 1024);
    assert.equal(parseByteSize('10MB'), 10_485_760);
    assert.equal(parseByteSize('512 kb'), 512 * 1024);
    assert.equal(parseByteSize('1GiB'), 1024 ** 3);
    assert.equal(parseByteSize('4096'), 4096);
    assert.equal(parseByteSize('12 parsecs'), undefined);
    assert.equal(parseByteSize('-1MiB'), undefined);
    assert.equal(formatByteSize(10_485_760), '10MiB');
    assert.equal(formatByteSize(1000), '1000B');
  });
});

// ── cross-field rules ────────────────────────────────────────────────────────────────────

describe('cross-field checks', () => {
  test('auto_merge_threshold below similarity_threshold: both set → both back to defaults', () => {
    const r = parseConfig('memory:\n  similarity_threshold: 0.9\n  auto_merge_threshold: 0.8\n', 'agent.yaml');
    const errs = errors(r.issues);
    assert.equal(errs.length, 1);
    assert.equal(errs[0]?.key, 'memory.auto_merge_threshold');
    assert.equal(errs[0]?.value, 0.8);
    assert.equal(errs[0]?.line, 3);
    assert.match(errs[0]?.message ?? '', /must be at least memory\.similarity_threshold/);
    assert.equal(r.config.memory.similarity_threshold, 0.75);
    assert.equal(r.config.memory.auto_merge_threshold, 0.92);
  });

  test('only similarity_threshold set above the default auto-merge threshold → it is reset', () => {
    const r = parseConfig('memory:\n  similarity_threshold: 0.95\n');
    assert.equal(errors(r.issues)[0]?.key, 'memory.similarity_threshold');
    assert.equal(r.config.memory.similarity_threshold, 0.75);
    assert.equal(r.config.memory.auto_merge_threshold, 0.92);
  });

  test('equal thresholds are allowed', () => {
    const r = parseConfig('memory:\n  similarity_threshold: 0.85\n  auto_merge_threshold: 0.85\n');
    assert.deepEqual(r.issues, []);
    assert.equal(r.config.memory.auto_merge_threshold, 0.85);
  });

  test('chunk overlap must be less than chunk size', () => {
    const bad = parseConfig(yamlOf({ [`${P}.documentChunkSize`]: 500, [`${P}.documentChunkOverlap`]: 500 }));
    assert.equal(errors(bad.issues)[0]?.key, `${P}.documentChunkOverlap`);
    assert.equal(bad.config.memory.pipelineV2.documentChunkSize, 2000);
    assert.equal(bad.config.memory.pipelineV2.documentChunkOverlap, 200);
    const ok = parseConfig(yamlOf({ [`${P}.documentChunkSize`]: 500, [`${P}.documentChunkOverlap`]: 499 }));
    assert.deepEqual(ok.issues, []);
  });

  test('default_limit must not exceed max_limit', () => {
    const r = parseConfig('search:\n  max_limit: 10\n');
    assert.equal(errors(r.issues)[0]?.key, 'search.max_limit');
    assert.equal(r.config.search.max_limit, 100);
    assert.deepEqual(parseConfig('search:\n  max_limit: 20\n').issues, []);
  });

  test('search weights: both zero is an error, a sum other than 1 a warning', () => {
    const zero = parseConfig('search:\n  vector_weight: 0\n  keyword_weight: 0\n');
    assert.equal(errors(zero.issues).length, 1);
    assert.equal(zero.config.search.vector_weight, 0.5, 'falls back to the defaults');
    assert.equal(zero.config.search.keyword_weight, 0.5);
    const odd = parseConfig('search:\n  vector_weight: 0.6\n');
    assert.deepEqual(errors(odd.issues), []);
    assert.equal(warnings(odd.issues)[0]?.key, 'search.vector_weight');
    assert.equal(odd.config.search.vector_weight, 0.6);
    assert.deepEqual(parseConfig('search:\n  vector_weight: 0.7\n  keyword_weight: 0.3\n').issues, []);
  });
});

// ── overrides ────────────────────────────────────────────────────────────────────────────

describe('applyOverrides', () => {
  const base = parseConfig('memory:\n  pipelineV2:\n    enabled: true\n    workerPollMs: 5s\nsearch:\n  max_limit: 50\n').config;

  test('valid overrides win; the base is not touched; the result is frozen', () => {
    const r = applyOverrides(base, { [`${P}.shadowMode`]: true, 'search.max_limit': 70, [`${P}.workerPollMs`]: '1s' }, 'VS Code settings');
    assert.deepEqual(r.issues, []);
    assert.equal(r.config.memory.pipelineV2.shadowMode, true);
    assert.equal(r.config.memory.pipelineV2.workerPollMs, 1000);
    assert.equal(r.config.search.max_limit, 70);
    assert.equal(r.config.memory.pipelineV2.enabled, true, 'file values survive');
    assert.equal(base.search.max_limit, 50);
    assert.equal(base.memory.pipelineV2.shadowMode, false);
    assert.ok(Object.isFrozen(r.config.memory.pipelineV2));
  });

  test('an invalid override keeps the previous value, not the default', () => {
    const r = applyOverrides(base, { 'search.max_limit': 0, [`${P}.workerPollMs`]: 'often' }, 'VS Code settings');
    assert.equal(errors(r.issues).length, 2);
    assert.ok(r.issues.every((i) => i.source === 'VS Code settings'));
    assert.match(r.issues[0]?.message ?? '', /previous value 50/);
    assert.equal(r.config.search.max_limit, 50);
    assert.equal(r.config.memory.pipelineV2.workerPollMs, 5000);
  });

  test('unknown override keys warn with a suggestion; undefined values are skipped', () => {
    const r = applyOverrides(base, { 'search.maxLimit': 5, 'search.min_score': undefined });
    assert.equal(r.issues.length, 1);
    assert.match(r.issues[0]?.message ?? '', /did you mean search\.max_limit\?/);
    assert.equal(r.config.search.min_score, 0);
  });

  test('nested objects are accepted for sections', () => {
    const r = applyOverrides(base, { memory: { pipelineV2: { graphEnabled: true } }, 'memory.pipelineV2': { rerankerTopN: 5 } });
    assert.deepEqual(r.issues, []);
    assert.equal(r.config.memory.pipelineV2.graphEnabled, true);
    assert.equal(r.config.memory.pipelineV2.rerankerTopN, 5);
  });

  test('cross-field rules see the merged configuration', () => {
    const r = applyOverrides(base, { 'search.default_limit': 60 });
    assert.equal(errors(r.issues)[0]?.key, 'search.default_limit');
    assert.equal(r.config.search.default_limit, 20);
    assert.equal(r.config.search.max_limit, 50);
    const ok = applyOverrides(base, { 'search.default_limit': 60, 'search.max_limit': 60 });
    assert.deepEqual(ok.issues, []);
  });
});

// ── files ────────────────────────────────────────────────────────────────────────────────

describe('config files', () => {
  const dirs: string[] = [];
  const tmp = async () => {
    const d = await mkdtemp(join(tmpdir(), 'agent-memory-config-'));
    dirs.push(d);
    return d;
  };
  after(async () => {
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });

  test('no file → undefined, and loadProjectConfig gives defaults without issues', async () => {
    const d = await tmp();
    assert.equal(await findConfigFile(d), undefined);
    const loaded = await loadProjectConfig(d);
    assert.deepEqual(loaded.issues, []);
    assert.equal(loaded.path, undefined);
    assert.deepEqual(loaded.config, defaultConfig());
  });

  test('order: .agent-memory/agent.yaml, agent.yaml, AGENT.yaml, then config.yaml', async () => {
    const d = await tmp();
    await writeFile(join(d, 'config.yaml'), 'memory:\n  default_ttl: 120\n');
    assert.equal(await findConfigFile(d), join(d, 'config.yaml'));
    await writeFile(join(d, 'AGENT.yaml'), 'search:\n  max_limit: 10\n');
    const upper = await findConfigFile(d);
    assert.ok(upper === join(d, 'AGENT.yaml') || upper === join(d, 'agent.yaml')); // case-insensitive file systems
    await writeFile(join(d, 'agent.yaml'), 'search:\n  max_limit: 20\n');
    assert.equal(await findConfigFile(d), join(d, 'agent.yaml'));
    await mkdir(join(d, '.agent-memory'));
    await writeFile(join(d, '.agent-memory', 'agent.yaml'), 'search:\n  max_limit: 30\n');
    assert.equal(await findConfigFile(d), join(d, '.agent-memory', 'agent.yaml'));
    const loaded = await loadProjectConfig(d);
    assert.equal(loaded.config.search.max_limit, 30);
    assert.equal(loaded.path, join(d, '.agent-memory', 'agent.yaml'));
  });

  test('configChangedAt: the write time of the file that would be read, undefined without one', async () => {
    const d = await tmp();
    assert.equal(await configChangedAt(d), undefined);
    await writeFile(join(d, 'config.yaml'), 'database:\n  url: x\n');
    assert.equal(await configChangedAt(d), undefined, "another tool's config.yaml is not ours");
    await writeFile(join(d, 'agent.yaml'), 'memory:\n  cleanup_interval: 10s\n');
    await utimes(join(d, 'agent.yaml'), new Date(1_700_000_000_000), new Date(1_700_000_000_000));
    assert.equal(await configChangedAt(d), 1_700_000_000_000);
    await mkdir(join(d, '.agent-memory'));
    await writeFile(join(d, '.agent-memory', 'agent.yaml'), 'search:\n  max_limit: 30\n');
    const preferred = await configChangedAt(d);
    assert.ok(preferred !== undefined && preferred > 1_700_000_000_000, 'the preferred file counts');
  });

  test('config.yaml counts only with a top-level memory: key', async () => {
    const d = await tmp();
    await writeFile(join(d, 'config.yaml'), 'database:\n  url: postgres://x\n  memory: 5\n# memory: commented\nmemory_x: 1\n');
    assert.equal(await findConfigFile(d), undefined);
    await writeFile(join(d, 'config.yaml'), 'database:\n  url: x\nmemory:\n  default_ttl: 120\n');
    assert.equal(await findConfigFile(d), join(d, 'config.yaml'));
    await writeFile(join(d, 'config.yaml'), '"memory":\n  default_ttl: 120\n');
    assert.equal(await findConfigFile(d), join(d, 'config.yaml'));
  });

  test('a directory named agent.yaml is skipped', async () => {
    const d = await tmp();
    await mkdir(join(d, 'agent.yaml'));
    await writeFile(join(d, 'AGENT.yaml'), 'search:\n  max_limit: 10\n');
    const found = await findConfigFile(d);
    // On a case-insensitive file system AGENT.yaml cannot exist next to the agent.yaml directory.
    if (found !== undefined) assert.equal(found, join(d, 'AGENT.yaml'));
  });

  test('loadConfigFile: issues carry the file path; read errors are issues, not exceptions', async () => {
    const d = await tmp();
    const file = join(d, 'agent.yaml');
    await writeFile(file, 'search:\n  max_limit: 5000\n');
    const loaded = await loadConfigFile(file);
    assert.equal(loaded.path, file);
    assert.equal(loaded.issues[0]?.source, file);
    assert.equal(loaded.issues[0]?.line, 2);
    assert.equal(loaded.config.search.max_limit, 100);

    const missing = await loadConfigFile(join(d, 'nope.yaml'));
    assert.equal(missing.issues.length, 1);
    assert.equal(missing.issues[0]?.severity, 'error');
    assert.match(missing.issues[0]?.message ?? '', /cannot read/);
    assert.deepEqual(missing.config, defaultConfig());

    const dirRead = await loadConfigFile(d);
    assert.equal(dirRead.issues[0]?.severity, 'error');
  });
});

// ── modes ────────────────────────────────────────────────────────────────────────────────

describe('pipelineMode', () => {
  const flags = ['enabled', 'shadowMode', 'allowUpdateDelete', 'mutationsFrozen', 'autonomousFrozen'] as const;
  for (let bits = 0; bits < 1 << flags.length; bits++) {
    const on = Object.fromEntries(flags.map((f, i) => [f, (bits & (1 << i)) !== 0])) as Record<(typeof flags)[number], boolean>;
    const expected = !on.enabled ? 'off' : on.shadowMode || on.mutationsFrozen ? 'shadow' : on.allowUpdateDelete ? 'full' : 'controlled';
    const label = flags.filter((f) => on[f]).join('+') || 'all false';
    test(`${label} → ${expected}`, () => {
      const r = parseConfig(yamlOf(Object.fromEntries(flags.map((f) => [`${P}.${f}`, on[f]]))));
      assert.deepEqual(r.issues, []);
      assert.equal(pipelineMode(r.config), expected);
    });
  }

  test('spot checks against the seed wording', () => {
    const mode = (o: Record<string, boolean>) =>
      pipelineMode(applyOverrides(defaultConfig(), nest(Object.fromEntries(Object.entries(o).map(([k, v]) => [`${P}.${k}`, v])))).config);
    assert.equal(mode({}), 'off');
    assert.equal(mode({ shadowMode: true, mutationsFrozen: true, allowUpdateDelete: true }), 'off', 'enabled is the master switch');
    assert.equal(mode({ enabled: true }), 'controlled');
    assert.equal(mode({ enabled: true, allowUpdateDelete: true }), 'full');
    assert.equal(mode({ enabled: true, allowUpdateDelete: true, mutationsFrozen: true }), 'shadow', 'the emergency brake wins');
    assert.equal(mode({ enabled: true, shadowMode: true }), 'shadow');
  });

  test('maintenanceScheduled: autonomousEnabled and not autonomousFrozen', () => {
    for (const enabled of [false, true]) {
      for (const frozen of [false, true]) {
        const cfg = applyOverrides(defaultConfig(), { [`${P}.autonomousEnabled`]: enabled, [`${P}.autonomousFrozen`]: frozen }).config;
        assert.equal(maintenanceScheduled(cfg), enabled && !frozen);
      }
    }
  });
});

test('pipeline modes: allowUpdateDelete is documented as applied (full mode), and the modes derive from the five flags', async () => {
  const { CONFIG_SCHEMA: schema, defaultConfig: defaults, pipelineMode: mode } = await import('../../../src/core/config/index.js');
  const spec = schema.find((s) => s.path === 'memory.pipelineV2.allowUpdateDelete')!;
  assert.match(spec.description, /apply UPDATE/);
  assert.doesNotMatch(spec.description, /blocked/);
  const base = defaults();
  const withP = (p: Partial<typeof base.memory.pipelineV2>) => ({
    ...base,
    memory: { ...base.memory, pipelineV2: { ...base.memory.pipelineV2, ...p } },
  });
  assert.equal(mode(base), 'off');
  assert.equal(mode(withP({ enabled: true })), 'controlled');
  assert.equal(mode(withP({ enabled: true, allowUpdateDelete: true })), 'full');
  assert.equal(mode(withP({ enabled: true, allowUpdateDelete: true, mutationsFrozen: true })), 'shadow');
  assert.equal(mode(withP({ enabled: true, shadowMode: true })), 'shadow');
});
