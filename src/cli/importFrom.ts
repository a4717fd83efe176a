/**
 * `agent-memory import-from` (docs/import-from-tools.md): the memories people keep in other tools
 * (CLAUDE.md, AGENTS.md, Copilot instructions, Cursor rules, Windsurf rules, a Cline memory bank,
 * Claude Code's auto-memory, Codex memories) become memories of this store. Without --yes it shows
 * the plan: each item with its line and type, what is a duplicate of an existing memory, what
 * looks like a secret (never imported), what changed since the last import and what was removed
 * from its file. With --yes the plan is applied, each memory keeping its provenance (file, line,
 * the item's key and hash); a re-import of unchanged files adds nothing, of a changed file updates
 * and removes what came from it. --undo takes back the last import as a whole.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { EngineClient } from '../engine/client/engineClient';
import type { MemorySummary } from '../engine/protocol';
import { resolveStoreHome } from '../engine/storeLocation';
import { projectStoreDir } from '../engine/socket/endpoint';
import { findToolFiles, itemTitle, splitMarkdown, type ToolFile, type ToolItem } from '../core/imports/toolFiles';
import { hasSecret } from '../core/secrets/detect';
import { agentsMdSection, withSection } from '../core/imports/agentsMd';
import { plural } from '../core/text/plural';
import type { CliArgs } from './args';
import type { CommandOutput } from './commands';

export const IMPORTED_TAG = 'imported';
const WHO = 'import-from';
const LAST_FILE = 'import-from-last.json';

interface Provenance {
  tool: string;
  file: string;
  line: number;
  key: string;
  hash: string;
}

export type PlanAction = 'add' | 'update' | 'unchanged' | 'duplicate' | 'secret';

export interface PlanEntry {
  action: PlanAction;
  tool: string;
  file: string;
  scope: 'project' | 'global';
  item: ToolItem;
  /** update / unchanged: the memory that came from this item; duplicate: the memory with the same text. */
  memoryId?: string;
}

export interface ImportPlan {
  files: (ToolFile & { items: number })[];
  entries: PlanEntry[];
  /** Memories that came from an item no longer in its file. */
  removed: { id: string; file: string; line: number }[];
}

interface LastImport {
  at: string;
  created: string[];
  updated: { id: string; version: number }[];
  deleted: string[];
}

const norm = (t: string) => t.replace(/\s+/g, ' ').trim().toLowerCase();

/** Every memory an earlier import made, by file and key. */
async function earlierImports(engine: EngineClient): Promise<Map<string, { id: string; prov: Provenance }>> {
  const out = new Map<string, { id: string; prov: Provenance }>();
  const summaries: MemorySummary[] = [];
  for (let offset = 0; ; offset += 100) {
    const page = await engine.request('memory.list', { tags: [IMPORTED_TAG], limit: 100, offset });
    summaries.push(...page.items);
    if (offset + page.items.length >= page.total || !page.items.length) break;
  }
  for (const s of summaries) {
    const m = await engine.request('memory.get', { id: s.id });
    const prov = m?.metadata?.importedFrom as Provenance | undefined;
    if (m && prov?.file && prov.key) out.set(`${prov.file}\n${prov.key}`, { id: m.id, prov });
  }
  return out;
}

async function duplicateOf(engine: EngineClient, text: string): Promise<string | undefined> {
  const r = await engine.request('search', { query: text.slice(0, 500), limit: 3 });
  return r.hits.find((h) => norm(h.content) === norm(text))?.memory.id;
}

/** `vsCodeUser`: the `User` folder of the VS Code asking (the extension), searched before the usual places. */
export async function planImport(engine: EngineClient, workspace: string, home: string, vsCodeUser: string[] = []): Promise<ImportPlan> {
  const files = findToolFiles(workspace, home, process.env, vsCodeUser);
  const before = await earlierImports(engine);
  const plan: ImportPlan = { files: [], entries: [], removed: [] };
  const seenKeys = new Set<string>();
  const seenTexts = new Set<string>();
  for (const f of files) {
    const items = splitMarkdown(fs.readFileSync(f.path, 'utf8'));
    plan.files.push({ ...f, items: items.length });
    for (const item of items) {
      const k = `${f.path}\n${item.key}`;
      seenKeys.add(k);
      const earlier = before.get(k);
      const base = { tool: f.tool, file: f.path, scope: f.scope, item };
      if (hasSecret(item.text)) plan.entries.push({ ...base, action: 'secret' });
      else if (earlier)
        plan.entries.push({ ...base, action: earlier.prov.hash === item.hash ? 'unchanged' : 'update', memoryId: earlier.id });
      else {
        const dup = seenTexts.has(norm(item.text)) ? 'this import' : await duplicateOf(engine, item.text);
        plan.entries.push(
          dup ? { ...base, action: 'duplicate', ...(dup !== 'this import' ? { memoryId: dup } : {}) } : { ...base, action: 'add' },
        );
      }
      seenTexts.add(norm(item.text));
    }
  }
  const found = new Set(files.map((f) => f.path));
  for (const [k, v] of before) {
    // An item gone from a file that is still there (a file that went away is left alone: it may be elsewhere now).
    if (!seenKeys.has(k) && found.has(v.prov.file)) plan.removed.push({ id: v.id, file: v.prov.file, line: v.prov.line });
  }
  return plan;
}

const slug = (tool: string) => tool.toLowerCase().replace(/[^a-z0-9]+/g, '-');

function provenance(e: PlanEntry): Provenance {
  return { tool: e.tool, file: e.file, line: e.item.line, key: e.item.key, hash: e.item.hash };
}

/** Applies a plan; what it did is kept for --undo. */
export async function applyImport(engine: EngineClient, plan: ImportPlan, shown: (f: string) => string): Promise<LastImport> {
  const last: LastImport = { at: new Date().toISOString(), created: [], updated: [], deleted: [] };
  for (const e of plan.entries) {
    const common = { title: itemTitle(e.item), type: e.item.type, metadata: { importedFrom: provenance(e) } };
    if (e.action === 'add') {
      const r = await engine.request('memory.create', {
        ...common,
        content: e.item.text,
        scope: e.scope,
        tags: [IMPORTED_TAG, slug(e.tool)],
        source: `${shown(e.file)}:${e.item.line}`,
        who: WHO,
        why: `imported from ${e.tool}`,
      });
      if (r.status === 'created') last.created.push(r.memory.id);
    } else if (e.action === 'update' && e.memoryId) {
      const m = await engine.request('memory.get', { id: e.memoryId });
      if (!m) continue;
      await engine.request('memory.update', { id: m.id, patch: { ...common, content: e.item.text, who: WHO } });
      last.updated.push({ id: m.id, version: m.version });
    }
  }
  for (const r of plan.removed) {
    await engine.request('memory.delete', { id: r.id, who: WHO, reason: `no longer in ${shown(r.file)}` });
    last.deleted.push(r.id);
  }
  return last;
}

export async function undoImport(engine: EngineClient, last: LastImport): Promise<{ removed: number; reverted: number; restored: number }> {
  for (const id of last.created) await engine.request('memory.delete', { id, who: WHO, reason: 'import undone' }).catch(() => undefined);
  for (const u of last.updated) await engine.request('memory.restoreVersion', { id: u.id, version: u.version });
  for (const id of last.deleted) await engine.request('memory.restore', { id });
  return { removed: last.created.length, reverted: last.updated.length, restored: last.deleted.length };
}

const MARK: Record<PlanAction, string> = { add: '+', update: '~', unchanged: '=', duplicate: '=', secret: '!' };

function entryLine(e: PlanEntry): string {
  const first = e.item.text.split('\n')[0]!.replace(/\s+/g, ' ');
  const words = first.length > 90 ? `${first.slice(0, 89)}…` : first;
  const what: Record<PlanAction, string> = {
    add: `${e.item.type}`,
    update: `${e.item.type}, changed since the last import`,
    unchanged: 'already imported, unchanged',
    duplicate: e.memoryId ? `a duplicate of memory ${e.memoryId}` : 'a duplicate of an item above',
    secret: 'looks like a secret: not imported',
  };
  return `  ${MARK[e.action]} line ${e.item.line} (${what[e.action]}): ${e.action === 'secret' ? '…' : words}`;
}

export function describePlan(plan: ImportPlan, shown: (f: string) => string): string {
  if (!plan.files.length) return 'No memory files of other tools were found for this project or in your home folder.';
  const out: string[] = [];
  for (const f of plan.files) {
    out.push(`${shown(f.path)} (${f.tool}, ${f.scope === 'global' ? 'for every project' : 'this project'}): ${plural(f.items, 'item')}`);
    for (const e of plan.entries.filter((x) => x.file === f.path && x.action !== 'unchanged')) out.push(entryLine(e));
  }
  for (const r of plan.removed)
    out.push(`  - memory ${r.id}: its item (line ${r.line} of ${shown(r.file)}) is no longer there; it would be deleted`);
  const n = (a: PlanAction) => plan.entries.filter((e) => e.action === a).length;
  out.push(
    `${plural(n('add'), 'new memory', 'new memories')}, ${plural(n('update'), 'update')}, ${plural(plan.removed.length, 'removal')}; ` +
      `${n('unchanged')} unchanged, ${plural(n('duplicate'), 'duplicate')} and ${plural(n('secret'), 'possible secret')} left out.`,
  );
  return out.join('\n');
}

function lastPath(dir: string): string {
  return path.join(dir, LAST_FILE);
}

/** Keeps what an import did, for its undo (in the project's store folder, shared by the CLI and VS Code). */
export function saveLastImport(dir: string, last: LastImport): void {
  if (!last.created.length && !last.updated.length && !last.deleted.length) return;
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(lastPath(dir), JSON.stringify(last), { mode: 0o600 });
}

/** Undoes the last import (once): undefined when there is none. */
export async function undoLastImport(engine: EngineClient, dir: string): Promise<Awaited<ReturnType<typeof undoImport>> | undefined> {
  if (!fs.existsSync(lastPath(dir))) return undefined;
  const r = await undoImport(engine, JSON.parse(fs.readFileSync(lastPath(dir), 'utf8')) as LastImport);
  fs.rmSync(lastPath(dir));
  return r;
}

/** What an import did, in words. */
export function describeImported(last: LastImport, files: number): string {
  return (
    `Imported ${plural(last.created.length, 'memory', 'memories')} from ${plural(files, 'file')}` +
    ` (${plural(last.updated.length, 'update')}, ${plural(last.deleted.length, 'removal')}).`
  );
}

/** How many memories a plan would add, update or remove. */
export const planWork = (plan: ImportPlan): number =>
  plan.entries.filter((e) => e.action === 'add' || e.action === 'update').length + plan.removed.length;

/** The command: plan (default), --yes applies, --undo takes back the last import. */
export async function importFromCommand(engine: EngineClient, a: CliArgs): Promise<CommandOutput> {
  const workspace = path.resolve(a.workspace);
  const home = os.homedir();
  const dir = await projectStoreDir({ home: resolveStoreHome(a.home), workspaceRoot: workspace });
  const shown = shownPath(workspace, home);
  if (a.undo) {
    const r = await undoLastImport(engine, dir);
    if (!r) return { json: { undone: false }, text: 'There is no import to undo.' };
    return {
      json: { undone: true, ...r },
      text: `The last import is undone: ${plural(r.removed, 'memory', 'memories')} removed, ${plural(r.reverted, 'memory', 'memories')} set back, ${plural(r.restored, 'memory', 'memories')} restored.`,
    };
  }
  const plan = await planImport(engine, workspace, home);
  if (!a.yes) return { json: plan, text: `${describePlan(plan, shown)}${planWork(plan) ? '\nRun again with --yes to import.' : ''}` };
  const last = await applyImport(engine, plan, shown);
  saveLastImport(dir, last);
  const done = last.created.length || last.updated.length || last.deleted.length;
  return {
    json: { ...last, plan },
    text: describeImported(last, plan.files.length) + (done ? ' Take it back with: agent-memory import-from --undo' : ''),
  };
}

/** A file as people read it: relative to the project, or under ~. */
export function shownPath(workspace: string, home: string): (f: string) => string {
  return (f) =>
    f.startsWith(workspace + path.sep) ? path.relative(workspace, f) : f.startsWith(home + path.sep) ? `~${f.slice(home.length)}` : f;
}

/** How many memories the AGENTS.md section holds at most (the most important, then the newest). */
const SECTION_MEMORIES = 40;

/** The AGENTS.md section of the project's most important memories (document chunks and memories from AGENTS.md left out). */
export async function agentsMdFor(engine: EngineClient): Promise<{ section: string; memories: number }> {
  const page = await engine.request('memory.list', { scope: 'project', limit: 100 });
  const top = page.items
    .filter((m) => m.type !== 'document_chunk')
    .sort((x, y) => y.importance - x.importance || y.updatedAt.localeCompare(x.updatedAt))
    .slice(0, SECTION_MEMORIES * 2);
  const picked = [];
  for (const s of top) {
    const m = await engine.request('memory.get', { id: s.id });
    if (!m || m.source?.startsWith('AGENTS.md:')) continue;
    picked.push({ type: m.type, title: m.title, content: m.content });
    if (picked.length === SECTION_MEMORIES) break;
  }
  return { section: agentsMdSection(picked), memories: picked.length };
}

/** Writes the section into the project's AGENTS.md (the rest kept); whether the file changed, and whether it was new. */
export function writeAgentsMd(workspace: string, section: string): { file: string; changed: boolean; created: boolean } {
  const file = path.join(workspace, 'AGENTS.md');
  const before = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : undefined;
  const after = withSection(before, section);
  if (after !== before) fs.writeFileSync(file, after);
  return { file, changed: after !== before, created: before === undefined };
}

/**
 * `agent-memory agents-md`: the project's most important memories as an AGENTS.md section for
 * tools that read markdown only; --write puts it into the project's AGENTS.md (replacing the
 * section written before, the rest of the file kept).
 */
export async function agentsMdCommand(engine: EngineClient, a: CliArgs): Promise<CommandOutput> {
  const { section, memories } = await agentsMdFor(engine);
  if (!a.write) return { json: { section, memories }, text: section };
  const w = writeAgentsMd(path.resolve(a.workspace), section);
  return {
    json: { file: w.file, memories, changed: w.changed },
    text: w.changed
      ? `AGENTS.md ${w.created ? 'written' : 'updated'} with ${plural(memories, 'memory', 'memories')} (the rest of the file is as it was).`
      : `AGENTS.md already holds these ${plural(memories, 'memory', 'memories')}.`,
  };
}
