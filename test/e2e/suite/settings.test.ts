// Settings in the real extension host (src/extension/settings.ts, settingsLayout.ts): a value set
// under its Settings editor id reaches the engine as its agent.yaml key; a value saved under the
// former id (agentMemory.<agent.yaml key>) still does; the new id wins when both are set;
// a duration typed as text ("2d") reaches it as text the engine reads.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { suite, suiteSetup, suiteTeardown, test } from '../runner';
import type { AgentMemoryApi } from '../../../src/extension/extension';
import { activeApi } from './activate';

async function until<T>(read: () => T, check: (v: T) => boolean, what: string, limitMs = 20_000): Promise<T> {
  const t0 = Date.now();
  for (;;) {
    const v = read();
    if (check(v)) return v;
    if (Date.now() - t0 > limitMs) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const IDS = ['search.maxResultLimit', 'search.max_limit', 'lifetime.shortTermLifetime'];

suite('Settings editor ids', () => {
  let api: AgentMemoryApi;
  const cfg = () => vscode.workspace.getConfiguration('agentMemory');
  const sent = () => api.engine.currentInit.settings ?? {};

  suiteSetup(async () => {
    api = await activeApi();
  });

  suiteTeardown(async () => {
    for (const id of IDS) await cfg().update(id, undefined, vscode.ConfigurationTarget.Workspace);
    await until(sent, (s) => !('search.max_limit' in s) && !('memory.default_ttl' in s), 'settings cleared');
  });

  test('a value under the new id, the former id, or both reaches the engine as its agent.yaml key', async () => {
    await cfg().update('search.max_limit', 70, vscode.ConfigurationTarget.Workspace);
    await until(sent, (s) => s['search.max_limit'] === 70, 'the former id is still read');
    await cfg().update('search.maxResultLimit', 80, vscode.ConfigurationTarget.Workspace);
    assert.equal((await until(sent, (s) => s['search.max_limit'] === 80, 'the new id wins'))['search.max_limit'], 80);
    await cfg().update('search.max_limit', undefined, vscode.ConfigurationTarget.Workspace);
    await cfg().update('search.maxResultLimit', undefined, vscode.ConfigurationTarget.Workspace);
    await until(sent, (s) => !('search.max_limit' in s), 'unset again');
  });

  test('a duration typed as text in the Settings editor ("2d") reaches the engine', async () => {
    await cfg().update('lifetime.shortTermLifetime', '2d', vscode.ConfigurationTarget.Workspace);
    await until(sent, (s) => s['memory.default_ttl'] === '2d', 'the text value');
    // The engine reads it as a valid override (2 days), with no issue.
    const summary = await api.engine.request('config.reload', { settings: sent() });
    assert.ok(summary.overridden.includes('memory.default_ttl'), JSON.stringify(summary));
    assert.deepEqual(
      summary.issues.filter((i) => i.key === 'memory.default_ttl'),
      [],
    );
    await cfg().update('lifetime.shortTermLifetime', '2 days', vscode.ConfigurationTarget.Workspace);
    await until(sent, (s) => s['memory.default_ttl'] === '2 days', 'the invalid text value');
    const bad = await api.engine.request('config.reload', { settings: sent() });
    assert.match(bad.issues.find((i) => i.key === 'memory.default_ttl')?.message ?? '', /not a valid duration/);
  });
});
