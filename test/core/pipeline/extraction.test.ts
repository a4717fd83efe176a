/** Extraction validation limits (pure functions; the HTTP path is in pipeline.test.ts, reading the JSON in test/core/llm). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EXTRACTION_LIMITS, buildExtractionPrompt, truncateInput, validateExtraction } from '../../../src/core/pipeline/extraction';
import { validateDecision } from '../../../src/core/pipeline/decision';

test('facts: ≤ 20 kept, < 10 chars rejected, > 2000 truncated, unknown type → fact, confidence clamped', () => {
  const facts = Array.from({ length: 25 }, (_, i) => ({ content: `Fact number ${i} is long enough.`, type: 'fact', confidence: 0.8 }));
  facts[0] = { content: 'x'.repeat(2500), type: 'opinion', confidence: 7 };
  facts[1] = { content: 'too short', type: 'fact', confidence: 0.5 };
  const r = validateExtraction({ facts, entities: [] });
  assert.equal(r.facts.length, 19);
  assert.equal(r.facts[0]!.content.length, EXTRACTION_LIMITS.maxFactChars);
  assert.equal(r.facts[0]!.type, 'fact');
  assert.equal(r.facts[0]!.confidence, 1);
  for (const re of [/only the first 20/, /truncated from 2500/, /unknown type "opinion"/, /shorter than 10/, /clamped/]) {
    assert.ok(
      r.warnings.some((w) => re.test(w)),
      `warning ${re}`,
    );
  }
});

test('entities: ≤ 50, each needs source, target and relationship', () => {
  const ents = Array.from({ length: 55 }, (_, i) => ({ source: `a${i}`, relationship: 'uses', target: `b${i}`, confidence: 0.5 }));
  ents[0] = { source: ' ', relationship: 'uses', target: 'b', confidence: 1 };
  ents[1] = { source: 'a', relationship: '', target: 'b', confidence: 1 };
  const r = validateExtraction({ facts: [], entities: ents });
  assert.equal(r.entities.length, 48);
  assert.ok(r.warnings.some((w) => /only the first 50/.test(w)));
  assert.equal(r.warnings.filter((w) => /must be non-empty/.test(w)).length, 2);
  assert.deepEqual(validateExtraction('nope').facts, []);
  assert.deepEqual(validateExtraction([1, 2]).warnings, ['the model answer is not a JSON object; no facts extracted']);
});

test('entity types: known ones kept (any case), absent → unknown silently, others → unknown with a warning', () => {
  const r = validateExtraction({
    facts: [],
    entities: [
      { source: 'API server', source_type: 'Service', relationship: 'uses', target: 'Fastify', target_type: 'library', confidence: 0.9 },
      { source: 'user', relationship: 'prefers', target: 'tabs', confidence: 0.8 },
      { source: 'CI', source_type: 'robot', relationship: 'runs', target: 'tests', target_type: 7, confidence: 0.7 },
    ],
  });
  assert.deepEqual(
    r.entities.map((e) => [e.sourceType, e.targetType]),
    [
      ['service', 'library'],
      ['unknown', 'unknown'],
      ['unknown', 'unknown'],
    ],
  );
  assert.deepEqual(r.warnings, [
    'entity 3 source_type: unknown entity type "robot"; stored as "unknown"',
    'entity 3 target_type: unknown entity type 7; stored as "unknown"',
  ]);
});

test('input over 12 000 characters is truncated before the prompt is built', () => {
  const warnings: string[] = [];
  const text = 'a'.repeat(15_000);
  const cut = truncateInput(text, warnings);
  assert.equal(cut.length, 12_000);
  assert.match(warnings[0]!, /truncated from 15000 to 12000/);
  const prompt = buildExtractionPrompt(cut);
  assert.ok(prompt.includes('Example note'));
  assert.ok(!prompt.includes('a'.repeat(12_001)));
});

function rejection(v: unknown): string {
  assert.ok(typeof v === 'string', `expected a rejection reason, got ${JSON.stringify(v)}`);
  return v;
}

test('decision validation: target must be a candidate, reason non-empty, action known', () => {
  const fact = { content: 'The cache is disabled.', type: 'fact' as const, confidence: 0.9 };
  const cands = [{ id: 'm1', type: 'fact', content: 'The cache is enabled.', score: 0.5 }];
  assert.match(rejection(validateDecision({ action: 'UPDATE', targetId: 'm9', confidence: 1, reason: 'x' }, fact, cands)), /hallucinated/);
  assert.match(rejection(validateDecision({ action: 'DELETE', confidence: 1, reason: 'x' }, fact, cands)), /without a targetId/);
  assert.match(rejection(validateDecision({ action: 'NONE', confidence: 1, reason: '' }, fact, cands)), /empty reason/);
  assert.match(rejection(validateDecision({ action: 'MERGE', confidence: 1, reason: 'x' }, fact, cands)), /unknown action/);
  const ok = validateDecision({ action: 'update', targetId: 'm1', confidence: 0.7, reason: 'changed' }, fact, cands);
  assert.equal(typeof ok, 'object');
  assert.equal((ok as { targetContent: string }).targetContent, 'The cache is enabled.');
});
