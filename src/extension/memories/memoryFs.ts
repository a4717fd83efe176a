/**
 * Memories as editable documents (docs/editing.md): a FileSystemProvider for `agent-memory:`
 * URIs. Reading renders the memory (memoryFsFormat.ts); saving sends ONE memory.update with the
 * changed fields and the version the editor was loaded from, so a change made meanwhile is never
 * overwritten silently. Mostly VS Code's own save check finds it first (the stored document's
 * size changed): "The content of the file is newer", with Compare and Overwrite. When the size did
 * not change that check cannot tell, and the engine's version check fails the save here and opens a
 * compare view of the stored memory next to the unsaved text; saving again overwrites on purpose.
 * Old versions (`version=N` in the query) and kept conflict texts (`conflict=N`) are read-only.
 */
import * as vscode from 'vscode';
import type { EngineClient } from '../../engine/client/engineClient';
import { EngineError } from '../../engine/errors';
import { errorLine } from '../../present/errorText';
import type { MemoryRecord, MemoryVersion } from '../../engine/protocol';
import type { UpdatedMemory } from '../../core/memory/types';
import { MemoryFieldError, notSavedMessage, parseMemoryDocument, patchFor, renderMemory } from './memoryFsFormat';
import { addressQuery, memoryLocation, memoryName, parseAddress, SCHEME, type MemoryAddress, type MemoryView } from './memoryFsNames';

export { SCHEME as MEMORY_SCHEME };

/** The language of editable memory documents: markdown, wrapped, no auto save (package.json). */
export const MEMORY_LANGUAGE = 'agent-memory';

export function memoryUri(id: string, title: string, content = '', view: MemoryView = {}): vscode.Uri {
  return vscode.Uri.from({ scheme: SCHEME, ...memoryLocation(id, title, content, view) });
}

export function versionUri(m: Pick<MemoryRecord, 'id' | 'title' | 'content'>, version: number): vscode.Uri {
  return memoryUri(m.id, m.title, m.content, { version });
}

/** The memory a document of any of its views (editable, old version, conflict) shows; undefined for other URIs. */
export function memoryIdOfUri(uri: vscode.Uri): string | undefined {
  return uri.scheme === SCHEME ? parseAddress(uri.path, uri.query)?.id : undefined;
}

/** The editable document's address, undefined for other URIs (versions, conflicts, other schemes). */
export function editableAddress(uri: vscode.Uri): MemoryAddress | undefined {
  if (uri.scheme !== SCHEME) return undefined;
  const a = parseAddress(uri.path, uri.query);
  return a && !a.version && !a.conflict ? a : undefined;
}

const enc = new TextEncoder();
const dec = new TextDecoder();

/** An old version as a record to render (its own fields and time, the rest from the current record). */
function versionRecord(m: MemoryRecord, v: MemoryVersion): MemoryRecord {
  return {
    ...m,
    ...v,
    type: v.type as MemoryRecord['type'],
    createdAt: m.createdAt,
    updatedAt: v.createdAt,
    ttlSeconds: v.expiresAt ? m.ttlSeconds : null,
  };
}

export interface MemoryFsHooks {
  /** A save went through (status-bar confirmation; `m.redacted`: what the secret guard removed). */
  saved(m: UpdatedMemory, moved: boolean): void;
}

export class MemoryFileSystem implements vscode.FileSystemProvider, vscode.Disposable {
  private readonly changes = new vscode.EventEmitter<vscode.FileChangeEvent[]>();
  readonly onDidChangeFile = this.changes.event;
  /** The record each editable document was last read from, and the size read: a save is checked against its version. */
  private readonly base = new Map<string, { record: MemoryRecord; size: number }>();
  /** What the last stat of each editable document reported: VS Code's save check compared that with the size read. */
  private readonly statted = new Map<string, { version: number; size: number }>();
  /** After a conflict: the stored version the person was shown; saving over that version again overwrites on purpose. */
  private readonly warnedAt = new Map<string, number>();
  /** Unsaved texts shown in conflict compare views. */
  private readonly conflictTexts = new Map<string, { text: string; at: number }>();
  private conflictSeq = 0;
  private readonly sub: { dispose(): void };

  constructor(
    private readonly engine: EngineClient,
    private readonly hooks: MemoryFsHooks,
  ) {
    this.sub = engine.onEvent((e) => {
      if (e.type === 'memory.changed')
        this.fireFor(e.ids, e.kind === 'deleted' ? vscode.FileChangeType.Deleted : vscode.FileChangeType.Changed);
    });
  }

  /** Open editors of these memories reload (or show "deleted"). */
  private fireFor(ids: string[], type: vscode.FileChangeType): void {
    const events = vscode.workspace.textDocuments
      .filter((d) => ids.includes(editableAddress(d.uri)?.id ?? ''))
      .map((d) => ({ type, uri: d.uri }));
    if (events.length) this.changes.fire(events);
  }

  watch(): vscode.Disposable {
    return new vscode.Disposable(() => undefined); // every change of the store is reported (engine events)
  }

  async stat(uri: vscode.Uri): Promise<vscode.FileStat> {
    // `/` (and `/<id>`, the folder of earlier addresses) are folders: workspace.fs.writeFile checks the parent exists.
    if (!parseAddress(uri.path, uri.query)) {
      if (uri.path.endsWith('.md')) throw vscode.FileSystemError.FileNotFound(uri);
      return { type: vscode.FileType.Directory, ctime: 0, mtime: 0, size: 0 };
    }
    const { text, record, readonly } = await this.load(uri);
    const size = enc.encode(text).byteLength;
    if (!readonly) this.statted.set(record.id, { version: record.version, size });
    return {
      type: vscode.FileType.File,
      ctime: Date.parse(record.createdAt),
      mtime: Date.parse(record.updatedAt),
      size,
      ...(readonly ? { permissions: vscode.FilePermission.Readonly } : {}),
    };
  }

  async readFile(uri: vscode.Uri): Promise<Uint8Array> {
    const { text, record, readonly } = await this.load(uri);
    const bytes = enc.encode(text);
    if (!readonly) this.base.set(record.id, { record, size: bytes.byteLength });
    return bytes;
  }

  /** The text a URI shows and the record it comes from. */
  private async load(uri: vscode.Uri): Promise<{ text: string; record: MemoryRecord; readonly: boolean }> {
    const a = this.address(uri);
    const m = await this.get(a.id, a.version !== undefined || a.conflict !== undefined);
    if (a.conflict !== undefined) {
      const kept = this.conflictTexts.get(a.conflict);
      if (!kept) throw vscode.FileSystemError.FileNotFound(uri);
      const at = new Date(kept.at).toISOString();
      return { text: kept.text, record: { ...m, createdAt: at, updatedAt: at }, readonly: true };
    }
    if (a.version !== undefined) {
      const v = (await this.engine.request('memory.versions', { id: a.id })).find((x) => x.version === a.version);
      if (!v) throw new vscode.FileSystemError(`"${memoryName(m.title, m.content)}" has no version ${a.version}.`);
      const rec = versionRecord(m, v);
      return { text: renderMemory(rec), record: rec, readonly: true };
    }
    return { text: renderMemory(m), record: m, readonly: false };
  }

  private address(uri: vscode.Uri): MemoryAddress {
    const a = parseAddress(uri.path, uri.query);
    if (!a) throw vscode.FileSystemError.FileNotFound(uri);
    return a;
  }

  private async get(id: string, includeDeleted: boolean): Promise<MemoryRecord> {
    let m: MemoryRecord | null;
    try {
      m = await this.engine.request('memory.get', { id, includeDeleted });
    } catch (e) {
      throw new vscode.FileSystemError(`Cannot load the memory: ${errorLine(e)}`);
    }
    if (!m || (!includeDeleted && m.deletedAt)) {
      throw vscode.FileSystemError.FileNotFound(
        `This memory no longer exists: it was deleted or expired (the "Recently Deleted and Expired" view can restore it).`,
      );
    }
    return m;
  }

  async writeFile(uri: vscode.Uri, content: Uint8Array): Promise<void> {
    const a = this.address(uri);
    if (a.version !== undefined || a.conflict !== undefined) {
      throw vscode.FileSystemError.NoPermissions(
        'An old version is read-only: "Restore this version" in the memory history brings it back.',
      );
    }
    const current = await this.engine.request('memory.get', { id: a.id });
    if (!current) {
      throw vscode.FileSystemError.FileNotFound(
        'This memory was deleted meanwhile, so your text is not saved. Copy it before closing, or restore the memory first.',
      );
    }
    const text = dec.decode(content);
    const fields = parsed(text, current);
    const read = this.base.get(a.id);
    const base = read?.record ?? current;
    const overwrite = base.version !== current.version;
    if (overwrite && !this.overwriteChosen(current, read?.size)) throw this.conflict(uri, base, current, text);
    const patch = patchFor(fields, overwrite ? current : base);
    if (!Object.keys(patch).length) {
      this.base.set(a.id, { record: current, size: enc.encode(renderMemory(current)).byteLength });
      return;
    }
    let saved: UpdatedMemory;
    try {
      saved = await this.engine.request('memory.update', { id: a.id, patch: { ...patch, expectedVersion: current.version } });
    } catch (e) {
      if (e instanceof EngineError && e.code === 'version_conflict') {
        const now = await this.engine.request('memory.get', { id: a.id });
        if (now) throw this.conflict(uri, base, now, text);
      }
      throw new vscode.FileSystemError(`Not saved: ${errorLine(e)}`);
    }
    this.warnedAt.delete(a.id);
    this.base.set(saved.id, { record: saved, size: enc.encode(renderMemory(saved)).byteLength });
    this.hooks.saved(saved, saved.id !== a.id);
  }

  /**
   * A save over a newer stored version is on purpose when the person was already told: by this
   * provider (a failed save, then Save again), or by VS Code's save check, which stats the document
   * just before writing and stops a save whose stored size differs from the size read ("The content
   * of the file is newer"); a save that still reaches here over that version is its "Overwrite".
   */
  private overwriteChosen(current: MemoryRecord, sizeRead: number | undefined): boolean {
    if (this.warnedAt.get(current.id) === current.version) return true;
    const seen = this.statted.get(current.id);
    return seen !== undefined && sizeRead !== undefined && seen.version === current.version && seen.size !== sizeRead;
  }

  /** Opens the compare view (stored ↔ unsaved text) and returns the error that fails this save. */
  private conflict(uri: vscode.Uri, base: MemoryRecord, current: MemoryRecord, text: string): vscode.FileSystemError {
    this.warnedAt.set(current.id, current.version);
    const key = String(++this.conflictSeq);
    this.conflictTexts.set(key, { text, at: Date.now() });
    const name = memoryName(current.title, current.content);
    void vscode.commands.executeCommand(
      'vscode.diff',
      versionUri(current, current.version),
      uri.with({ query: addressQuery(current.id, { conflict: key }) }),
      `${name}: Stored (Version ${current.version}) ↔ Your Changes`,
      { preview: true },
    );
    return new vscode.FileSystemError(
      `"${name}" changed while you were editing it (you edited version ${base.version}, version ${current.version} is stored). ` +
        'Nothing was overwritten: the compare view shows both. Save again (Retry) to replace it with your text, or Revert to discard your changes.',
    );
  }

  readDirectory(): [string, vscode.FileType][] {
    return [];
  }

  createDirectory(): void {
    throw vscode.FileSystemError.NoPermissions('Memories are not folders.');
  }

  delete(): void {
    throw vscode.FileSystemError.NoPermissions('Delete a memory with "Agent Memory: Delete Memory".');
  }

  rename(): void {
    throw vscode.FileSystemError.NoPermissions('Rename a memory by editing its title.');
  }

  dispose(): void {
    this.sub.dispose();
    this.changes.dispose();
  }
}

/**
 * The document's fields, or an error naming the wrong one. Ctrl+S on such a document is answered
 * before it gets here (memoryDiagnostics.ts); other saves (Save All, closing with Save) show this
 * sentence inside VS Code's "Failed to save …" notification.
 */
function parsed(text: string, current: MemoryRecord) {
  try {
    return parseMemoryDocument(text, current);
  } catch (e) {
    if (e instanceof MemoryFieldError) throw new vscode.FileSystemError(notSavedMessage(e));
    throw e;
  }
}
