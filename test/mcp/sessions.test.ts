// @tier process
// Agent sessions through `agent-memory mcp`, driven by the MCP SDK's own Client over stdio (a
// real process): logging turns, searching them, one recall over memories and sessions, the
// summary's compare-and-swap, the scratchpad with its limits, notes, and the project briefing
// that carries the last session's summary and open scratchpad items — all marked as data.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { RECALL_CLOSE, RECALL_OPEN } from '../../src/present/recall';
import { mcpProject } from '../helpers/mcpClient';
import { textOf } from '../helpers/mcpOutput';

test(
  'sessions through the MCP SDK client: log, search, recall, summary CAS, scratchpad, notes, briefing',
  { timeout: 180_000 },
  async () => {
    const { transport } = mcpProject('am-mcp-sessions-');
    const client = new Client({ name: 'agent-memory-test', version: '1.0.0' });
    await client.connect(transport);
    const call = async (name: string, args: Record<string, unknown>) => {
      const r = await client.callTool({ name, arguments: args });
      return { text: textOf(r), isError: !!r.isError };
    };
    try {
      const logged = await call('log_session_events', {
        session_id: 'conv-1',
        events: [
          { role: 'user', content: 'The flaky checkout test fails on CI only.' },
          {
            role: 'assistant',
            content: 'The checkout test depends on the system timezone; pinning TZ=UTC in the CI job fixed the flakiness.',
          },
        ],
      });
      assert.ok(!logged.isError, logged.text);
      assert.match(logged.text, /Logged 2 events to session conv-1 \(last sequence 2\)/);

      const found = await call('search_sessions', { query: 'checkout test timezone flaky' });
      assert.ok(found.text.includes(RECALL_OPEN) && found.text.includes(RECALL_CLOSE), found.text);
      assert.match(found.text, /session=conv-1 agent=agent-memory-test turns? \d/);
      assert.match(found.text, /TZ=UTC/);
      assert.match((await call('search_sessions', { query: 'terraform state bucket' })).text, /No passages in agent sessions match/);

      // Relevant by more than the one word "CI" every memory of this store shares (docs/recall.md: one
      // common word alone is not relevance).
      await call('store_memory', { content: 'The checkout tests run on CI (GitHub Actions) in the UTC timezone.' });
      const recall = await call('recall_memories', { query: 'CI checkout test timezone' });
      assert.match(recall.text, /\[m1\] id=/, 'memories');
      assert.match(recall.text, /\[s1\] session=conv-1/, 'and session passages, saying where they came from');

      const w = await call('write_session_summary', {
        session_id: 'conv-1',
        text: 'Fixed the flaky checkout test.',
        upper_sequence: 2,
        expected_epoch: 0,
      });
      assert.match(w.text, /Summary written \(epoch 1\)/);
      const stale = await call('write_session_summary', { session_id: 'conv-1', text: 'Old view.', upper_sequence: 2, expected_epoch: 0 });
      assert.match(stale.text, /Not applied: the summary changed since epoch 0 \(it is at epoch 1\)/);
      assert.match((await call('read_session_summary', { session_id: 'conv-1' })).text, /Fixed the flaky checkout test/);

      assert.match((await call('scratchpad', { session_id: 'conv-1', items: ['rerun CI twice', 'remove the retry'] })).text, /2 items/);
      const over = await call('scratchpad', { session_id: 'conv-1', items: ['x'.repeat(241)] });
      assert.ok(over.isError, 'an item over 240 characters is refused');
      assert.match(over.text, /240/);
      assert.match((await call('scratchpad', { session_id: 'conv-1' })).text, /rerun CI twice/);

      const note = await call('store_note', {
        session_id: 'conv-1',
        content: 'TZ is read by the date library at import.',
        tags: ['CI', 'ci'],
      });
      const noteId = /note-[0-9a-f-]{36}/.exec(note.text)?.[0];
      assert.ok(noteId, note.text);
      assert.match((await call('search_sessions', { query: 'date library import', tags: ['ci'] })).text, new RegExp(noteId));
      assert.match((await call('delete_note', { note_id: noteId, session_id: 'conv-1' })).text, /deleted/);

      const brief = await call('get_project_context', {});
      const inside = brief.text.slice(brief.text.indexOf(RECALL_OPEN), brief.text.indexOf(RECALL_CLOSE));
      assert.match(inside, /Rolling session summary: Fixed the flaky checkout test\./);
      assert.match(inside, /- rerun CI twice/);
    } finally {
      await client.close();
    }
  },
);
