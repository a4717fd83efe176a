// Settings in the real extension host (src/extension/config/settings.ts, settingsLayout.ts): a value set
// under its Settings editor id reaches the engine as its agent.yaml key; a value saved under the
// former id (agentMemory.<agent.yaml key>) still does; the new id wins when both are set;
// a duration typed as text ("2d") reaches it as text the engine reads.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { suite, suiteSetup, suiteTeardown, test } from '../runner';
import type { AgentMemoryApi } from '../../../src/extension/extension';
import { activeApi } from './activate';
import { until } from '../../helpers/until';

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
    await until('settings cleared', sent, { check: (s) => !('search.max_limit' in s) && !('memory.default_ttl' in s) });
  });

  test('a value under the new id, the former id, or both reaches the engine as its agent.yaml key', async () => {
    await cfg().update('search.max_limit', 70, vscode.ConfigurationTarget.Workspace);
    await until('the former id is still read', sent, { check: (s) => s['search.max_limit'] === 70 });
    await cfg().update('search.maxResultLimit', 80, vscode.ConfigurationTarget.Workspace);
    assert.equal((await until('the new id wins', sent, { check: (s) => s['search.max_limit'] === 80 }))['search.max_limit'], 80);
    await cfg().update('search.max_limit', undefined, vscode.ConfigurationTarget.Workspace);
    await cfg().update('search.maxResultLimit', undefined, vscode.ConfigurationTarget.Workspace);
    await until('unset again', sent, { check: (s) => !('search.max_limit' in s) });
  });

  test('a duration typed as text in the Settings editor ("2d") reaches the engine', async () => {
    await cfg().update('lifetime.shortTermLifetime', '2d', vscode.ConfigurationTarget.Workspace);
    await until('the text value', sent, { check: (s) => s['memory.default_ttl'] === '2d' });
    // The engine reads it as a valid override (2 days), with no issue.
    const summary = await api.engine.request('config.reload', { settings: sent() });
    assert.ok(summary.overridden.includes('memory.default_ttl'), JSON.stringify(summary));
    assert.deepEqual(
      summary.issues.filter((i) => i.key === 'memory.default_ttl'),
      [],
    );
    await cfg().update('lifetime.shortTermLifetime', '2 days', vscode.ConfigurationTarget.Workspace);
    await until('the invalid text value', sent, { check: (s) => s['memory.default_ttl'] === '2 days' });
    const bad = await api.engine.request('config.reload', { settings: sent() });
    assert.match(bad.issues.find((i) => i.key === 'memory.default_ttl')?.message ?? '', /not a valid duration/);
  });
});
