/**
 * Memories people already keep in other tools (docs/import-from-tools.md): where each tool keeps
 * them for this project and for the user, and how a file of them becomes memories — split on
 * headings, paragraphs and list items, each with the line it starts on, typed where its heading
 * or words say so. Reads files only; what becomes of the items is src/cli/importFrom.ts.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { MemoryType } from '../memory/types';
import { SECTION_BEGIN_RE, SECTION_END_RE } from './agentsMd';

export interface ToolFile {
  /** The tool, as people name it. */
  tool: string;
  /** Absolute path. */
  path: string;
  /** project: this project's; global: the user's, for every project. */
  scope: 'project' | 'global';
}

export interface ToolItem {
  text: string;
  /** 1-based line the item starts on. */
  line: number;
  /** The headings above it, outermost first. */
  headings: string[];
  type: MemoryType;
  /** Stable within the file while its structure stays: headings + the item's position under them. */
  key: string;
  /** sha-256 of the text: a re-import knows whether it changed. */
  hash: string;
}

/** Where each tool keeps its memories: files relative to the project folder ({ws}) or the home folder ({home}). */
const PLACES: { tool: string; scope: 'project' | 'global'; base: 'ws' | 'home'; rel: string; dirExt?: string }[] = [
  { tool: 'Claude Code', scope: 'project', base: 'ws', rel: 'CLAUDE.md' },
  { tool: 'Claude Code', scope: 'project', base: 'ws', rel: '.claude/CLAUDE.md' },
  { tool: 'Claude Code', scope: 'project', base: 'ws', rel: 'CLAUDE.local.md' },
  { tool: 'AGENTS.md', scope: 'project', base: 'ws', rel: 'AGENTS.md' },
  { tool: 'Gemini CLI', scope: 'project', base: 'ws', rel: 'GEMINI.md' },
  { tool: 'GitHub Copilot', scope: 'project', base: 'ws', rel: '.github/copilot-instructions.md' },
  { tool: 'GitHub Copilot', scope: 'project', base: 'ws', rel: '.github/instructions', dirExt: '.instructions.md' },
  { tool: 'Cursor', scope: 'project', base: 'ws', rel: '.cursor/rules', dirExt: '.mdc' },
  { tool: 'Cursor', scope: 'project', base: 'ws', rel: '.cursorrules' },
  { tool: 'Windsurf', scope: 'project', base: 'ws', rel: '.windsurfrules' },
  { tool: 'Windsurf', scope: 'project', base: 'ws', rel: '.windsurf/rules', dirExt: '.md' },
  { tool: 'Cline', scope: 'project', base: 'ws', rel: 'memory-bank', dirExt: '.md' },
  { tool: 'Cline', scope: 'project', base: 'ws', rel: '.clinerules' },
  { tool: 'Claude Code', scope: 'global', base: 'home', rel: '.claude/CLAUDE.md' },
  { tool: 'Codex', scope: 'global', base: 'home', rel: '.codex/AGENTS.md' },
  { tool: 'Codex', scope: 'global', base: 'home', rel: '.codex/memories', dirExt: '.md' },
  { tool: 'Gemini CLI', scope: 'global', base: 'home', rel: '.gemini/GEMINI.md' },
];

/** Claude Code's auto-memory folder of a project: ~/.claude/projects/<the path with every / . and _ as ->/memory. */
export function claudeAutoMemoryDir(home: string, workspace: string): string {
  return path.join(home, '.claude', 'projects', path.resolve(workspace).replace(/[/\\._:]/g, '-'), 'memory');
}

/**
 * The `User` folders of VS Code's builds on this machine, where its memory tool keeps its files:
 * Code and Code - Insiders (and VSCodium) in the platform's application-data folder, a remote
 * machine's VS Code Server, and code-server.
 */
export function vsCodeUserDirs(home: string, env: NodeJS.ProcessEnv = process.env, platform = process.platform): string[] {
  const appData =
    platform === 'win32'
      ? (env.APPDATA ?? path.join(home, 'AppData', 'Roaming'))
      : platform === 'darwin'
        ? path.join(home, 'Library', 'Application Support')
        : (env.XDG_CONFIG_HOME ?? path.join(home, '.config'));
  const dataHome = env.XDG_DATA_HOME ?? path.join(home, '.local', 'share');
  return [
    ...['Code', 'Code - Insiders', 'VSCodium'].map((b) => path.join(appData, b, 'User')),
    path.join(home, '.vscode-server', 'data', 'User'),
    path.join(home, '.vscode-server-insiders', 'data', 'User'),
    path.join(dataHome, 'code-server', 'User'),
  ];
}

/** The memory tool's folder under a storage folder of GitHub Copilot Chat (VS Code lower-cases the global one's name). */
const COPILOT_MEMORIES = ['GitHub.copilot-chat', 'github.copilot-chat'].map((ext) => path.join(ext, 'memory-tool', 'memories'));

/** The workspace storage folders VS Code keeps for this project: their workspace.json names it as a file: URI. */
function workspaceStorageOf(userDir: string, workspace: string): string[] {
  const root = path.join(userDir, 'workspaceStorage');
  let names: string[];
  try {
    names = fs.readdirSync(root);
  } catch {
    return [];
  }
  const want = realOrSelf(workspace);
  return names
    .sort()
    .map((n) => path.join(root, n))
    .filter((dir) => {
      try {
        const folder = (JSON.parse(fs.readFileSync(path.join(dir, 'workspace.json'), 'utf8')) as { folder?: unknown }).folder;
        return typeof folder === 'string' && folder.startsWith('file:') && realOrSelf(fileURLToPath(folder)) === want;
      } catch {
        return false; // no workspace.json (an empty window), a multi-root workspace or a remote folder: not this project
      }
    });
}

function realOrSelf(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}

/**
 * VS Code's memory tool (GitHub Copilot Chat; docs/import-from-tools.md): user memory
 * (`/memories/`, for every workspace) in its global storage, `memory-tool/memories/*.md`, and
 * repository memory (`/memories/repo/`) in this project's workspace storage,
 * `memory-tool/memories/repo/*.md`. Session memory (`/memories/session/`) ends with its chat and is
 * not read.
 */
export function vsCodeMemoryFiles(
  workspace: string,
  home: string,
  env: NodeJS.ProcessEnv = process.env,
  userDirs: string[] = [],
): ToolFile[] {
  const out: ToolFile[] = [];
  // One spelling of the folder per storage folder: on a case-insensitive disk both name the same one.
  const memories = (storage: string) => COPILOT_MEMORIES.map((m) => path.join(storage, m)).find(isDir);
  // The running VS Code's own folder first (any --user-data-dir, a portable install), then the usual places.
  for (const user of new Set([...userDirs, ...vsCodeUserDirs(home, env)].map((d) => path.resolve(d)))) {
    const global = memories(path.join(user, 'globalStorage'));
    if (global) for (const f of filesOf(global, '.md')) out.push({ tool: 'VS Code memory', path: f, scope: 'global' });
    for (const ws of workspaceStorageOf(user, workspace)) {
      const local = memories(ws);
      if (local) for (const f of filesOf(path.join(local, 'repo'), '.md')) out.push({ tool: 'VS Code memory', path: f, scope: 'project' });
    }
  }
  return out;
}

function filesOf(dir: string, ext: string): string[] {
  try {
    return fs
      .readdirSync(dir, { withFileTypes: true })
      .filter((d) => d.isFile() && d.name.endsWith(ext))
      .map((d) => path.join(dir, d.name))
      .sort();
  } catch {
    return [];
  }
}

const isFile = (p: string) => {
  try {
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
};

const isDir = (p: string) => {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
};

/** The files of other tools found for this project and user, in a fixed order. */
export function findToolFiles(
  workspace: string,
  home: string,
  env: NodeJS.ProcessEnv = process.env,
  vsCodeUser: string[] = [],
): ToolFile[] {
  const out: ToolFile[] = [];
  for (const p of PLACES) {
    const abs = path.join(p.base === 'ws' ? workspace : home, p.rel);
    const files = p.dirExt ? filesOf(abs, p.dirExt) : isFile(abs) ? [abs] : [];
    for (const f of files) out.push({ tool: p.tool, path: f, scope: p.scope });
  }
  for (const f of filesOf(claudeAutoMemoryDir(home, workspace), '.md')) out.push({ tool: 'Claude Code memory', path: f, scope: 'project' });
  out.push(...vsCodeMemoryFiles(workspace, home, env, vsCodeUser));
  // The same file reached twice (a link, CLAUDE.md → AGENTS.md): once.
  const seen = new Set<string>();
  return out.filter((f) => {
    const real = fs.realpathSync(f.path);
    if (seen.has(real)) return false;
    seen.add(real);
    return true;
  });
}

const TYPE_RULES: [RegExp, MemoryType][] = [
  [/\b(decisions?|decided|adr|architecture decision|we chose)\b/i, 'decision'],
  [/\b(pitfalls?|gotchas?|known issues?|caveats?|bugs?)\b/i, 'problem'],
  [/\b(workflows?|process|commands?|build|deploy(ment)?|release|run(ning)? tests?|setup|how to)\b/i, 'workflow'],
  [/\b(style|conventions?|naming|patterns?|formatting|code review|guidelines?)\b/i, 'code_pattern'],
  [/\b(prefer(ence|s)?|always|never|do not|don't)\b/i, 'preference'],
];

/** The type an item's headings (first) or words say, else general. */
export function guessType(headings: readonly string[], text: string): MemoryType {
  for (const source of [headings.join(' '), text]) for (const [re, t] of TYPE_RULES) if (re.test(source)) return t;
  return 'general';
}

const LIST_ITEM = /^(\s*)([-*+]|\d+[.)])\s+(.*)$/;
const HEADING = /^(#{1,6})\s+(.*?)\s*#*\s*$/;
/** Items shorter than this say nothing on their own ("TODO", "---"). */
const MIN_CHARS = 12;

/** Front matter (--- … ---) of .mdc / instructions files: skipped, its lines still counted. */
function bodyStart(lines: string[]): number {
  if (lines[0]?.trim() !== '---') return 0;
  const end = lines.findIndex((l, i) => i > 0 && l.trim() === '---');
  return end > 0 ? end + 1 : 0;
}

/** Collects the items of one file: blocks are opened, added to and closed as the lines come. */
class Splitter {
  readonly items: ToolItem[] = [];
  private headings: string[] = [];
  private readonly perSection = new Map<string, number>();
  private block: { lines: string[]; line: number; list: boolean } | undefined;

  heading(level: number, text: string): void {
    this.flush();
    this.headings = [...this.headings.slice(0, level - 1), text];
  }

  open(first: string, line: number, list: boolean): void {
    this.flush();
    this.block = { lines: [first], line, list };
  }

  /** A line that is not a heading nor a new list item: continues the open block, or after a blank line opens a paragraph. */
  text(l: string, line: number, afterBlank: boolean): void {
    if (this.block && (!afterBlank || /^\s/.test(l))) this.block.lines.push(afterBlank ? `\n${l}` : l);
    else this.open(l, line, false);
  }

  blank(): void {
    if (this.block && !this.block.list) this.flush();
  }

  flush(): void {
    const b = this.block;
    this.block = undefined;
    if (!b) return;
    const body = b.lines.join('\n').trim();
    if (body.replace(/[\s\-*_#>`]/g, '').length < MIN_CHARS) return;
    const headings = this.headings.filter(Boolean);
    const section = headings.join(' › ');
    const n = (this.perSection.get(section) ?? 0) + 1;
    this.perSection.set(section, n);
    this.items.push({
      text: body,
      line: b.line,
      headings,
      type: guessType(headings, body),
      key: `${section}#${n}`,
      hash: createHash('sha256').update(body).digest('hex'),
    });
  }
}

/** Splits markdown into items: a top-level list item (with what is indented under it) or a paragraph; a code fence stays whole. */
export function splitMarkdown(text: string): ToolItem[] {
  const lines = text.replace(/^\uFEFF/, '').split(/\r\n|\r|\n/);
  const s = new Splitter();
  let fence = false;
  let afterBlank = false;
  for (let i = bodyStart(lines); i < lines.length; i++) {
    const l = lines[i]!;
    if (!fence && SECTION_BEGIN_RE.test(l)) {
      // Our own exported section (agentsMd.ts): those are memories already.
      s.flush();
      while (i < lines.length && !SECTION_END_RE.test(lines[i]!)) i++;
      continue;
    }
    const h = fence ? null : HEADING.exec(l);
    const li = fence ? null : LIST_ITEM.exec(l);
    if (/^\s*(```|~~~)/.test(l)) fence = !fence;
    if (h) s.heading(h[1]!.length, h[2]!);
    else if (li && li[1]!.length < 2) s.open(li[3]!, i + 1, true);
    else if (!l.trim() && !fence) s.blank();
    else s.text(l, i + 1, afterBlank);
    afterBlank = !l.trim() && !fence;
  }
  s.flush();
  return s.items;
}

/** A title for an item: its innermost heading, else its first words. */
export function itemTitle(item: ToolItem): string {
  const h = item.headings.at(-1);
  return (h ?? item.text.split('\n')[0]!).slice(0, 120);
}
