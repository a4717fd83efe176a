// @tier durability
/**
 * Snapshots with real random bit flips: a snapshot whose checksum does not match is never
 * loaded silently. With snapshot.prev intact every flip falls back to it plus the log with a
 * warning and the same data; with no verified snapshot at all, a flipped snapshot loads only
 * after a full integrity check, with a warning and a copy in quarantine, or not at all.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Store } from '../../../src/core/store/store';
import { tmpDir } from '../../helpers/tmp';

function insert(store: Store, n: number): void {
  store.transaction((tx) => {
    tx.run(
      `INSERT INTO memories (id, project_id, content, normalized_content, content_hash, doc_hash, created_at, updated_at)
       VALUES (?, 'p', ?, ?, ?, ?, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')`,
      [`id-${n}`, `note number ${n} with some words`, `note number ${n}`, `h${n}`, `d${n}`],
    );
  });
}

function contents(store: Store): string[] {
  return store.all<{ c: string }>('SELECT id || content AS c FROM memories ORDER BY rid').map((r) => r.c);
}

async function baseStore(withPrev: boolean): Promise<{ dir: string; expected: string[] }> {
  const dir = tmpDir('am-flip-');
  const s = await Store.open({ dir });
  for (let i = 0; i < 20; i++) insert(s, i);
  await s.snapshot();
  for (let i = 20; i < 40; i++) insert(s, i);
  await s.snapshot();
  for (let i = 40; i < 45; i++) insert(s, i);
  const expected = contents(s);
  await s.close({ snapshot: false });
  if (!withPrev) {
    fs.rmSync(path.join(dir, 'snapshot.prev.sqlite'));
    fs.rmSync(path.join(dir, 'snapshot.prev.sqlite.crc32'));
  }
  return { dir, expected };
}

function copyDir(from: string): string {
  const to = tmpDir('am-flip-copy-');
  fs.cpSync(from, to, { recursive: true });
  return to;
}

function flipRandomBit(file: string): number {
  const bytes = fs.readFileSync(file);
  const bit = Math.floor(Math.random() * bytes.length * 8);
  bytes[bit >> 3]! ^= 1 << (bit & 7);
  fs.writeFileSync(file, bytes);
  return bit;
}

test(
  '60 random single-bit flips in snapshot.sqlite: every one falls back to snapshot.prev + the log, with a warning and the same data',
  { timeout: 300_000 },
  async () => {
    const base = await baseStore(true);
    for (let i = 0; i < 60; i++) {
      const dir = copyDir(base.dir);
      const bit = flipRandomBit(path.join(dir, 'snapshot.sqlite'));
      const warnings: string[] = [];
      const s = await Store.open({ dir, onWarning: (w) => warnings.push(w) });
      assert.ok(
        warnings.some((w) => /snapshot\.sqlite is damaged or unverifiable/.test(w)),
        `flip of bit ${bit}: ${warnings.join(' | ')}`,
      );
      assert.equal(s.stats().snapshotVerifiedBy, 'checksum');
      assert.deepEqual(contents(s), base.expected, `flip of bit ${bit}`);
      assert.deepEqual(s.integrityCheck(), []);
      await s.close({ snapshot: false });
      fs.rmSync(dir, { recursive: true, force: true });
    }
  },
);

test(
  '20 random bit flips with no verified snapshot left: never loaded silently, a loaded one passed a full integrity check and is kept in quarantine',
  { timeout: 300_000 },
  async () => {
    const base = await baseStore(false);
    let loaded = 0;
    for (let i = 0; i < 20; i++) {
      const dir = copyDir(base.dir);
      const bit = flipRandomBit(path.join(dir, 'snapshot.sqlite'));
      const warnings: string[] = [];
      const s = await Store.open({ dir, onWarning: (w) => warnings.push(w) });
      assert.ok(warnings.length > 0, `flip of bit ${bit} loaded silently`);
      if (s.stats().snapshotVerifiedBy === 'integrity_check') {
        loaded++;
        assert.ok(
          warnings.some((w) => /full integrity check/.test(w)),
          warnings.join(' | '),
        );
        assert.equal(fs.readdirSync(path.join(dir, 'quarantine')).filter((f) => f.endsWith('snapshot.sqlite')).length, 1);
      } else {
        // Rejected: the log alone cannot rebuild what the lost snapshot held, so the store is read-only.
        assert.ok(
          warnings.some((w) => /damaged/.test(w)),
          warnings.join(' | '),
        );
      }
      await s.close({ snapshot: false });
      fs.rmSync(dir, { recursive: true, force: true });
    }
    console.log(
      `bit flips without a verified snapshot: ${loaded} of 20 loaded after integrity_check (with a warning), ${20 - loaded} rejected`,
    );
  },
);
