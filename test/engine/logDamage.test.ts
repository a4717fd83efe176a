// A flipped bit in the operation log the real engine wrote (docs/storage.md "A damaged log"): the
// engine opens, the memory whose record was hit is gone, every later memory and change is there
// and found by search, and one warning says in words what was lost (it reaches the status bar).
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { MemoryEngine } from '../../src/engine/worker/engine';
import { storeDirsIn } from '../../src/engine/storeLocation';
import { SEGMENT_MAGIC, readFrame } from '../../src/core/store/opLogScan';
import type { EngineEvent } from '../../src/engine/protocol';
import { tmpDir } from '../helpers/tmp';
import { fakeClone } from '../helpers/clones';

const settings = { 'embedding.provider': 'hash' };

const TOPICS = ['deploy', 'cache', 'schema', 'proxy', 'queue', 'mirror', 'lint', 'index'];

function note(i: number): string {
  return `The ${TOPICS[i]} runbook for service ${i} lives in runbooks/${TOPICS[i]}-${i}.md and names the on-call owner.`;
}

/** The offset of the frame whose record created `id` in the newest segment of `dir`'s log. */
function frameCreating(dir: string, id: string): { file: string; off: number } {
  const logDir = path.join(dir, 'log');
  const file = path.join(logDir, fs.readdirSync(logDir).sort().at(-1)!);
  const buf = fs.readFileSync(file);
  for (let off = SEGMENT_MAGIC.length; off < buf.length;) {
    const f = readFrame(buf, off);
    assert.ok(f.ok);
    if (f.rec.ops.some((o) => /INSERT INTO memories\b/.test(o.sql) && o.params.includes(id))) return { file, off };
    off = f.next;
  }
  throw new Error(`no record creates ${id}`);
}

test('one flipped bit in the log the engine wrote: that memory is lost, the later ones and their changes are there, one warning says so', async () => {
  const root = tmpDir('am-logdmg-engine-');
  const home = path.join(root, 'home');
  const ws = fakeClone(root, 'repo');
  const engine = await MemoryEngine.open({ home, workspaceRoot: ws, settings, snapshotTickMs: 0 });
  const ids: string[] = [];
  for (let i = 0; i < TOPICS.length; i++) {
    const r = await engine.memories.create({ content: note(i) });
    assert.equal(r.status, 'created');
    ids.push((r as { memory: { id: string } }).memory.id);
  }
  await engine.memories.update(ids[6]!, { content: `${note(6)} Moved to runbooks/v2 in March.` });
  engine.memories.delete(ids[7]!);
  // A crash image: the folder as a kill -9 would leave it (every change in the log, no snapshot of them).
  const crashed = path.join(root, 'crashed-home');
  fs.cpSync(home, crashed, { recursive: true });
  await engine.close();
  const dir = storeDirsIn(crashed, engine.projectId).project;
  for (const d of [dir, storeDirsIn(crashed, engine.projectId).global]) fs.rmSync(path.join(d, 'store.lock'), { force: true });
  const hit = frameCreating(dir, ids[2]!);
  const bytes = fs.readFileSync(hit.file);
  bytes[hit.off + 60]! ^= 0x04;
  fs.writeFileSync(hit.file, bytes);

  const events: EngineEvent[] = [];
  const again = await MemoryEngine.open({ home: crashed, workspaceRoot: ws, settings, snapshotTickMs: 0, onEvent: (e) => events.push(e) });
  try {
    const live = again.memories.list({ limit: 50 }).items.map((m) => m.id);
    assert.deepEqual([...live].sort(), ids.filter((_, i) => i !== 2 && i !== 7).sort(), 'all but the damaged create and the deleted one');
    assert.match(again.memories.get(ids[6]!)!.content, /Moved to runbooks\/v2/, 'a later edit reached its own memory');
    for (const i of [3, 4, 5]) assert.doesNotMatch(again.memories.get(ids[i]!)!.content, /Moved/, `memory ${i} untouched`);
    const found = await again.search.search({ query: 'mirror runbook on-call owner' });
    assert.ok(
      found.hits.some((h) => h.memory.id === ids[5]),
      'a memory written after the damage is found by search',
    );
    const warning = again.startupWarnings.find((w) => /could not be read/.test(w));
    assert.ok(warning, again.startupWarnings.join('\n'));
    assert.match(warning, /1 change could not be read and was set aside in .*quarantine\./);
    assert.match(warning, /The \d+ changes saved after it were read and applied\./);
    assert.ok(
      events.some((e) => e.type === 'warning' && e.message === warning),
      'the warning goes out as an event (status bar, diagnostics)',
    );
    const stats = again.diagnostics.stats();
    assert.equal(stats.project.health.state, 'ok', 'writes work');
    const added = await again.memories.create({ content: 'After the repair, the incident review template lives in docs/reviews.md.' });
    assert.equal(added.status, 'created');
  } finally {
    await again.close();
  }
});
