/**
 * A damaged operation log (docs/storage.md "A damaged log"): one flipped bit, a zeroed or deleted
 * segment. The log is written by the real write path (MemoryService over a Store); the damage is
 * made on a copy of the folder as a crash left it, which is then opened. What can be read after
 * the damage is replayed, what cannot is counted in one warning and kept in quarantine/.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Store } from '../../../src/core/store/store';
import { OpLog } from '../../../src/core/store/opLog';
import { FRAME, SEGMENT_MAGIC, readFrame } from '../../../src/core/store/opLogScan';
import { encodeTx } from '../../../src/core/store/opCodec';
import { crc32 } from '../../../src/core/store/checksum';
import { MemoryService } from '../../../src/core/memory/memoryService';
import { tmpDir } from '../../helpers/tmp';

const PROJECT = 'github.com/acme/app';

/** Distinct notes (no two alike, so no write depends on another by similarity). */
function note(i: number): string {
  const words = ['deploy', 'cache', 'token', 'schema', 'queue', 'proxy', 'build', 'index', 'lint', 'mirror'];
  return `Note ${i}: the ${words[i % 10]} step of service-${i} runs from tools/step-${i}.sh on host h${i * 7}.`;
}

interface Written {
  dir: string;
  /** Memory ids in creation order. */
  ids: string[];
  /** Every row of memories as the writer left it (the truth to compare with). */
  rows: Map<string, Record<string, unknown>>;
}

function allRows(store: Store): Map<string, Record<string, unknown>> {
  return new Map(store.all<Record<string, unknown>>('SELECT * FROM memories ORDER BY rid').map((r) => [String(r.id), r]));
}

/**
 * A store whose log (after a snapshot of the empty schema) holds `n` creates, an edit of the
 * memory created 4th from last, a delete of the one 2nd from last and three more creates; then
 * "crashed" (closed without a snapshot): the log holds every change.
 */
async function writeLog(n = 24, opts: { snapshotEvery?: number } = {}): Promise<Written> {
  const dir = tmpDir('am-logdmg-');
  await (await Store.open({ dir })).close(); // the schema goes into the snapshot
  const store = await Store.open({ dir });
  const svc = new MemoryService(store, { projectId: PROJECT, now: () => new Date('2026-03-01T12:00:00.000Z') });
  const ids: string[] = [];
  const create = (i: number) => {
    const r = svc.create({ content: note(i), tags: [`t${i}`] });
    assert.equal(r.status, 'created');
    ids.push((r as { memory: { id: string } }).memory.id);
  };
  for (let i = 0; i < n; i++) {
    create(i);
    if (opts.snapshotEvery && (i + 1) % opts.snapshotEvery === 0) await store.snapshot();
  }
  svc.update(ids[n - 4]!, { content: `${note(n - 4)} Edited: it moved to tools/v2.` });
  svc.delete(ids[n - 2]!);
  for (let i = n; i < n + 3; i++) create(i);
  const rows = allRows(store);
  await store.close({ snapshot: false });
  return { dir, ids, rows };
}

function copyDir(from: string): string {
  const to = tmpDir('am-logdmg-copy-');
  fs.cpSync(from, to, { recursive: true });
  return to;
}

function segments(dir: string): string[] {
  return fs
    .readdirSync(path.join(dir, 'log'))
    .filter((n) => n.endsWith('.log'))
    .sort()
    .map((n) => path.join(dir, 'log', n));
}

interface Frame {
  off: number;
  end: number;
  seq: number;
  /** The memory this record created, if it created one. */
  created?: string;
}

function frames(file: string): Frame[] {
  const buf = fs.readFileSync(file);
  const out: Frame[] = [];
  for (let off = SEGMENT_MAGIC.length; off < buf.length;) {
    const f = readFrame(buf, off);
    assert.ok(f.ok, `frame at ${off}`);
    const insert = f.rec.ops.find((o) => /^\s*INSERT INTO memories\b/i.test(o.sql));
    const created = insert?.params.find((p) => typeof p === 'string' && /^[0-9a-f-]{36}$/.test(p)) as string | undefined;
    out.push({ off, end: f.next, seq: f.rec.seq, ...(created ? { created } : {}) });
    off = f.next;
  }
  return out;
}

function flipBit(file: string, at: number, bit = 3): void {
  const buf = fs.readFileSync(file);
  buf[at]! ^= 1 << bit;
  fs.writeFileSync(file, buf);
}

async function openCollecting(dir: string, extra: Partial<Parameters<typeof Store.open>[0]> = {}) {
  const warnings: string[] = [];
  const store = await Store.open({ dir, onWarning: (w) => warnings.push(w), ...extra });
  return { store, warnings };
}

/** Every memory but `lost` is there exactly as written (same row number, same content, same state). */
function assertSurvivors(store: Store, w: Written, lost: string[]): void {
  const got = allRows(store);
  const expected = [...w.rows.keys()].filter((id) => !lost.includes(id));
  assert.deepEqual([...got.keys()].sort(), [...expected].sort(), 'the memories that survived');
  for (const id of expected) assert.deepEqual(got.get(id), w.rows.get(id), `memory ${id} is exactly as written`);
}

test('one flipped bit in a create mid-log: that memory is lost, every later change is replayed onto the right memory', async () => {
  const w = await writeLog();
  const seg = segments(w.dir).at(-1);
  const fs0 = frames(seg!);
  // The create of the 4th memory: a later edit and delete reach memories created after it, so a
  // replay that numbered later rows differently would change the wrong ones.
  const victim = fs0.find((f) => f.created === w.ids[3])!;
  const dir = copyDir(w.dir);
  flipBit(segments(dir).at(-1)!, victim.off + FRAME + 40);
  const { store, warnings } = await openCollecting(dir);
  assertSurvivors(store, w, [w.ids[3]!]);
  const later = fs0.filter((f) => f.seq > victim.seq).length;
  assert.equal(warnings.length, 1, warnings.join('\n'));
  assert.match(warnings[0]!, /1 change could not be read/);
  assert.match(warnings[0]!, new RegExp(`The ${later} changes saved after it were read and applied`));
  assert.match(warnings[0]!, /quarantine/);
  assert.doesNotMatch(warnings[0]!, /@\d|checksum|seq|\.log\b/, 'plain words: no offsets or internal names');
  assert.ok(fs.readdirSync(path.join(dir, 'quarantine')).length >= 1, 'the damaged bytes are kept');
  // Writes go on, and the next open has the same memories without a new warning about the damage.
  const svc = new MemoryService(store, { projectId: PROJECT });
  const added = svc.create({ content: 'After the repair: the release notes live in docs/releases.md.' });
  assert.equal(added.status, 'created');
  await store.close();
  const again = await openCollecting(dir);
  assert.equal(again.store.all('SELECT id FROM memories').length, w.rows.size);
  assert.deepEqual(again.warnings, []);
  await again.store.close();
});

test('one flipped bit, swept over the log: header, frame headers, payloads and the last frame', async () => {
  const w = await writeLog(12);
  const seg = segments(w.dir).at(-1);
  const all = frames(seg!);
  const last = all[all.length - 1]!;
  const positions: { at: number; frame?: Frame }[] = [{ at: 0 }, { at: 5 }];
  for (const f of all) {
    positions.push({ at: f.off, frame: f }); // length field
    positions.push({ at: f.off + 5, frame: f }); // checksum field
    positions.push({ at: Math.floor((f.off + FRAME + f.end) / 2), frame: f }); // payload
  }
  positions.push({ at: last.end - 1, frame: last });
  for (const p of positions) {
    const dir = copyDir(w.dir);
    flipBit(segments(dir).at(-1)!, p.at);
    const { store, warnings } = await openCollecting(dir);
    const lost = p.frame?.created && p.at !== p.frame.off ? [p.frame.created] : [];
    // A damaged record that was not a create loses no memory (an edit or delete of one may be lost).
    const got = allRows(store);
    for (const id of w.rows.keys()) {
      if (lost.includes(id)) assert.equal(got.has(id), false, `byte ${p.at}: ${id} was in the damaged record`);
      else assert.ok(got.has(id), `byte ${p.at}: memory ${id} survives`);
    }
    for (const [id, row] of got) {
      const touched = p.frame && !p.frame.created && p.at !== p.frame.off; // the damaged record edited or deleted this one
      if (!touched) assert.deepEqual(row, w.rows.get(id), `byte ${p.at}: memory ${id} is exactly as written`);
    }
    assert.equal(warnings.length, 1, `byte ${p.at}: ${warnings.join('\n')}`);
    if (!p.frame || p.at === p.frame.off) {
      // A segment header or a record length: the checksum still proves every record.
      assert.match(warnings[0]!, /every change in it could still be read/, `byte ${p.at}`);
      assert.equal(got.size, w.rows.size, `byte ${p.at}: nothing lost`);
    } else if (p.frame === last) assert.match(warnings[0]!, /The last change .* could not be read/, `byte ${p.at}`);
    else assert.match(warnings[0]!, /1 change could not be read/, `byte ${p.at}`);
    await store.close({ snapshot: false });
  }
});

test('a zeroed log segment between two others: its changes are counted as lost, the later segment is replayed', async () => {
  // Snapshots every 8 creates make segments; the newest snapshot is damaged, so the open falls back
  // to the previous one and must read the two segments after it.
  const w = await writeLog(24, { snapshotEvery: 8 });
  const dir = copyDir(w.dir);
  const segs = segments(dir);
  assert.ok(segs.length >= 2, `segments: ${segs.map((s) => path.basename(s)).join(', ')}`);
  fs.writeFileSync(path.join(dir, 'snapshot.sqlite'), Buffer.alloc(4096, 7)); // fall back to snapshot.prev
  const middle = segs[segs.length - 2]!;
  const inMiddle = frames(middle);
  fs.truncateSync(middle, 0);
  const { store, warnings } = await openCollecting(dir);
  const lost = inMiddle.map((f) => f.created).filter((x): x is string => !!x);
  assert.equal(lost.length, 8);
  assertSurvivors(store, w, lost);
  const text = warnings.join('\n');
  assert.match(text, new RegExp(`${inMiddle.length} changes could not be read`));
  assert.match(text, /changes saved after them were read/);
  await store.close();
});

test('a later change to a memory whose create was lost is set aside whole and kept in quarantine, never applied half-way', async () => {
  const w = await writeLog(24, { snapshotEvery: 8 });
  // After the crash image: reopen, edit the 19th memory (its tags too), crash again.
  const store = await Store.open({ dir: w.dir });
  const svc = new MemoryService(store, { projectId: PROJECT, now: () => new Date('2026-03-02T12:00:00.000Z') });
  svc.update(w.ids[18]!, { content: `${note(18)} Edited later.`, tags: ['edited'] });
  await store.close({ snapshot: false });
  const dir = copyDir(w.dir);
  fs.writeFileSync(path.join(dir, 'snapshot.sqlite'), Buffer.alloc(4096, 7)); // fall back to snapshot.prev
  const segs = segments(dir);
  const middle = segs[segs.length - 2]!;
  assert.ok(
    frames(middle).some((f) => f.created === w.ids[18]),
    'the create of the 19th memory is in the segment that is lost',
  );
  const lostCreates = frames(middle).filter((f) => f.created).length;
  fs.truncateSync(middle, 0);
  const after = frames(segs.at(-1)!).length;
  const { store: again, warnings } = await openCollecting(dir);
  assert.equal(again.get('SELECT id FROM memories WHERE id = ?', [w.ids[18]!]), undefined);
  assert.equal(again.get<{ n: number }>("SELECT count(*) AS n FROM memory_tags WHERE tag = 'edited'")!.n, 0, 'nothing of the edit');
  assert.equal(
    again.get<{ n: number }>("SELECT count(*) AS n FROM memory_history WHERE new_content LIKE '%Edited later.%'")!.n,
    0,
    'not even its history entry: the record is applied whole or not at all',
  );
  assert.equal(again.all('SELECT id FROM memories').length, w.rows.size - lostCreates);
  const text = warnings.join('\n');
  assert.match(text, new RegExp(`Of the ${after} changes saved after them, ${after - 1} were read and applied and 1 set aside`));
  const kept = fs.readdirSync(path.join(dir, 'quarantine'));
  assert.ok(
    kept.some((n) => n.endsWith(path.basename(segs.at(-1)!))),
    `a copy of the segment holding the record set aside is kept: ${kept.join(', ')}`,
  );
  await again.close();
});

test('a deleted or emptied newest segment: a warning says changes after the last snapshot may be lost, never silence', async () => {
  for (const how of ['deleted', 'emptied'] as const) {
    const w = await writeLog(6, { snapshotEvery: 3 });
    const dir = copyDir(w.dir);
    const newest = segments(dir).at(-1)!;
    if (how === 'deleted') fs.rmSync(newest);
    else fs.truncateSync(newest, 0);
    const { store, warnings } = await openCollecting(dir);
    assert.equal(store.all('SELECT id FROM memories').length, 6, `${how}: the memories in the snapshot are there`);
    assert.equal(warnings.length, 1, `${how}: ${warnings.join('\n')}`);
    assert.match(warnings[0]!, /changes saved after the last snapshot, if there were any, cannot be read/, how);
    assert.match(warnings[0]!, /how many cannot be told/, how);
    await store.close();
    const again = await openCollecting(dir);
    assert.deepEqual(again.warnings, [], `${how}: told once; the store started a new segment`);
    await again.store.close();
  }
});

test('records after a damaged one written by an earlier version (no bound row numbers) are set aside, not replayed', async () => {
  const dir = tmpDir('am-logdmg-old-');
  await (await Store.open({ dir })).close();
  const snap = await Store.open({ dir });
  const seq0 = snap.stats().seq;
  await snap.close({ snapshot: false });
  // Records as an earlier version wrote them: plain inserts, no replay marker.
  const log = new OpLog(dir);
  log.openForAppend(seq0 + 1);
  const offsets: number[] = [];
  for (let i = 0; i < 5; i++) {
    offsets.push(log.activeSegmentBytes);
    log.append({
      seq: seq0 + 1 + i,
      ops: [
        {
          sql: `INSERT INTO memories (id, project_id, content, normalized_content, content_hash, doc_hash, created_at, updated_at) VALUES (?, 'p', ?, ?, ?, ?, ?, ?)`,
          params: [`old-${i}`, `old note ${i}`, `old note ${i}`, `h${i}`, `d${i}`, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z'],
        },
      ],
    });
  }
  log.close();
  flipBit(segments(dir).at(-1)!, offsets[1]! + FRAME + 30);
  const { store, warnings } = await openCollecting(dir);
  assert.deepEqual(
    store.all<{ id: string }>('SELECT id FROM memories ORDER BY rid').map((r) => r.id),
    ['old-0'],
  );
  assert.match(warnings.join('\n'), /1 change could not be read/);
  assert.match(warnings.join('\n'), /3 changes saved after it were set aside/);
  await store.close();
});

test('a read-only opener of a damaged log replays what is intact and changes nothing on disk', async () => {
  const w = await writeLog(10);
  const dir = copyDir(w.dir);
  const victim = frames(segments(dir).at(-1)!).find((f) => f.created === w.ids[2])!;
  flipBit(segments(dir).at(-1)!, victim.off + FRAME + 10);
  const before = fs.readFileSync(segments(dir).at(-1)!);
  const { store, warnings } = await openCollecting(dir, { readOnly: true });
  assertSurvivors(store, w, [w.ids[2]!]);
  assert.match(warnings.join('\n'), /1 change could not be read/);
  assert.ok(fs.readFileSync(segments(dir).at(-1)!).equals(before));
  assert.equal(fs.existsSync(path.join(dir, 'quarantine')), false);
  await store.close();
});

/**
 * Text that holds two well-formed log frames (seqs `seq` and `seq + 1`, each deleting every memory),
 * all ASCII so that it is stored byte for byte: what a hostile memory could carry.
 */
function forgedFrames(seq: number): string {
  const frame = (s: number) => {
    for (let salt = 0; ; salt++) {
      const payload = encodeTx({ seq: s, ops: [{ sql: `DELETE FROM memories -- ${salt}`, params: [] }] });
      const crc = crc32(payload);
      const head = Buffer.alloc(FRAME);
      head.writeUInt32LE(payload.length, 0);
      head.writeUInt32LE(crc, 4);
      const bytes = Buffer.concat([head, payload]);
      if (bytes.every((b) => b < 0x80)) return bytes.toString('latin1');
    }
  };
  return frame(seq) + frame(seq + 1);
}

test('frames forged inside a memory are never taken for records, even when the record holding them is damaged twice', async () => {
  const dir = tmpDir('am-logdmg-forged-');
  await (await Store.open({ dir })).close();
  const store = await Store.open({ dir });
  const svc = new MemoryService(store, { projectId: PROJECT, now: () => new Date('2026-03-01T12:00:00.000Z') });
  for (let i = 0; i < 3; i++) svc.create({ content: note(i) });
  const seq = store.stats().seq + 1; // the seq the hostile create gets
  const hostile = svc.create({ content: `Looks harmless. ${forgedFrames(seq)} The end.` });
  assert.equal(hostile.status, 'created');
  for (let i = 3; i < 6; i++) svc.create({ content: note(i) });
  const written = allRows(store);
  await store.close({ snapshot: false });
  const victim = frames(segments(dir).at(-1)!).find((f) => f.seq === seq)!;
  for (const damage of ['payload', 'length and checksum']) {
    const copy = copyDir(dir);
    const file = segments(copy).at(-1)!;
    if (damage === 'payload') flipBit(file, victim.off + FRAME + 12);
    else {
      flipBit(file, victim.off + 2, 1); // its length
      flipBit(file, victim.off + 5, 2); // and its checksum: the record cannot be proven, so the bytes are scanned
    }
    const { store: again, warnings } = await openCollecting(copy);
    const got = allRows(again);
    assert.equal(got.size, written.size - 1, `${damage}: only the damaged record is lost; no forged DELETE ran`);
    assert.equal(got.has((hostile as { memory: { id: string } }).memory.id), false);
    assert.match(warnings.join('\n'), /1 change could not be read/, damage);
    await again.close({ snapshot: false });
  }
});
