/**
 * The MCP prompts of `agent-memory mcp`: "recall for this task" (the memories and session
 * passages relevant to a task, as data, with how to use them), "save what we learned" (asks the
 * agent to store the lasting knowledge of the conversation, typed and tagged) and "review
 * suggestions" (the pending merge suggestions, as data, with how to resolve them). Their
 * arguments complete: a memory type from the engine's list, a tag from the tags in use. Recalled
 * text stays inside the recall markers (src/present/recall.ts).
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { completable } from '@modelcontextprotocol/sdk/server/completable.js';
import { z } from 'zod';
import type { EngineClient } from '../engine/client/engineClient';
import { MEMORY_TYPES } from '../core/memory/types';
import { plural } from '../core/text/plural';
import { recallContext } from '../present/recall';
import { dataBlock, sessionHitLines, sessionHitsSentence } from './sessionText';
import { asData } from './toolTable';

/** How many completions one request answers. */
const COMPLETIONS = 20;

const user = (text: string) => ({ messages: [{ role: 'user' as const, content: { type: 'text' as const, text } }] });

/** Tags in use starting with `prefix`, most used first. */
export async function completeTags(engine: EngineClient, prefix: string): Promise<string[]> {
  const { tags } = await engine.request('memory.tagCounts', {});
  const p = prefix.toLowerCase();
  return Object.entries(tags)
    .filter(([t]) => t.toLowerCase().startsWith(p))
    .sort((x, y) => y[1] - x[1] || x[0].localeCompare(y[0]))
    .slice(0, COMPLETIONS)
    .map(([t]) => t);
}

export const completeTypes = (prefix: string): string[] => MEMORY_TYPES.filter((t) => t.startsWith(prefix.toLowerCase()));

export function registerPrompts(server: McpServer, engine: EngineClient): void {
  server.registerPrompt(
    'recall_for_task',
    {
      title: 'Recall for this task',
      description: 'What the project memory and earlier agent sessions know about a task, to read before starting it.',
      argsSchema: {
        task: z.string().min(1).describe('The task, in words.'),
        type: completable(z.string().optional().describe('Only memories of this kind.'), (v) => completeTypes(v ?? '')),
        tag: completable(z.string().optional().describe('Only memories with this tag.'), (v) => completeTags(engine, v ?? '')),
      },
    },
    async (a) => {
      const r = await engine.request('search', {
        query: a.task,
        limit: 10,
        recordAccess: true,
        ...(a.type ? { types: [a.type] } : {}),
        ...(a.tag ? { tags: [a.tag] } : {}),
      });
      const s = a.type || a.tag ? undefined : await engine.request('sessions.search', { query: a.task, limit: 5 });
      const parts = [
        'Before working on the task below, read what the project memory knows about it. Use what still holds, cite it as [m1], [m2], …, ' +
          'and check anything that may be outdated. Call recall_memories for more, and store_memory for what you learn that is worth keeping.',
        `Task: ${a.task}`,
        r.hits.length ? recallContext(r.hits) : 'The project memory has nothing on this task yet.',
      ];
      if (s?.hits.length) parts.push(dataBlock(`## ${sessionHitsSentence(s.hits.length)}`, sessionHitLines(s.hits), 2000));
      return user(parts.join('\n\n'));
    },
  );

  server.registerPrompt(
    'save_what_we_learned',
    {
      title: 'Save what we learned',
      description: 'Asks the agent to store the lasting knowledge of this conversation in the project memory.',
      argsSchema: {
        topic: z.string().optional().describe('Only what is about this.'),
        tag: completable(z.string().optional().describe('A tag to give every memory saved.'), (v) => completeTags(engine, v ?? '')),
      },
    },
    (a) =>
      user(
        [
          `Look back over this conversation${a.topic ? ` (only what is about: ${a.topic})` : ''} and save what a later session should know: ` +
            'decisions and why they were made, rules the team follows, fixes and their causes, pitfalls, commands that work.',
          'For each, call store_memory once, with a self-contained text (no "as discussed above"), a short title and a type from: ' +
            `${MEMORY_TYPES.join(', ')}.${a.tag ? ` Give each the tag "${a.tag}".` : ''}`,
          'Do not save secrets, passwords or keys, anything already in the code or its README, or passing details of this session ' +
            '(store_note is for those). If a memory that is now wrong comes up, fix it with update_memory rather than adding another.',
          'End with a one-line list of what you saved.',
        ].join('\n\n'),
      ),
  );

  server.registerPrompt(
    'review_suggestions',
    {
      title: 'Review merge suggestions',
      description: 'The pending suggestions to merge near-duplicate memories, to accept or reject one by one.',
    },
    async () => {
      const list = await engine.request('suggestions.list', { status: 'pending', limit: 20 });
      if (!list.length) return user('There are no pending merge suggestions: nothing to review.');
      const data = asData(
        `${plural(list.length, 'pending suggestion')}: memory b would be merged into memory a.`,
        list.map((s) => ({ id: s.id, similarity: s.similarity, a: s.a, b: s.b })),
      );
      return user(
        [
          'Review these suggestions to merge near-duplicate memories. For each, read both memories (get_memory gives the full text) and ' +
            'call resolve_suggestion with action "accept" when b says nothing a does not (it is merged into a), or "reject" when they ' +
            'say different things. Say what you decided and why, one line each.',
          data.content[0]!.text,
        ].join('\n\n'),
      );
    },
  );
}
