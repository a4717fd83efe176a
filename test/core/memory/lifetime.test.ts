import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CREATE_ORIGINS, lifetimeFor, originOf, restoredLifetime, RESTORE_MIN_SECONDS } from '../../../src/core/memory/lifetime';
import { DEFAULT_LIFECYCLE } from '../../../src/core/memory/limits';
import { ValidationError } from '../../../src/core/memory/errors';
import { openMemory } from '../../helpers/memoryFixture';

const now = new Date('2026-03-01T12:00:00.000Z');
const DAY = 86400;

test('lifetime: what a person adds (or an import without a lifetime) is permanent; the pipeline and automatic captures are short-term', () => {
  const life = (origin: (typeof CREATE_ORIGINS)[number], ttl?: number | null, importance = 0.5) =>
    lifetimeFor(origin, importance, ttl, DEFAULT_LIFECYCLE, now);
  assert.deepEqual(life('person'), { ttlSeconds: null, expiresAt: null });
  assert.deepEqual(life('import'), { ttlSeconds: null, expiresAt: null });
  assert.deepEqual(life('document'), { ttlSeconds: null, expiresAt: null });
  assert.deepEqual(life('agent'), { ttlSeconds: null, expiresAt: null }, 'an agent asked to store: permanent');
  for (const origin of ['pipeline', 'capture'] as const) {
    assert.deepEqual(life(origin), { ttlSeconds: DAY, expiresAt: '2026-03-02T12:00:00.000Z' }, origin);
    assert.deepEqual(life(origin, undefined, 0.9), { ttlSeconds: null, expiresAt: null }, `${origin}: important is permanent`);
    assert.deepEqual(life(origin, null), { ttlSeconds: null, expiresAt: null }, `${origin}: an explicit permanent wins`);
  }
  // A lifetime the person chose is kept, whatever the origin.
  for (const origin of CREATE_ORIGINS) assert.equal(life(origin, 7 * DAY).ttlSeconds, 7 * DAY, origin);
  assert.equal(originOf(undefined), 'person');
  assert.throws(
    () => originOf('robot'),
    (e: unknown) => e instanceof ValidationError && /origin: must be one of person, pipeline/.test(e.message),
  );
});

test('lifetime: a restored memory that expired gets a fresh lifetime of the same length, at least a day; permanent stays permanent', () => {
  const expired = { ttlSeconds: 3 * DAY, expiresAt: '2026-02-28T12:00:00.000Z' };
  assert.deepEqual(restoredLifetime(expired, now), { ttlSeconds: 3 * DAY, expiresAt: '2026-03-04T12:00:00.000Z' });
  const short = { ttlSeconds: 60, expiresAt: '2026-03-01T11:59:00.000Z' };
  assert.deepEqual(restoredLifetime(short, now), { ttlSeconds: RESTORE_MIN_SECONDS, expiresAt: '2026-03-02T12:00:00.000Z' });
  const plenty = { ttlSeconds: 30 * DAY, expiresAt: '2026-03-20T12:00:00.000Z' };
  assert.deepEqual(restoredLifetime(plenty, now), plenty);
  assert.deepEqual(restoredLifetime({ ttlSeconds: null, expiresAt: null }, now), { ttlSeconds: null, expiresAt: null });
});

test('lifetime: through the memory API — create without a lifetime is permanent unless the origin is the pipeline or a capture', async () => {
  const m = await openMemory();
  try {
    const person = m.svc.create({ content: 'We deploy from the main branch only, never from feature branches.' });
    const capture = m.svc.create({ content: 'The agent noticed the build takes four minutes on CI.', origin: 'capture' });
    const chosen = m.svc.create({ content: 'Demo environment is frozen until the release ships.', ttlSeconds: 3 * DAY });
    assert.ok(person.status === 'created' && capture.status === 'created' && chosen.status === 'created');
    assert.equal(person.memory.expiresAt, null);
    assert.equal(capture.memory.ttlSeconds, DAY);
    assert.equal(chosen.memory.expiresAt, '2026-03-04T12:00:00.000Z');
    assert.throws(() => m.svc.create({ content: 'Some text long enough to be stored.', origin: 'x' as never }), ValidationError);
  } finally {
    await m.store.close();
  }
});
