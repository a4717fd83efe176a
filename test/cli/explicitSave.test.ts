// @tier process
// `agent-memory add` as a real process (issue: an explicit add of a close duplicate printed
// "duplicate <id>" while it rewrote the older memory). A person's add is stored as its own
// memory and the output names the similar one; `--automatic` merges and says into what.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { CreateMemoryResult, HistoryEntry, ListResult } from '../../src/engine/protocol';
import { tmpDir } from '../helpers/tmp';
import { fakeClone } from '../helpers/clones';
import { runCli } from '../helpers/cliProcess';
import { BACKUP, BACKUP_14, BACKUP_30 } from '../fixtures/closeDuplicates';

test(
  'CLI add: a close duplicate is stored with a suggestion ("similar to …"); --automatic merges ("merged into …")',
  { timeout: 240_000 },
  async () => {
    const root = tmpDir('am-cli-explicit-');
    const ws = fakeClone(root, 'repo');
    fs.writeFileSync(path.join(ws, 'agent.yaml'), 'embedding:\n  provider: hash\n');
    const cli = async (...args: string[]) => {
      const r = await runCli([...args, '--workspace', ws], { AGENT_MEMORY_HOME: path.join(root, 'home') });
      assert.equal(r.code, 0, `agent-memory ${args.join(' ')}: exit code (stderr: ${r.stderr})`);
      return r.stdout.trim();
    };

    const first = JSON.parse(await cli('add', BACKUP, '--json')) as CreateMemoryResult;
    assert.ok(first.status === 'created');
    const firstId = first.memory.id;

    const said = await cli('add', BACKUP_14);
    assert.match(
      said,
      /^Memory saved: The nightly backup job runs at 02:00 UTC and keeps 14 daily [^(]*\(id [0-9a-f-]{36}\); similar to “/,
    );
    assert.match(
      said,
      new RegExp(`; similar to “The nightly backup job runs at 02:00 UTC and keeps the daily [^”]*” \\(id ${firstId}, 9\\d%\\)\\.`),
    );
    assert.match(said, /It is kept as its own memory, with a merge suggestion to review\.$/);
    const list = JSON.parse(await cli('list', '--json')) as ListResult;
    assert.equal(list.total, 2, 'both memories are live');
    const history = JSON.parse(await cli('history', firstId, '--json')) as { history: HistoryEntry[] };
    assert.deepEqual(
      history.history.map((h) => h.event),
      ['created'],
      'the older memory was not rewritten',
    );

    const merged = await cli('add', BACKUP_30, '--automatic');
    assert.match(
      merged,
      /^Merged into “The nightly backup job runs at 02:00 UTC and keeps[^”]*” \(id [0-9a-f-]{36}, 9\d% similar\), which now holds this text too\.$/,
    );
    assert.equal((JSON.parse(await cli('list', '--json')) as ListResult).total, 2, 'merged, not added');
  },
);
