/**
 * Read-only documents for memories (`agent-memory:/<id>/<title>.md`): "Open Memory" shows the
 * full record as text. Refreshed when the engine reports a change of that memory.
 */
import * as vscode from 'vscode';
import type { EngineClient } from '../engine/client';
import type { MemoryRecord } from '../engine/protocol';
import { errorLine } from '../engine/errorText';
import { displayText } from '../core/documents/markdownText';
import { truncate } from '../core/text/truncate';
import { expiryText, humanDate, relativeTime } from '../core/text/relativeTime';

export const MEMORY_SCHEME = 'agent-memory';

export function memoryUri(id: string, title: string): vscode.Uri {
  const name =
    truncate(
      (title || 'memory')
        .replace(/[/\\\p{Cc}]+/gu, ' ') // only what a file name cannot hold: "ONBOARDING.md › Setup (2 of 3)" stays readable
        .replace(/\s+/g, ' ')
        .replace(/[.\s]+$/, '')
        .trim(),
      60,
    ) || 'memory';
  return vscode.Uri.from({ scheme: MEMORY_SCHEME, path: `/${encodeURIComponent(id)}/${name}.md` });
}

export function idFromUri(uri: vscode.Uri): string {
  return decodeURIComponent(uri.path.split('/')[1] ?? '');
}

export function renderMemory(m: MemoryRecord): string {
  const lines = [
    `# ${m.title || '(untitled memory)'}`,
    '',
    displayText(m),
    '',
    '---',
    `- id: ${m.id}`,
    `- type: ${m.type} · scope: ${m.scope} · importance: ${m.importance}`,
    `- tags: ${m.tags.length ? m.tags.join(', ') : '(none)'}`,
    `- lifetime: ${m.expiresAt ? `${expiryText(m.expiresAt)}, ${humanDate(m.expiresAt)} (promote to keep it)` : 'permanent'}`,
    `- version ${m.version} · created ${relativeTime(m.createdAt)} (${humanDate(m.createdAt)}) · updated ${relativeTime(m.updatedAt)}`,
    `- source: ${m.agentSource ?? m.source ?? m.who ?? 'user'}`,
  ];
  return lines.join('\n') + '\n';
}

export class MemoryDocumentProvider implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private readonly sub: { dispose(): void };

  constructor(private readonly engine: EngineClient) {
    this.sub = engine.onEvent((e) => {
      if (e.type !== 'memory.changed') return;
      for (const doc of vscode.workspace.textDocuments) {
        if (doc.uri.scheme === MEMORY_SCHEME && e.ids.includes(idFromUri(doc.uri))) this.changed.fire(doc.uri);
      }
    });
  }

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const id = idFromUri(uri);
    try {
      const m = await this.engine.request('memory.get', { id });
      return m ? renderMemory(m) : `Memory ${id} does not exist (any more).\n`;
    } catch (e) {
      return `Cannot load memory ${id}: ${errorLine(e)}\n`;
    }
  }

  dispose(): void {
    this.sub.dispose();
    this.changed.dispose();
  }
}
