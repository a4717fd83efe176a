/**
 * Lone UTF-16 surrogates are normalized to U+FFFD on the write path, so the live process and a
 * restarted one (log replay, then snapshot) hold exactly the same text.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Store } from '../../../src/core/store/store';
import { wellFormed } from '../../../src/core/store/sqlText';
import { tmpDir } from '../../helpers/tmp';

const TEXTS = ['lone high \uD800 end', 'lone low \uDC00 end', 'reversed \uDC00\uD800', 'pair 😀 ok', '\uD83D', 'ends with \uDBFF', 'plain'];

test('lone surrogates: write, restart (replay), snapshot, restart: the text is the same everywhere', async () => {
  const dir = tmpDir();
  const a = await Store.open({ dir });
  a.transaction((tx) => TEXTS.forEach((t, i) => tx.run('INSERT INTO store_meta (key, value) VALUES (?, ?)', [`t${i}`, t])));
  const read = (s: Store) => TEXTS.map((_, i) => s.get<{ value: string }>('SELECT value FROM store_meta WHERE key = ?', [`t${i}`])!.value);
  const live = read(a);
  assert.deepEqual(live, TEXTS.map(wellFormed));
  assert.equal(live[0], 'lone high \uFFFD end');
  assert.equal(live[2], 'reversed \uFFFD\uFFFD');
  assert.equal(live[3], 'pair 😀 ok', 'valid pairs are kept');
  await a.close({ snapshot: false });
  const b = await Store.open({ dir });
  assert.deepEqual(read(b), live, 'after log replay');
  await b.close(); // snapshot
  const c = await Store.open({ dir });
  assert.equal(c.stats().replayedRecords, 0);
  assert.deepEqual(read(c), live, 'from the snapshot');
  await c.close();
});
