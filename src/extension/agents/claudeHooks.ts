/**
 * Claude Code's hooks for Agent Memory (docs/sessions.md "Claude Code"), merged into Claude
 * Code's settings file (`~/.claude/settings.json`) in Claude Code's documented format:
 * `hooks.<Event>` is a list of groups `{ matcher?, hooks: [{ type: "command", command, timeout }] }`.
 * Our group of each event is the one whose command runs `agent-memory … hook <event>`: it is
 * replaced where it stands (or added at the end); every other group, key, comment and the file's
 * indentation stay (jsonc-parser). Running the setup twice changes nothing. No `vscode` import.
 */
import { applyEdits, findNodeAtLocation, getNodeValue, modify, parseTree, type Node as JsonNode, type ParseError } from 'jsonc-parser';
import { isDeepStrictEqual } from 'node:util';

/** Claude Code's event → our hook command's event word. */
export const CLAUDE_HOOK_EVENTS = { SessionStart: 'session-start', UserPromptSubmit: 'user-prompt-submit', Stop: 'stop' } as const;
export type ClaudeHookEvent = keyof typeof CLAUDE_HOOK_EVENTS;

/** Seconds Claude Code waits for a hook (a warm hook answers well within one). */
export const HOOK_TIMEOUT_SECONDS = 10;

export class HookSettingsError extends Error {}

interface HookGroup {
  matcher?: string;
  hooks: { type: 'command'; command: string; timeout: number }[];
}

/** A word of a shell command line, quoted when it needs to be. */
function shellWord(w: string): string {
  return /^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`;
}

/** Our group of each event: the launcher running `hook <event>` on the store home. */
export function claudeHookGroups(launcher: string, home: string): Record<ClaudeHookEvent, HookGroup> {
  const group = (event: string): HookGroup => ({
    hooks: [
      { type: 'command', command: [launcher, 'hook', event, '--home', home].map(shellWord).join(' '), timeout: HOOK_TIMEOUT_SECONDS },
    ],
  });
  return {
    SessionStart: group(CLAUDE_HOOK_EVENTS.SessionStart),
    UserPromptSubmit: group(CLAUDE_HOOK_EVENTS.UserPromptSubmit),
    Stop: group(CLAUDE_HOOK_EVENTS.Stop),
  };
}

/** Whether a group of `event` is ours: one of its commands runs `… hook <event word>` of an agent-memory launcher. */
function isOurs(group: unknown, word: string): boolean {
  const hooks = (group as { hooks?: unknown } | null)?.hooks;
  if (!Array.isArray(hooks)) return false;
  return hooks.some((h) => {
    const c = (h as { command?: unknown } | null)?.command;
    return typeof c === 'string' && c.includes('agent-memory') && new RegExp(`\\bhook ${word}\\b`).test(c);
  });
}

function indentOf(text: string): { insertSpaces: boolean; tabSize: number } {
  const m = /\n([ \t]+)\S/.exec(text);
  if (!m) return { insertSpaces: true, tabSize: 2 };
  return m[1]!.startsWith('\t') ? { insertSpaces: false, tabSize: 1 } : { insertSpaces: true, tabSize: m[1]!.length };
}

function parseSettings(text: string): JsonNode {
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, { allowTrailingComma: true });
  if (errors.length || !root) throw new HookSettingsError('it is not valid JSON');
  if (root.type !== 'object') throw new HookSettingsError('it is not a JSON object');
  const hooks = findNodeAtLocation(root, ['hooks']);
  if (hooks && hooks.type !== 'object') throw new HookSettingsError('its "hooks" is not an object');
  return root;
}

/** The settings text with our hook groups merged in (the same text when they are there already). */
export function mergeClaudeHooks(text: string | undefined, groups: Record<ClaudeHookEvent, HookGroup>): string {
  if (!text?.trim()) {
    const hooks = Object.fromEntries(Object.entries(groups).map(([e, g]) => [e, [g]]));
    return `${JSON.stringify({ hooks }, null, 2)}\n`;
  }
  let out = text;
  const formattingOptions = { ...indentOf(text), eol: text.includes('\r\n') ? '\r\n' : '\n' };
  for (const event of Object.keys(groups) as ClaudeHookEvent[]) {
    const root = parseSettings(out);
    const list = findNodeAtLocation(root, ['hooks', event]);
    const want = groups[event];
    if (list && list.type !== 'array') throw new HookSettingsError(`its "hooks.${event}" is not a list`);
    const items = list ? (getNodeValue(list) as unknown[]) : [];
    const at = items.findIndex((g) => isOurs(g, CLAUDE_HOOK_EVENTS[event]));
    if (at >= 0 && isDeepStrictEqual(items[at], want)) continue;
    const edit = !list
      ? modify(out, ['hooks', event], [want], { formattingOptions })
      : modify(out, ['hooks', event, at >= 0 ? at : items.length], want, { formattingOptions, isArrayInsertion: at < 0 });
    out = applyEdits(out, edit);
  }
  return out;
}
