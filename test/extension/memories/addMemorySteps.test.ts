// What "Add Memory…" asks and its defaults (src/extension/memories/addMemorySteps.ts): a memory added
// on purpose is permanent, general, normal importance and in this project unless chosen
// otherwise; tags are parsed forgivingly; the draft becomes memory.create parameters.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  createParams,
  DAY,
  defaultDraft,
  describeDraft,
  IMPORTANCE_LEVELS,
  LIFETIMES,
  parseTags,
  PICKABLE_TYPES,
  SCOPES,
  suggestTitle,
  typeChoices,
  validateContent,
} from '../../../src/extension/memories/addMemorySteps';

test('defaults: permanent, general, normal importance, this project, no tags, no title', () => {
  const d = defaultDraft('We deploy on Tuesdays only.');
  assert.deepEqual(d, {
    content: 'We deploy on Tuesdays only.',
    type: 'general',
    tags: [],
    ttlSeconds: null,
    importance: 0.5,
    scope: 'project',
    title: '',
  });
  assert.equal(LIFETIMES[0]!.ttlSeconds, null, 'the first (preselected) lifetime is permanent');
  assert.equal(IMPORTANCE_LEVELS[0]!.importance, 0.5);
  assert.equal(SCOPES[0]!.scope, 'project');
  assert.ok(PICKABLE_TYPES.includes('decision') && !PICKABLE_TYPES.includes('document_chunk'));
});

test('createParams: explicit permanence (ttlSeconds null), tags only when given, a chosen lifetime in seconds, a title always', () => {
  // No title step taken (Save now, a command with text): the title the title step proposes (README "Add Memory…").
  assert.deepEqual(createParams(defaultDraft('We deploy on Tuesdays only. Never on Fridays.')), {
    content: 'We deploy on Tuesdays only. Never on Fridays.',
    type: 'general',
    scope: 'project',
    importance: 0.5,
    ttlSeconds: null,
    title: 'We deploy on Tuesdays only.',
  });
  // A title cleared on the title step on purpose stays empty.
  assert.equal('title' in createParams(defaultDraft('We deploy on Tuesdays only.', { title: '', titleChosen: true })), false);
  const chosen = { tags: ['ops'], title: '  Deploy day ', ttlSeconds: 7 * DAY, scope: 'global' as const, source: 'a.md:3' };
  const p = createParams(defaultDraft('x'.repeat(20), chosen));
  assert.deepEqual(p, {
    content: 'x'.repeat(20),
    type: 'general',
    scope: 'global',
    importance: 0.5,
    ttlSeconds: 604800,
    tags: ['ops'],
    title: 'Deploy day',
    source: 'a.md:3',
  });
  const { ttlSeconds: _omit, ...lifecycleDefault } = defaultDraft('We deploy on Tuesdays only.');
  assert.equal('ttlSeconds' in createParams(lifecycleDefault), false, 'absent: the engine decides');
});

test('parseTags: commas or spaces, # and case dropped, no repeats, empty → none', () => {
  assert.deepEqual(parseTags('db, Staging  ops,db #CI'), ['db', 'staging', 'ops', 'ci']);
  assert.deepEqual(parseTags('  ,  '), []);
});

test('suggestTitle: first sentence or line, at most 80 characters', () => {
  assert.equal(suggestTitle('Staging DB is on 5433. It moved in March.'), 'Staging DB is on 5433.');
  assert.equal(suggestTitle('line one\nline two'), 'line one');
  assert.equal(suggestTitle('a'.repeat(100)).length, 80);
});

test('validateContent and describeDraft', () => {
  assert.equal(validateContent('too short'), 'At least 10 characters');
  assert.equal(validateContent('long enough text'), undefined);
  assert.equal(
    describeDraft(defaultDraft('x', { tags: ['db'], ttlSeconds: 7 * DAY, importance: 0.7, scope: 'global' })),
    'general · #db · 7 days · high importance · global',
  );
  assert.equal(describeDraft(defaultDraft('x')), 'general · no tags · permanent · normal importance · this project');
  assert.equal(
    describeDraft(defaultDraft('x', { type: 'code_pattern' })),
    'code pattern · no tags · permanent · normal importance · this project',
  );
});

test('the type step names each type in words (the id is the value), with a line saying what it is for', () => {
  const choices = typeChoices();
  assert.deepEqual(
    choices.map((c) => c.value),
    [...PICKABLE_TYPES],
  );
  const byValue = new Map(choices.map((c) => [c.value, c]));
  assert.equal(byValue.get('code_pattern')?.label, 'Code pattern');
  assert.equal(byValue.get('semantic')?.label, 'Semantic');
  assert.equal(byValue.get('general')?.label, 'General');
  for (const c of choices) {
    assert.doesNotMatch(c.label, /_/, c.label);
    assert.ok(c.detail && /^[A-Z].*\.$/.test(c.detail), `${c.value} has a sentence: ${c.detail}`);
  }
});
