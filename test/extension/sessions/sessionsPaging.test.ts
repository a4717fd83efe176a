// The Sessions view's paging (src/extension/sessions/sessionsPaging.ts) over a real session
// store: a page of the most recent sessions, a "Show more…" row saying how many are left, the
// next page after it, nothing left at the end.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { SESSIONS_PAGE, firstSessions, showMoreLabel } from '../../../src/extension/sessions/sessionsPaging';
import { openSessions, user } from '../../core/sessions/fixture';
import { tmpDir } from '../../helpers/tmp';

describe('Sessions view paging', () => {
  test('a page at a time, most recent first, with how many are left', async () => {
    let clock = Date.UTC(2026, 0, 1);
    const f = await openSessions(tmpDir('am-sessions-paging-'), { now: () => new Date((clock += 1000)), noVectors: true });
    try {
      const count = 2 * SESSIONS_PAGE + 23;
      for (let i = 0; i < count; i++) await f.sessions.storeEvents(`s-${i}`, [{ payload: user(`turn of session ${i}`) }]);
      let requests = 0;
      const list = (limit: number, offset: number) => {
        requests++;
        return Promise.resolve(f.sessions.list(limit, offset));
      };
      const first = await firstSessions(list, SESSIONS_PAGE);
      assert.equal(first.items.length, SESSIONS_PAGE);
      assert.equal(first.remaining, count - SESSIONS_PAGE);
      assert.equal(first.items[0]!.sessionId, `s-${count - 1}`, 'the most recent first');
      const two = await firstSessions(list, 2 * SESSIONS_PAGE);
      assert.deepEqual(
        two.items.slice(0, SESSIONS_PAGE).map((s) => s.sessionId),
        first.items.map((s) => s.sessionId),
      );
      assert.equal(two.remaining, 23);
      requests = 0;
      const all = await firstSessions(list, 3 * SESSIONS_PAGE);
      assert.equal(all.items.length, count);
      assert.equal(all.remaining, 0);
      assert.equal(new Set(all.items.map((s) => s.sessionId)).size, count, 'no session twice');
      assert.equal(requests, 1, 'one request while a page fits the list limit');
      // Asking for more than there are stops at the end.
      const many = await firstSessions(list, 500);
      assert.equal(many.items.length, count);
      assert.equal(many.remaining, 0);
    } finally {
      await f.close();
    }
  });

  test('the "Show more…" row says how many sessions are left and how many it loads', () => {
    assert.equal(showMoreLabel(1), 'Show more… (1 more session)');
    assert.equal(showMoreLabel(23), 'Show more… (23 more sessions)');
    assert.equal(showMoreLabel(1234), `Show more… (${SESSIONS_PAGE} of 1,234 more sessions)`);
  });
});
