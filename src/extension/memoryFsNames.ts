/**
 * Names and addresses of memory documents (docs/editing.md): `agent-memory:/<id>/<name>.md`,
 * where `<name>` — the editor tab's title — is the memory's title, or the first words of its
 * text, cut on a grapheme boundary (an emoji or accented letter is never split). The query
 * selects a read-only view: `?version=3` an old version, `?conflict=<n>` unsaved text kept for
 * a compare view. Pure: no `vscode` import (memoryFs.ts builds the URIs).
 */
import { truncate } from '../core/text/truncate';

/** Longest tab title, in graphemes (before ".md"). */
export const NAME_MAX = 60;

export const SCHEME = 'agent-memory';

/** The tab title (without ".md"): title, else the first line's words; never empty. */
export function memoryName(title: string, content: string): string {
  const source = title.trim() || content.trim().split('\n')[0] || '';
  // Path separators and control characters cannot be in a file name; the rest is kept as typed.
  const clean = Array.from(source, (ch) => (ch === '/' || ch === '\\' || ch.charCodeAt(0) < 32 || ch.charCodeAt(0) === 127 ? ' ' : ch))
    .join('')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/[.\s]+$/, ''); // "Use pnpm, not npm." → "Use pnpm, not npm" (no "npm..md")
  return truncate(clean, NAME_MAX) || 'Memory';
}

/** What a memory URI addresses. */
export interface MemoryAddress {
  id: string;
  /** An old version (read-only). */
  version?: number;
  /** Unsaved text kept for a conflict's compare view (read-only). */
  conflict?: string;
}

/** `path` and `query` of the document of memory `id`. */
export function memoryPath(id: string, title: string, content: string): string {
  return `/${encodeURIComponent(id)}/${memoryName(title, content)}.md`;
}

/** Reads an address from a URI's path and query; undefined when the path has no id. */
export function parseAddress(path: string, query: string): MemoryAddress | undefined {
  const id = decodeURIComponent(path.split('/')[1] ?? '');
  if (!id) return undefined;
  const params = new URLSearchParams(query);
  const version = Number(params.get('version'));
  const conflict = params.get('conflict');
  return {
    id,
    ...(Number.isInteger(version) && version > 0 ? { version } : {}),
    ...(conflict ? { conflict } : {}),
  };
}
