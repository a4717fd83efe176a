/**
 * `agent-memory hook <event>`: Claude Code's hooks (docs/sessions.md "Claude Code"). Claude Code
 * runs the command with its hook input as JSON on stdin; the answer is its documented JSON on
 * stdout: `{"hookSpecificOutput": {"hookEventName", "additionalContext"}}`, which Claude Code adds
 * to the model's context.
 *
 * - session-start: the project briefing (memories, then the last session's summary and open
 *   scratchpad items), within the token budget.
 * - user-prompt-submit: the memories and session passages recalled for the prompt that clear the
 *   relevance floor; nothing at all when nothing is relevant.
 * - stop: the new turns of the transcript (`transcript_path`) logged as events of the session.
 *
 * Everything recalled is inside the recall markers, marked as data. A hook never blocks Claude
 * Code: input that is not what Claude Code sends is a one-line error on stderr with exit 1
 * (Claude Code shows it and carries on; exit 2 would block the prompt, so it is never used).
 */
import type { Readable } from 'node:stream';
import type { EngineClient } from '../engine/client/engineClient';
import { recallContext } from '../present/recall';
import { projectContext } from '../mcp/projectContext';
import { dataBlock, sessionHitLines, sessionHitsSentence } from '../mcp/sessionText';
import { CliFailure } from './failure';

export const HOOK_EVENTS = ['session-start', 'user-prompt-submit', 'stop'] as const;
export type HookEvent = (typeof HOOK_EVENTS)[number];

/** Claude Code's names of the events. */
const CLAUDE_NAMES: Record<HookEvent, string> = {
  'session-start': 'SessionStart',
  'user-prompt-submit': 'UserPromptSubmit',
  stop: 'Stop',
};

/** Token budgets of what the hooks add to the context. */
export const HOOK_BUDGET_TOKENS = { 'session-start': 1500, 'user-prompt-submit': 800 } as const;

/** Largest hook input read (a prompt can be long; a transcript is read from its file). */
const MAX_INPUT_BYTES = 1024 * 1024;
/** Most transcript reads one Stop runs (500 events each). */
const MAX_TRANSCRIPT_ROUNDS = 20;
/** How many memories and passages a prompt gets, at most. */
const PROMPT_RECALL = 5;

export interface HookInput {
  session_id: string;
  cwd?: string;
  transcript_path?: string;
  prompt?: string;
  hook_event_name?: string;
}

export function hookFailure(message: string): CliFailure {
  return new CliFailure(message, 'invalid_input');
}

/** Reads and checks the hook input on stdin. */
export async function readHookInput(stdin: Readable, event: HookEvent): Promise<HookInput> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of stdin as AsyncIterable<Buffer | string>) {
    const b = Buffer.isBuffer(c) ? c : Buffer.from(c);
    size += b.length;
    if (size > MAX_INPUT_BYTES)
      throw hookFailure(`hook ${event}: the input on stdin is over ${MAX_INPUT_BYTES / 1024} KB: not what Claude Code sends`);
    chunks.push(b);
  }
  let v: unknown;
  try {
    v = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw hookFailure(`hook ${event}: stdin is not JSON: Claude Code sends its hook input as one JSON object`);
  }
  return checkInput(v, event);
}

function checkInput(v: unknown, event: HookEvent): HookInput {
  if (!v || typeof v !== 'object' || Array.isArray(v))
    throw hookFailure(`hook ${event}: stdin must be a JSON object (Claude Code's hook input)`);
  const o = v as Record<string, unknown>;
  const bad = (k: string, what: string) => hookFailure(`hook ${event}: ${k} ${what} in the hook input`);
  if (typeof o.session_id !== 'string' || !o.session_id) throw bad('session_id', 'is missing');
  for (const k of ['cwd', 'transcript_path', 'prompt', 'hook_event_name'])
    if (o[k] !== undefined && typeof o[k] !== 'string') throw bad(k, 'must be a string');
  if (o.hook_event_name !== undefined && o.hook_event_name !== CLAUDE_NAMES[event])
    throw hookFailure(
      `hook ${event}: the input is for ${o.hook_event_name as string}, not ${CLAUDE_NAMES[event]}: check the hook's command in the settings`,
    );
  if (event === 'user-prompt-submit' && typeof o.prompt !== 'string') throw bad('prompt', 'is missing');
  if (event === 'stop' && typeof o.transcript_path !== 'string') throw bad('transcript_path', 'is missing');
  return o as unknown as HookInput;
}

/** What the hook prints: Claude Code's JSON, or nothing. */
export async function runHook(engine: EngineClient, event: HookEvent, input: HookInput): Promise<string> {
  if (event === 'stop') {
    await logTurns(engine, input);
    return '';
  }
  const context = event === 'session-start' ? await startContext(engine) : await promptContext(engine, input.prompt ?? '');
  if (!context) return '';
  return JSON.stringify({ hookSpecificOutput: { hookEventName: CLAUDE_NAMES[event], additionalContext: context } });
}

async function startContext(engine: EngineClient): Promise<string> {
  return projectContext(engine, HOOK_BUDGET_TOKENS['session-start']);
}

/** The memories and passages that clear the relevance floor, within the budget; '' when none. */
async function promptContext(engine: EngineClient, prompt: string): Promise<string> {
  const query = prompt.slice(0, 2000);
  if (!query.trim()) return '';
  const [mem, ses] = await Promise.all([
    engine.request('search', { query, limit: PROMPT_RECALL, recordAccess: true }),
    engine.request('sessions.search', { query, limit: PROMPT_RECALL }),
  ]);
  const budget = HOOK_BUDGET_TOKENS['user-prompt-submit'] * 4;
  const parts: string[] = [];
  let hits = mem.hits;
  // Memories first, dropping the least relevant until the block fits the budget.
  while (hits.length && recallContext(hits).length > budget) hits = hits.slice(0, -1);
  if (hits.length) parts.push(recallContext(hits));
  const left = Math.floor((budget - parts.join('\n').length) / 4);
  if (ses.hits.length && left > 60) {
    const block = dataBlock(`## ${sessionHitsSentence(ses.hits.length)}`, sessionHitLines(ses.hits), left);
    if (block) parts.push(block);
  }
  return parts.join('\n\n');
}

/** Logs the new turns of the transcript, as many reads as it takes (bounded). */
async function logTurns(engine: EngineClient, input: HookInput): Promise<void> {
  for (let round = 0; round < MAX_TRANSCRIPT_ROUNDS; round++) {
    const r = await engine.request('sessions.logTranscript', {
      sessionId: input.session_id,
      path: input.transcript_path!,
      agent: 'claude-code',
      // The turn is logged now and embedded by the store's owner in the background: a Stop hook
      // never waits for (or loads) the embedding model.
      deferEmbedding: true,
    });
    if (!r.more) return;
  }
}
