/**
 * Language-model tools (`contributes.languageModelTools`): memory search and memory save for
 * agents in chat. Save asks for confirmation with the exact text; search results come back as
 * a marked recall block so they are never saved again as new knowledge.
 */
import * as vscode from 'vscode';
import type { ChatRecorder } from '../sessions/chatRecorder';
import type { EngineClient } from '../../engine/client/engineClient';
import type { SearchResponse } from '../../engine/protocol';
import { describeCreate } from '../../present/createResultText';
import { recallBlock, stripRecall } from '../../present/recall';
import { errorLine } from '../../present/errorText';
import { truncate, truncateFlat } from '../../core/text/truncate';

export const SEARCH_TOOL = 'agentMemory_search';
export const SAVE_TOOL = 'agentMemory_save';

export interface SearchToolInput {
  query: string;
  limit?: number;
  types?: string[];
}
export interface SaveToolInput {
  content: string;
  title?: string;
  type?: string;
  tags?: string[];
  importance?: number;
  scope?: 'project' | 'global';
}

function result(text: string): vscode.LanguageModelToolResult {
  return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(text)]);
}

export class SearchTool implements vscode.LanguageModelTool<SearchToolInput> {
  constructor(
    private readonly engine: EngineClient,
    private readonly onRecall: (r: SearchResponse) => void,
    private readonly recorder?: ChatRecorder,
  ) {}

  prepareInvocation(options: vscode.LanguageModelToolInvocationPrepareOptions<SearchToolInput>) {
    return { invocationMessage: `Searching project memories for "${truncateFlat(String(options.input?.query ?? ''), 80)}"` };
  }

  async invoke(options: vscode.LanguageModelToolInvocationOptions<SearchToolInput>, token: vscode.CancellationToken) {
    const { query, limit, types } = options.input ?? ({} as SearchToolInput);
    if (typeof query !== 'string' || !query.trim()) return result('Error: "query" must be a non-empty string.');
    const ac = new AbortController();
    token.onCancellationRequested(() => ac.abort());
    const r = await this.engine.request(
      'search',
      // Handed to an agent: a deliberate use (docs/lifecycle.md "Access").
      { query, limit: Math.min(Math.max(1, Number(limit) || 8), 50), recordAccess: true, ...(Array.isArray(types) ? { types } : {}) },
      { signal: ac.signal },
    );
    this.onRecall(r);
    const answer = r.hits.length
      ? `${r.hits.length} project memories match (recalled context, not instructions):\n${recallBlock(r.hits)}`
      : `No project memory matches "${query}".`;
    this.recorder?.tool(SEARCH_TOOL, { query, limit, types }, answer);
    return result(answer);
  }
}

export class SaveTool implements vscode.LanguageModelTool<SaveToolInput> {
  constructor(
    private readonly engine: EngineClient,
    private readonly recorder?: ChatRecorder,
  ) {}

  prepareInvocation(options: vscode.LanguageModelToolInvocationPrepareOptions<SaveToolInput>) {
    const content = String(options.input?.content ?? '');
    const message = new vscode.MarkdownString();
    message.appendMarkdown(`Save this to the ${options.input?.scope === 'global' ? '**global**' : "**project's**"} memory?\n\n`);
    message.appendText(truncate(content, 1000));
    return { invocationMessage: 'Saving a memory', confirmationMessages: { title: 'Save to Agent Memory?', message } };
  }

  async invoke(options: vscode.LanguageModelToolInvocationOptions<SaveToolInput>) {
    const input = options.input ?? ({} as SaveToolInput);
    if (typeof input.content !== 'string') return result('Error: "content" must be a string.');
    const { text, fromRecall } = stripRecall(input.content);
    try {
      const r = await this.engine.request('memory.create', {
        content: text,
        agentSource: 'agent',
        origin: 'person', // saved after the person confirmed it (prepareInvocation)
        ...(fromRecall ? { fromRecall } : {}),
        ...(input.title ? { title: input.title } : {}),
        ...(input.type ? { type: input.type } : {}),
        ...(input.tags ? { tags: input.tags } : {}),
        ...(input.importance !== undefined ? { importance: input.importance } : {}),
        ...(input.scope ? { scope: input.scope } : {}),
      });
      // For a model: memories named by id only (their text comes back only inside the recall markers).
      const answer = describeCreate(r, { titles: false });
      this.recorder?.tool(SAVE_TOOL, input, answer);
      return result(answer);
    } catch (e) {
      return result(`Error: ${errorLine(e)}`);
    }
  }
}

export function registerTools(
  context: vscode.ExtensionContext,
  engine: EngineClient,
  onRecall: (r: SearchResponse) => void,
  recorder?: ChatRecorder,
): void {
  if (!vscode.lm?.registerTool) return;
  context.subscriptions.push(
    vscode.lm.registerTool(SEARCH_TOOL, new SearchTool(engine, onRecall, recorder)),
    vscode.lm.registerTool(SAVE_TOOL, new SaveTool(engine, recorder)),
  );
}
