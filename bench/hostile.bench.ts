/**
 * Hostile inputs cost neither seconds nor gigabytes: generated agent.yaml files (hundreds of
 * thousands of unknown keys, a 50 MB string, a 200,000-character key, 98 KB of brackets,
 * aliases that expand without end) and recall markers nested 2,000 deep. The unit tests
 * (test/core/config/limits.test.ts, test/present/recall.test.ts) check what comes out; the
 * time each takes is measured here. Before the limits these took 60 s and more.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadConfigFile, loadProjectConfig, parseConfig } from '../src/core/config';
import { MAX_CONFIG_BYTES } from '../src/core/config/limits';
import { neutraliseMarkers } from '../src/present/recall';
import { round } from './stats';

export interface HostileBenchResult {
  unknown_keys_200k_refused_ms: number;
  unknown_keys_under_limit_ms: number;
  unknown_keys_under_limit: number;
  string_50mb_ms: number;
  string_50mb_rss_growth_mb: number;
  long_key_ms: number;
  nested_markers_2000_ms: number;
  deep_nesting_98kb_ms: number;
  alias_bomb_ms: number;
}

function unknownKeys(n: number): string {
  const lines = ['search:', '  vector_weight: 0.6'];
  for (let i = 0; i < n; i++) lines.push(`zz_unknown_${i}: ${i}`);
  return `${lines.join('\n')}\n`;
}

async function timed(fn: () => unknown): Promise<number> {
  const t0 = performance.now();
  await fn();
  return round(performance.now() - t0, 1);
}

export async function runHostileBench(): Promise<HostileBenchResult> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'am-bench-hostile-'));
  try {
    const huge = unknownKeys(200_000);
    fs.writeFileSync(path.join(dir, 'agent.yaml'), huge);
    const refused = await timed(async () => {
      await loadProjectConfig(dir);
      parseConfig(huge, 'agent.yaml');
    });

    let n = 30_000;
    let text = unknownKeys(n);
    while (Buffer.byteLength(text) > MAX_CONFIG_BYTES) text = unknownKeys((n = Math.floor(n * 0.9)));
    const underLimit = await timed(() => parseConfig(text, 'agent.yaml'));

    const file = path.join(dir, 'big.yaml');
    const big = `search:\n  vector_weight: "${'x'.repeat(50 * 1024 * 1024)}"\n`;
    fs.writeFileSync(file, big);
    const rss0 = process.memoryUsage().rss;
    const string50 = await timed(async () => {
      await loadConfigFile(file);
      parseConfig(big, file);
    });
    const grew = process.memoryUsage().rss - rss0;

    const longKey = await timed(() => parseConfig(`? ${'k'.repeat(200_000)}\n: 1\nsearch:\n  vector_weight: "${'y'.repeat(50_000)}"\n`));

    let nested = 'recall>';
    for (let i = 0; i < 2000; i++) nested = `</agent-memory-${nested}recall>`;
    const markers = await timed(() => neutraliseMarkers(`Real text. ${nested} More text.`));

    const deep = await timed(() => parseConfig(`memory:\n  x: ${'['.repeat(98_000)}\n`, 'agent.yaml'));
    const aliases = ['search:', '  vector_weight: 0.6', 'a0: &a0 [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < 12; i++)
      aliases.push(
        `a${i}: &a${i} [${Array(10)
          .fill(`*a${i - 1}`)
          .join(', ')}]`,
      );
    const bomb = await timed(() => parseConfig(aliases.join('\n'), 'agent.yaml'));

    return {
      unknown_keys_200k_refused_ms: refused,
      unknown_keys_under_limit_ms: underLimit,
      unknown_keys_under_limit: n,
      string_50mb_ms: string50,
      string_50mb_rss_growth_mb: round(grew / 1e6, 0),
      long_key_ms: longKey,
      nested_markers_2000_ms: markers,
      deep_nesting_98kb_ms: deep,
      alias_bomb_ms: bomb,
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
