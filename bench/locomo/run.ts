/**
 * LoCoMo recall benchmark (metric: bench/locomo/metric.ts; figures: bench/locomo/RESULTS.md).
 *
 *   node --import tsx bench/locomo/run.ts [file] [--json] [--configs a,b] [--list]
 *
 *   file        LoCoMo JSON (default: $LOCOMO_DATA, else DEFAULT_LOCOMO_PATH in data.ts; docs/DEVELOPMENT.md)
 *   --json      exactly one JSON object on stdout, nothing else (progress goes to stderr):
 *               {"configs": {"<name>": {"questions", "recall_any": {"1","5","10","20"},
 *                "recall_all": {…}, "by_category": {"1": {questions, recall_any, recall_all}, …},
 *                "nonsense_queries", "nonsense_hit_rate"}},   (off-topic queries per store: nonsense.ts)
 *                "default": "<name>"}
 *   --configs   comma-separated config names from bench/locomo/configs.ts (default: all)
 *   --list      list the configs and exit
 */
import { DEFAULT_CONFIG, configs } from './configs';
import { loadLocomo, type LocomoDataset } from './data';
import { evaluate, type Evaluation, type NonsenseReport } from './harness';
import { KS, type RecallGroup, type RecallReport } from './metric';

export interface LocomoJson {
  configs: Record<string, RecallReport & NonsenseReport>;
  default: string;
}

interface Args {
  file?: string;
  json: boolean;
  configs?: string[];
  list: boolean;
  help: boolean;
}

class UsageError extends Error {}

const USAGE = 'usage: node --import tsx bench/locomo/run.ts [file] [--json] [--configs a,b] [--list]';

export function parseArgs(argv: readonly string[]): Args {
  const out: Args = { json: false, list: false, help: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--json') out.json = true;
    else if (a === '--list') out.list = true;
    else if (a === '--help' || a === '-h') out.help = true;
    else if (a === '--configs' || a.startsWith('--configs=')) {
      const v = a === '--configs' ? argv[++i] : a.slice('--configs='.length);
      if (v === undefined || v.trim() === '') throw new UsageError('--configs needs a comma-separated list of names');
      out.configs = v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
    } else if (a.startsWith('-')) throw new UsageError(`unknown option ${a}`);
    else if (out.file === undefined) out.file = a;
    else throw new UsageError(`unexpected argument ${a}`);
  }
  return out;
}

/** Run the named configs (default: every registered config) and collect their reports. */
export async function runLocomo(
  dataset: LocomoDataset,
  names: readonly string[] = Object.keys(configs),
  log: (m: string) => void = (m) => process.stderr.write(m + '\n'),
): Promise<Record<string, Evaluation>> {
  const unknown = names.filter((n) => !Object.hasOwn(configs, n));
  if (unknown.length) throw new UsageError(`unknown config ${unknown.join(', ')} (known: ${Object.keys(configs).join(', ')})`);
  const out: Record<string, Evaluation> = {};
  for (const name of names) {
    log(`locomo: ${name}…`);
    const t = performance.now();
    out[name] = await evaluate(name, configs[name]!.create, dataset, { log });
    const w = out[name]!.warnings;
    for (const line of w.slice(0, 10)) log(`  warning: ${line}`);
    if (w.length > 10) log(`  … ${w.length - 10} more warnings`);
    log(`locomo: ${name} done in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  }
  return out;
}

export function toJson(results: Record<string, Evaluation>, defaultConfig = DEFAULT_CONFIG): LocomoJson {
  return {
    configs: Object.fromEntries(Object.entries(results).map(([n, e]) => [n, e.report])),
    default: defaultConfig,
  };
}

function fmt(x: number): string {
  return x.toFixed(3).padStart(7);
}

function row(label: string, g: RecallGroup): string {
  const any = KS.map((k) => fmt(g.recall_any[String(k)]!)).join('');
  const all = KS.map((k) => fmt(g.recall_all[String(k)]!)).join('');
  return `${label.padEnd(12)}${String(g.questions).padStart(5)}${any}  |${all}`;
}

export function formatTable(dataset: LocomoDataset, results: Record<string, Evaluation>, defaultConfig = DEFAULT_CONFIG): string {
  const s = dataset.stats;
  const lines: string[] = [];
  lines.push(`LoCoMo recall — ${dataset.source}`);
  lines.push(
    `${s.samples} samples, ${s.turns} turns, ${s.scorable} scorable questions ` +
      `(not scored: ${s.qaOtherCategory} of category 5, ${s.qaNoEvidence} without evidence; ` +
      `evidence ids dropped: ${s.evidenceMalformed} malformed, ${s.evidenceUnknown} naming no turn)`,
  );
  const head = `${''.padEnd(12)}${'n'.padStart(5)}${KS.map((k) => `any@${k}`.padStart(7)).join('')}  |${KS.map((k) => `all@${k}`.padStart(7)).join('')}`;
  for (const [name, e] of Object.entries(results)) {
    lines.push('');
    const mark = name === defaultConfig ? ' (default)' : '';
    lines.push(`${name}${mark} — ${configs[name]?.description ?? ''}`);
    lines.push(
      `  nonsense_hit_rate ${e.report.nonsense_hit_rate.toFixed(3)} over ${e.report.nonsense_queries} off-topic queries (target ≤ 0.05)`,
    );
    lines.push(`  index ${e.timings.indexMs} ms, search ${e.timings.searchMs} ms total, p50 ${e.timings.searchP50Ms} ms/query`);
    lines.push(head);
    lines.push(row('overall', e.report));
    for (const [cat, g] of Object.entries(e.report.by_category)) lines.push(row(`category ${cat}`, g));
  }
  lines.push('');
  lines.push(
    `README reference (plain BM25): recall_any ${[0.302, 0.561, 0.648, 0.712].join(' / ')}, recall_all ${[0.258, 0.466, 0.531, 0.58].join(' / ')}`,
  );
  const d = results[defaultConfig];
  if (d) {
    const v = d.report.recall_any['10']!;
    lines.push(`default ${defaultConfig}: recall_any@10 = ${v.toFixed(3)} (issue 3 target ≥ 0.76: ${v >= 0.76 ? 'met' : 'not met'})`);
  }
  return lines.join('\n');
}

async function main(): Promise<number> {
  const stdoutWrite = process.stdout.write.bind(process.stdout);
  let args: Args;
  try {
    args = parseArgs(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n${USAGE}\n`);
    return 2;
  }
  if (args.help) {
    stdoutWrite(`${USAGE}\n`);
    return 0;
  }
  if (args.list) {
    for (const [n, c] of Object.entries(configs)) stdoutWrite(`${n}${n === DEFAULT_CONFIG ? ' (default)' : ''}\t${c.description}\n`);
    return 0;
  }
  // With --json, stdout carries the one JSON object only: anything else written to it while
  // running (engine or library logging) is sent to stderr instead.
  if (args.json) {
    process.stdout.write = ((chunk: unknown, ...rest: unknown[]) =>
      (process.stderr.write as (...a: unknown[]) => boolean)(chunk, ...rest)) as typeof process.stdout.write;
  }
  try {
    const dataset = loadLocomo(args.file);
    process.stderr.write(
      `locomo: ${dataset.source}: ${dataset.stats.samples} samples, ${dataset.stats.turns} turns, ${dataset.stats.scorable} scorable questions\n`,
    );
    const results = await runLocomo(dataset, args.configs);
    if (args.json) stdoutWrite(JSON.stringify(toJson(results)) + '\n');
    else stdoutWrite(formatTable(dataset, results) + '\n');
    return 0;
  } catch (err) {
    process.stderr.write(`locomo: ${err instanceof Error ? err.message : String(err)}\n`);
    if (err instanceof UsageError) return 2;
    if (err instanceof Error && err.stack && !err.message.startsWith('LoCoMo data:')) process.stderr.write(err.stack + '\n');
    return 1;
  }
}

if (require.main === module) {
  main().then(
    (code) => {
      process.exitCode = code;
    },
    (err) => {
      process.stderr.write(`locomo: ${String(err)}\n`);
      process.exitCode = 1;
    },
  );
}
