// A memory view (GraphData of src/engine/protocol.ts) of 15 memories and one merged-away memory,
// with every kind of link the engine draws: similarity suggestions, a merge, shared tags, shared
// entities, a stored relationship. Titles of every length, one with an emoji, one with markup.
const TEXTS = [
  ['decision', 'Use pnpm, not npm, for every package in the monorepo workspace'],
  ['decision', 'Deploys go out with the Tuesday release train'],
  ['general', 'Redis runs on port 6379 in development'],
  ['general', 'In dev, the cache (Redis) listens on 6379'],
  ['code_pattern', 'Wrap hnswlib-wasm errors: they are WebAssembly.Exception, not Error'],
  ['code_pattern', 'sql.js: pass locateFile so the wasm is found next to the bundle'],
  ['workflow', 'Release checklist: bump, changelog, tag, publish 🚀'],
  ['workflow', 'Hotfix: branch from the release tag, cherry-pick, tag a patch'],
  ['general', 'Postgres 16 is required for the pgvector migration'],
  ['general', 'The billing service publishes invoices to Kafka'],
  ['decision', 'Feature flags live in LaunchDarkly, never in env vars'],
  ['general', '<b>not bold</b> — markup in a title stays text'],
  ['code_pattern', 'Never slice user text by code units: use Intl.Segmenter'],
  ['general', 'CI runs on two cores: keep the unit suite under ten minutes'],
  ['decision', 'Store timestamps as UTC ISO strings, shown as relative times'],
];

export function fifteenMemories() {
  const nodes = TEXTS.map(([type, label], i) => ({ id: `m${i}`, label, type, scope: 'project', importance: 0.3 + (i % 4) * 0.2 }));
  nodes.push({
    id: 'm-absorbed',
    label: 'Redis listens on 6379 locally (merged into the note above)',
    type: 'general',
    scope: 'project',
    importance: 0.5,
    mergedInto: 'm2',
  });
  const edges = [
    { from: 'm2', to: 'm3', kind: 'similar', strength: 0.88 },
    { from: 'm6', to: 'm7', kind: 'similar', strength: 0.79 },
    { from: 'm1', to: 'm6', kind: 'similar', strength: 0.76 },
    { from: 'm4', to: 'm5', kind: 'similar', strength: 0.81 },
    { from: 'm2', to: 'm-absorbed', kind: 'merged', strength: 1 },
    { from: 'm6', to: 'm7', kind: 'shared_tag:release', strength: 0.5 },
    { from: 'm4', to: 'm12', kind: 'shared_tag:text', strength: 0.5 },
    { from: 'm9', to: 'm8', kind: 'entity:Billing Service', strength: 0.8 },
    { from: 'm7', to: 'm1', kind: 'SUPERSEDES', strength: 1 },
  ];
  return { nodes, edges, truncated: false, mode: 'memories' };
}
