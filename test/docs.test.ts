// The README's configuration reference is generated from CONFIG_SCHEMA; it must not drift.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BEGIN, END, configReferenceTable, withReference } from '../scripts/config-reference';
import { CONFIG_SCHEMA } from '../src/core/config/index.js';

const readme = readFileSync(join(__dirname, '..', 'README.md'), 'utf8');

test('README configuration reference is generated from the schema and up to date', () => {
  assert.ok(readme.includes(BEGIN) && readme.includes(END), 'README has the reference markers');
  assert.equal(withReference(readme), readme, 'run: node --import tsx scripts/config-reference.ts');
});

test('every configuration key appears in the reference with its default', () => {
  const table = configReferenceTable();
  for (const spec of CONFIG_SCHEMA) assert.ok(table.includes(`| \`${spec.path}\` |`), spec.path);
  assert.equal(table.split('\n').length, CONFIG_SCHEMA.length + 2);
});

test('README shows the two commands a newcomer needs', () => {
  assert.match(readme, /npm start/);
  assert.match(readme, /npm test/);
});
