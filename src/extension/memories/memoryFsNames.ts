/**
 * Names and addresses of memory documents (docs/editing.md): `agent-memory:/<name>.md?id=<id>`,
 * where `<name>` — the editor tab's title and the breadcrumb — is the memory's title, or the
 * first words of its text, cut on a grapheme boundary (an emoji or accented letter is never
 * split). The id sits in the query, so the breadcrumb shows the name alone. More of the query
 * selects a read-only view: `version=3` an old version, `conflict=<n>` unsaved text kept for a
 * compare view. Pure: no `vscode` import (memoryFs.ts builds the URIs).
 */
import { truncate } from '../../core/text/truncate';

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

/** A read-only view of a memory: an old version, or unsaved text kept for a conflict's compare view. */
export interface MemoryView {
  version?: number;
  conflict?: string;
}

/** The query of memory `id`'s document (or of one of its read-only views). */
export function addressQuery(id: string, view: MemoryView = {}): string {
  const q = new URLSearchParams({ id });
  if (view.version !== undefined) q.set('version', String(view.version));
  if (view.conflict !== undefined) q.set('conflict', view.conflict);
  return q.toString();
}

/** `path` and `query` of the document of memory `id`: `/<name>.md` and `id=<id>`. */
export function memoryLocation(id: string, title: string, content: string, view: MemoryView = {}): { path: string; query: string } {
  return { path: `/${memoryName(title, content)}.md`, query: addressQuery(id, view) };
}

/** Reads an address from a URI's path and query; undefined without an id. */
export function parseAddress(path: string, query: string): MemoryAddress | undefined {
  const params = new URLSearchParams(query);
  // Documents opened by earlier versions (restored after a reload) have the id as their folder: `/<id>/<name>.md`.
  const segments = path.split('/').filter(Boolean);
  const id = params.get('id') || (segments.length >= 2 ? decodeURIComponent(segments[0]!) : '');
  if (!id) return undefined;
  const version = Number(params.get('version'));
  const conflict = params.get('conflict');
  return {
    id,
    ...(Number.isInteger(version) && version > 0 ? { version } : {}),
    ...(conflict ? { conflict } : {}),
  };
}
