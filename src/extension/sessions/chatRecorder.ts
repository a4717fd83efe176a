/**
 * `@memory` and the language-model tools record their turns as an agent session
 * (docs/sessions.md "In VS Code"): one session per VS Code window (`vscode-chat-<window>`), the
 * person's prompt and the answer as events; a tool call as one `tool` event (its input and what
 * it answered). Recording is on unless the setting `agentMemory.storage.recordChatSessions` is off. A
 * recording that fails is logged and never fails the chat.
 */
import * as vscode from 'vscode';
import type { EngineClient } from '../../engine/client/engineClient';
import { SETTINGS_SECTION } from '../config/settingsSchema';
import type { Logger } from '../host/log';

export const RECORD_SETTING = 'storage.recordChatSessions';
/** Largest answer text recorded per turn (the event limit is higher; a chat answer is rarely longer). */
const MAX_TEXT = 32 * 1024;

export interface ChatRecorder {
  /** A chat turn: the prompt and the answer's text. */
  turn(prompt: string, answer: string): void;
  /** A tool call: its name, input and answer. */
  tool(name: string, input: unknown, answer: string): void;
}

/** The answer's Markdown as the text a person read (no escapes, no &nbsp;), for the transcript and search. */
export function plainAnswer(markdown: string): string {
  return markdown.replace(/&nbsp;/g, ' ').replace(/\\([\\`*_{}[\]()#+\-.!<>|~])/g, '$1');
}

export function chatSessionId(windowSessionId: string): string {
  return `vscode-chat-${windowSessionId.replace(/[^\w.-]/g, '').slice(0, 64) || 'window'}`;
}

export function createChatRecorder(engine: EngineClient, log: Pick<Logger, 'info'>): ChatRecorder {
  const sessionId = chatSessionId(vscode.env.sessionId);
  const enabled = () => vscode.workspace.getConfiguration(SETTINGS_SECTION).get<boolean>(RECORD_SETTING, true) !== false;
  let queue: Promise<unknown> = Promise.resolve();
  const log1 = (events: { payload: Record<string, unknown> }[]) => {
    if (!enabled()) return;
    // In order: one call after the other.
    queue = queue
      .then(() => engine.request('sessions.log', { sessionId, events, agent: 'VS Code chat' }))
      .catch((e: unknown) => log.info(`could not record the chat turn in session ${sessionId}: ${(e as Error).message}`));
  };
  return {
    turn(prompt, answer) {
      log1([
        { payload: { role: 'user', content: prompt.slice(0, MAX_TEXT) } },
        { payload: { role: 'assistant', content: plainAnswer(answer).slice(0, MAX_TEXT) } },
      ]);
    },
    tool(name, input, answer) {
      log1([{ payload: { role: 'tool', content: answer.slice(0, MAX_TEXT), tool_calls: [{ name, arguments: input }] } }]);
    },
  };
}
