// The Settings editor layout generated from CONFIG_SCHEMA (src/extension/config/settingsSchema.ts and
// settingsLayout.ts): readable titles, everyday groups first, internal knobs tagged advanced and
// last, durations and sizes editable as text, the former setting ids kept as renamed settings.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { CONFIG_SCHEMA } from '../../../src/core/config/schema';
import { parseDurationMs } from '../../../src/core/config';
import { settingsContribution } from '../../../src/extension/config/settingsSchema';
import { SETTINGS_GROUPS, SETTING_IDS, settingIdFor, yamlKeyFor } from '../../../src/extension/config/settingsLayout';

interface Section {
  id: string;
  title: string;
  order: number;
  properties: Record<string, Record<string, unknown>>;
}
const sections = settingsContribution(CONFIG_SCHEMA) as unknown as Section[];
const current = (s: Section) => Object.entries(s.properties).filter(([, p]) => p.markdownDeprecationMessage === undefined);

/** The title VS Code's Settings editor shows: the last id part, camelCase split into words. */
const title = (id: string) => {
  const last = id.split('.').pop()!;
  return last.replace(/([a-z0-9])([A-Z])/g, '$1 $2').replace(/^[a-z]/, (c) => c.toUpperCase());
};

test('every configuration key has one Settings editor id, and the ids are unique and map back', () => {
  for (const spec of CONFIG_SCHEMA) assert.ok(SETTING_IDS[spec.path], `${spec.path} has a setting id`);
  const ids = Object.values(SETTING_IDS);
  assert.equal(new Set(ids).size, ids.length);
  for (const [key, id] of Object.entries(SETTING_IDS)) {
    assert.equal(yamlKeyFor(id), key);
    assert.equal(settingIdFor(key), id);
  }
});

test('titles are words: no underscores, no unit suffixes, each id sits in its group', () => {
  for (const s of sections) {
    for (const [id] of current(s)) {
      assert.doesNotMatch(title(id), /_|Ms$|Bytes$/, `${id} → "${title(id)}"`);
      if (id !== 'agentMemory.storeHome') assert.ok(id.startsWith(`${s.id}.`), `${id} is under ${s.id}`);
    }
  }
  assert.equal(title('agentMemory.duplicates.autoMergeFromSimilarity'), 'Auto Merge From Similarity');
});

test('everyday groups come first (pipeline, lifetimes, search), internal knobs last and tagged advanced', () => {
  assert.deepEqual(
    sections.map((s) => s.order),
    sections.map((_, i) => i + 1),
  );
  assert.deepEqual(
    sections.slice(0, 3).map((s) => s.id),
    ['agentMemory.pipeline', 'agentMemory.lifetime', 'agentMemory.search'],
  );
  const firstAdvanced = SETTINGS_GROUPS.findIndex((g) => g.advanced);
  assert.ok(firstAdvanced > 0 && SETTINGS_GROUPS.slice(firstAdvanced).every((g) => g.advanced), 'advanced groups are last');
  for (const [i, s] of sections.entries()) {
    const advanced = SETTINGS_GROUPS[i]!.advanced;
    for (const [id, p] of current(s)) {
      assert.equal((p.tags as string[] | undefined)?.includes('advanced') ?? false, advanced, `${id} tagged advanced: ${advanced}`);
      assert.equal(typeof p.order, 'number', `${id} has an order`);
    }
  }
  const leaseTimeout = sections.find((s) => s.id === 'agentMemory.worker')!.properties['agentMemory.worker.leaseTimeout']!;
  assert.deepEqual(leaseTimeout.tags, ['advanced']);
  const pipeline = sections[0]!.properties;
  assert.equal(pipeline['agentMemory.pipeline.enabled']!.order, 1);
});

test('durations and sizes are text with a pattern the Settings editor checks; defaults are readable and valid', () => {
  const lifetime = sections.find((s) => s.id === 'agentMemory.lifetime')!.properties['agentMemory.lifetime.shortTermLifetime']!;
  assert.equal(lifetime.type, 'string');
  assert.equal(lifetime.default, '1d');
  assert.match(String(lifetime.patternErrorMessage), /"7d"/);
  const pattern = new RegExp(String(lifetime.pattern));
  for (const ok of ['30s', '7d', '1h30m', '500ms', ' 2 h ']) assert.match(ok, pattern);
  for (const bad of ['often', '7 days', '', '5']) assert.doesNotMatch(bad, pattern);
  for (const s of sections) {
    for (const [id, p] of current(s)) {
      assert.ok(!Array.isArray(p.type), `${id} has a single type (a union is editable only in settings.json)`);
      const pattern = typeof p.pattern === 'string' ? p.pattern : '';
      if (p.type === 'string' && pattern.includes('ms|s|m|h|d|w')) {
        assert.match(String(p.default), new RegExp(pattern), `${id} default`);
        assert.ok(parseDurationMs(String(p.default)) !== undefined);
      }
    }
  }
  const size = sections.find((s) => s.id === 'agentMemory.documents')!.properties['agentMemory.documents.maxSize']!;
  assert.equal(size.default, '10MiB');
  assert.match('512KiB', new RegExp(String(size.pattern)));
  assert.doesNotMatch('lots', new RegExp(String(size.pattern)));
});

test('the former ids (agent.yaml keys) stay registered as renamed settings naming their new id', () => {
  const all = Object.assign({}, ...sections.map((s) => s.properties)) as Record<string, Record<string, unknown>>;
  // Keys added after the Settings editor layout (webhooks.*) keep their agent.yaml name as id: they had no former id.
  for (const spec of CONFIG_SCHEMA.filter((s) => SETTING_IDS[s.path] !== s.path)) {
    const legacy = all[`agentMemory.${spec.path}`];
    assert.ok(legacy, `agentMemory.${spec.path} still registered`);
    assert.match(String(legacy.markdownDeprecationMessage), new RegExp(`agentMemory\\.${SETTING_IDS[spec.path]!.replace('.', '\\.')}`));
  }
});
