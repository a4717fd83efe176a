// The command palette and menus a user sees, checked over package.json `contributes`: every
// action in a view's title bar or on a tree item has an icon (else VS Code renders the title as
// text and the view title collapses), commands that need a tree item are hidden from the
// palette, no two commands share a title, one category, welcome texts render as written; plus
// the presence of the extension (icon, walkthrough steps with their files and buttons).
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { MEMORY_SCOPES, MEMORY_TYPES } from '../src/core/memory/types';

const root = path.resolve(__dirname, '..');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));

interface Command {
  command: string;
  title: string;
  category?: string;
  icon?: string | { light: string; dark: string };
}
interface MenuItem {
  command: string;
  when?: string;
  group?: string;
}
const commands = pkg.contributes.commands as Command[];
const menus = pkg.contributes.menus as Record<string, MenuItem[]>;
const byId = new Map(commands.map((c) => [c.command, c]));

/**
 * Commands on tree items that also work from the palette: run without an item, they ask which
 * memory or suggestion (a quick pick) or need none.
 */
const WORK_WITHOUT_ITEM = new Set([
  // The Webhooks view's actions ask which webhook from the palette (shown there once webhooks are configured).
  'agentMemory.sendWebhookTestEvent',
  'agentMemory.copyWebhookSecret',
  'agentMemory.retryWebhookDeliveries',
  'agentMemory.showHistory', // picks a recent memory when run from the palette
  'agentMemory.restoreMemory', // picks from the recently deleted and expired
  'agentMemory.openMemory',
  'agentMemory.editMemory',
  'agentMemory.deleteMemory',
  'agentMemory.promoteMemory',
  'agentMemory.openGraph',
  'agentMemory.acceptSuggestion',
  // Team memory conflicts: picked from the palette when run there (shown while the project is connected).
  'agentMemory.keepMyVersion',
  'agentMemory.keepTheirVersion',
  'agentMemory.rejectSuggestion',
  'agentMemory.pausePipeline',
  'agentMemory.resumePipeline',
  'agentMemory.switchPipelineMode',
  // Sessions view: from the palette they ask which session (a quick pick).
  'agentMemory.openSession',
  'agentMemory.resumeSession',
  'agentMemory.forgetSession',
]);

const paletteWhen = (id: string) => menus.commandPalette?.find((m) => m.command === id)?.when;

test('every command in a view title bar or on a tree item has an icon (a real codicon)', () => {
  const codicons = new Set(
    fs
      .readFileSync(path.join(root, 'node_modules/@vscode/codicons/dist/codicon.csv'), 'utf8')
      .split('\n')
      .slice(1)
      .map((l) => l.split(',')[0]),
  );
  // Icon ids VS Code itself registers on top of the codicon font.
  for (const alias of ['search-view-icon', 'file-add']) codicons.add(alias);
  const placed = [...(menus['view/title'] ?? []), ...(menus['view/item/context'] ?? [])].map((m) => m.command);
  assert.ok(placed.length > 10);
  for (const id of new Set(placed)) {
    const c = byId.get(id);
    assert.ok(c, `${id} is a contributed command`);
    assert.equal(typeof c.icon, 'string', `${id} has an icon`);
    const name = /^\$\(([a-z0-9-]+)\)$/.exec(c.icon as string)?.[1];
    assert.ok(name && codicons.has(name), `${id}: ${JSON.stringify(c.icon)} is a codicon`);
  }
});

test('every command that needs a tree item is hidden from the command palette', () => {
  const onItems = new Set((menus['view/item/context'] ?? []).map((m) => m.command));
  for (const id of onItems) {
    if (WORK_WITHOUT_ITEM.has(id)) continue;
    assert.equal(paletteWhen(id), 'false', `${id} needs a tree item: hidden from the palette`);
  }
  assert.equal(paletteWhen('agentMemory.treeLoadMore'), 'false');
  assert.equal(paletteWhen('agentMemory.copyMemory'), 'false');
});

test('one command per action: no two commands share a title, the near-duplicate review command is hidden', () => {
  const titles = commands.map((c) => `${c.category ?? ''}: ${c.title.replace(/…$/, '')}`.toLowerCase());
  const dup = titles.filter((t, i) => titles.indexOf(t) !== i);
  assert.deepEqual(dup, [], 'duplicate titles');
  // "Review Consolidation Suggestions…" did what the Suggestions view and Accept/Reject do.
  assert.equal(paletteWhen('agentMemory.reviewSuggestions'), 'false');
  assert.ok(paletteWhen('agentMemory.showSuggestions') === undefined, 'Review Suggestions stays in the palette');
});

test('every command has the category "Agent Memory" and a title in Title Case without the category', () => {
  for (const c of commands) {
    assert.equal(c.category, 'Agent Memory', c.command);
    assert.doesNotMatch(c.title, /^Agent Memory/, `${c.command}: the category is shown before the title already`);
    assert.match(c.title, /^[A-Z]/, c.command);
  }
});

test('every palette and menu entry names a contributed command', () => {
  for (const [menu, items] of Object.entries(menus)) {
    for (const m of items) assert.ok(byId.has(m.command), `${menu}: ${m.command}`);
  }
});

test('welcome texts use only what VS Code renders there (links and line breaks): no backticks, no other markdown', () => {
  const welcome: { view: string; contents: string }[] = pkg.contributes.viewsWelcome;
  assert.ok(welcome.length >= 2, 'the views have welcome texts');
  for (const w of welcome) {
    assert.doesNotMatch(w.contents, /`/, `${w.view}: a backtick is shown as it is`);
    assert.doesNotMatch(w.contents.replace(/\[[^\]]+\]\([^)]+\)/g, ''), /\*\*|__|^#/m, `${w.view}: only links are rendered`);
    for (const m of w.contents.matchAll(/\]\(command:([\w.]+)/g)) assert.ok(byId.has(m[1]!), `${w.view}: ${m[1]} is a command`);
  }
});

test('the extension icon is a 128×128 PNG', () => {
  assert.equal(pkg.icon, 'media/icon.png');
  const png = fs.readFileSync(path.join(root, pkg.icon as string));
  assert.equal(png.subarray(1, 4).toString('ascii'), 'PNG');
  assert.deepEqual([png.readUInt32BE(16), png.readUInt32BE(20)], [128, 128], 'width and height from the IHDR chunk');
});

test('the Getting Started walkthrough: add, recall, other agents, pipeline; each step has its page and a button', () => {
  interface Step {
    id: string;
    title: string;
    description: string;
    media: { markdown?: string };
    completionEvents?: string[];
  }
  const [walkthrough] = pkg.contributes.walkthroughs as { id: string; title: string; steps: Step[] }[];
  assert.ok(walkthrough);
  assert.equal(walkthrough.title, 'Get Started with Agent Memory');
  const buttons = walkthrough.steps.map((s) => /\]\(command:([\w.]+)\)/.exec(s.description)?.[1]);
  assert.deepEqual(buttons, ['agentMemory.addMemory', 'agentMemory.recall', 'agentMemory.setupAgents', 'agentMemory.switchPipelineMode']);
  for (const [i, s] of walkthrough.steps.entries()) {
    assert.ok(byId.has(buttons[i]!), `${s.id}: its button runs a contributed command`);
    assert.ok(s.media.markdown && fs.existsSync(path.join(root, s.media.markdown)), `${s.id}: ${s.media.markdown} exists`);
    // "Add a memory" is also done once the project has memories, however they came (statusBar.ts sets the key).
    const extra = s.id === 'addMemory' ? ['onContext:agentMemory.hasMemories'] : [];
    assert.deepEqual(s.completionEvents, [`onCommand:${buttons[i]}`, ...extra], `${s.id} is checked off when its command runs`);
  }
});

test('the language-model tools: every enumerated input is the list the engine validates against', () => {
  type Prop = { enum?: string[]; items?: { enum?: string[] } };
  const tools = pkg.contributes.languageModelTools as { name: string; inputSchema: { properties: Record<string, Prop> } }[];
  const lists: Record<string, readonly string[]> = { type: MEMORY_TYPES, types: MEMORY_TYPES, scope: MEMORY_SCOPES };
  let checked = 0;
  for (const t of tools) {
    for (const [name, p] of Object.entries(t.inputSchema.properties)) {
      const values = p.enum ?? p.items?.enum;
      if (name in lists) {
        assert.deepEqual(values, [...lists[name]!], `${t.name}.${name}`);
        checked++;
      } else assert.equal(values, undefined, `${t.name}.${name}: an enumeration the engine does not validate`);
    }
  }
  assert.equal(checked, 3, 'search: types; save: type, scope');
});
