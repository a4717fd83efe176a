// "Set Up Other Agents…" → Claude Code hooks (src/extension/agents/claudeHooks.ts): our three hook
// groups merged into Claude Code's settings.json in its documented format, next to the
// person's own hooks and keys; running it twice changes nothing; an older command of ours is
// replaced where it stands; a file that is not Claude Code's settings is refused, unchanged.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { agentTargets } from '../../../src/extension/agents/agentConfigs';
import { writeAgentConfig, ConfigFileError } from '../../../src/extension/agents/agentConfigFiles';
import { claudeHookGroups, mergeClaudeHooks } from '../../../src/extension/agents/claudeHooks';
import { tmpDir } from '../../helpers/tmp';

const LAUNCHER = '/home/ana/.agent-memory/bin/agent-memory';
const HOME = '/home/ana/.agent-memory';

test('the hooks are merged beside the person’s own, idempotently, in Claude Code’s format', () => {
  const groups = claudeHookGroups(LAUNCHER, HOME);
  assert.deepEqual(groups.SessionStart, {
    hooks: [{ type: 'command', command: `${LAUNCHER} hook session-start --home ${HOME}`, timeout: 10 }],
  });
  const mine = {
    model: 'opus',
    // a comment the person wrote
    hooks: { Stop: [{ hooks: [{ type: 'command', command: 'notify-send done' }] }], PreToolUse: [{ matcher: 'Bash', hooks: [] }] },
  };
  const text = JSON.stringify(mine, null, 4).replace('"model"', '// mine\n    "model"');
  const once = mergeClaudeHooks(text, groups);
  assert.ok(once.includes('// mine'), 'comments stay');
  assert.match(once, /\n {4}"model"/, 'the file keeps its indentation');
  const parsed = JSON.parse(once.replace('// mine\n', '')) as { model: string; hooks: Record<string, unknown[]> };
  assert.equal(parsed.model, 'opus');
  assert.deepEqual(parsed.hooks.Stop, [mine.hooks.Stop[0], groups.Stop], 'the person’s Stop hook stays, ours is added');
  assert.deepEqual(parsed.hooks.PreToolUse, mine.hooks.PreToolUse);
  assert.deepEqual(parsed.hooks.SessionStart, [groups.SessionStart]);
  assert.deepEqual(parsed.hooks.UserPromptSubmit, [groups.UserPromptSubmit]);
  assert.equal(mergeClaudeHooks(once, groups), once, 'twice changes nothing');

  // A moved store home: our groups are replaced where they stand, not added again.
  const moved = mergeClaudeHooks(once, claudeHookGroups(LAUNCHER, '/data/memory'));
  const after = JSON.parse(moved.replace('// mine\n', '')) as { hooks: Record<string, { hooks: { command: string }[] }[]> };
  assert.equal(after.hooks.Stop!.length, 2);
  assert.equal(after.hooks.Stop![1]!.hooks[0]!.command, `${LAUNCHER} hook stop --home /data/memory`);

  assert.throws(() => mergeClaudeHooks('{"hooks": []}', groups), /"hooks" is not an object/);
  assert.throws(() => mergeClaudeHooks('{"hooks": {"Stop": {}}}', groups), /"hooks.Stop" is not a list/);
  assert.throws(() => mergeClaudeHooks('{"hooks": ', groups), /not valid JSON/);
});

test('Set Up Other Agents offers the Claude Code hooks and writes ~/.claude/settings.json', () => {
  const userHome = tmpDir('am-hooks-home-');
  const targets = agentTargets({ launcher: LAUNCHER, home: HOME, userHome, platform: 'linux' });
  const t = targets.find((x) => x.format === 'claude-hooks');
  assert.ok(t && t.writable);
  assert.equal(t.file, path.join(userHome, '.claude', 'settings.json'));
  assert.equal(t.label, 'Claude Code hooks');
  assert.equal(writeAgentConfig(t), 'created');
  assert.equal(writeAgentConfig(t), 'unchanged');
  const written = JSON.parse(fs.readFileSync(t.file, 'utf8')) as { hooks: Record<string, unknown[]> };
  assert.deepEqual(Object.keys(written.hooks).sort(), ['SessionStart', 'Stop', 'UserPromptSubmit']);
  fs.writeFileSync(t.file, '{"hooks": {"Stop": 3}}');
  assert.throws(() => writeAgentConfig(t), ConfigFileError);
  assert.equal(fs.readFileSync(t.file, 'utf8'), '{"hooks": {"Stop": 3}}', 'nothing written');
});
