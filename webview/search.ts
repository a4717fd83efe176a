/**
 * The search panel (browser code). Debounced search as you type, filters (types, scope, tags,
 * created-at range), recent memories for an empty query; results with their relevance (the
 * per-leg breakdown on hover), matched words highlighted, long text clamped with "Show more",
 * actions on hover and in the context menu; and keyboard navigation: ↑/↓ move between results, Enter opens, Delete asks to
 * delete, / focuses the query, Esc clears. Memory text is rendered with textContent only
 * (lib/dom.ts builds every element; there is no innerHTML).
 */
import type { FromSearchView, SearchFiltersView, SearchResultView, ToSearchView } from '../src/present/webviewMessages';
// The same wording as the rest of the extension ("yesterday", "5 minutes ago", a date beyond a month): pure Intl code.
import { humanDate, relativeTime } from '../src/core/text/timeWords';
import { byId, clear, h, icon } from './lib/dom';
import { highlightSegments } from './lib/highlight';
import { channel } from './lib/vscodeApi';
import { shortLabel, typeLabel } from './lib/graphLabels';

const vscode = channel<ToSearchView, FromSearchView>();
const input = byId<HTMLInputElement>('query');
const typesBox = byId<HTMLDetailsElement>('typesBox');
const typesSummary = byId<HTMLElement>('typesSummary');
const typeList = byId<HTMLElement>('types');
const scopeSelect = byId<HTMLSelectElement>('scope');
const tagsInput = byId<HTMLInputElement>('tags');
const afterInput = byId<HTMLInputElement>('after');
const beforeInput = byId<HTMLInputElement>('before');
const status = byId<HTMLElement>('status');
const list = byId<HTMLElement>('results');
const DEBOUNCE_MS = 250;
let timer: number | undefined;

interface SavedState {
  query?: string;
  filters?: SearchFiltersView;
}

// ── filters ────────────────────────────────────────────────────────────────────────────────

function checkedTypes(): string[] {
  return [...typeList.querySelectorAll<HTMLInputElement>('input[type=checkbox]')].filter((c) => c.checked).map((c) => c.value);
}

function currentFilters(): SearchFiltersView {
  const types = checkedTypes();
  const tags = tagsInput.value
    .split(',')
    .map((t) => t.trim().replace(/^#/, ''))
    .filter(Boolean);
  const scope = scopeSelect.value;
  return {
    ...(types.length ? { types } : {}),
    ...(scope === 'project' || scope === 'global' ? { scope } : {}),
    ...(tags.length ? { tags } : {}),
    ...(afterInput.value ? { createdAfter: afterInput.value } : {}),
    ...(beforeInput.value ? { createdBefore: beforeInput.value } : {}),
  };
}

function applyFilters(f: SearchFiltersView | undefined): void {
  for (const c of typeList.querySelectorAll<HTMLInputElement>('input[type=checkbox]')) c.checked = !!f?.types?.includes(c.value);
  scopeSelect.value = f?.scope ?? '';
  tagsInput.value = (f?.tags ?? []).join(', ');
  afterInput.value = f?.createdAfter ?? '';
  beforeInput.value = f?.createdBefore ?? '';
  updateTypesSummary();
}

function updateTypesSummary(): void {
  const types = checkedTypes();
  typesSummary.textContent =
    types.length === 0 ? 'All types' : types.length <= 2 ? types.map(typeLabel).join(', ') : `${types.length} types`;
}

function renderTypeOptions(types: readonly string[]): void {
  const keep = new Set(checkedTypes());
  clear(typeList);
  for (const t of types) {
    const box = h('input', { type: 'checkbox', value: t, id: `type-${t}` });
    box.checked = keep.has(t);
    box.addEventListener('change', () => {
      updateTypesSummary();
      search();
    });
    typeList.appendChild(h('label', { class: 'type-option', for: `type-${t}` }, box, typeLabel(t)));
  }
}

// ── searching ──────────────────────────────────────────────────────────────────────────────

function setStatus(text: string, kind: 'info' | 'error' | 'empty' = 'info'): void {
  status.textContent = text;
  status.className = kind;
}

function search(): void {
  window.clearTimeout(timer);
  const query = input.value;
  const filters = currentFilters();
  vscode.setState<SavedState>({ query, filters });
  if (filters.createdAfter && filters.createdBefore && filters.createdAfter > filters.createdBefore) {
    clear(list);
    setStatus('"After" is later than "Before": no memory can match. Fix the dates or clear them.', 'error');
    return;
  }
  setStatus(query.trim() ? 'Searching…' : 'Loading recent memories…');
  vscode.post({ type: 'search', query, filters });
}

function schedule(): void {
  window.clearTimeout(timer);
  timer = window.setTimeout(search, DEBOUNCE_MS);
}

// ── results ────────────────────────────────────────────────────────────────────────────────

/** An icon-only action, shown on hover, focus or selection (search.css); labelled for screen readers. */
function button(label: string, codicon: string, onClick: () => void): HTMLButtonElement {
  const b = h('button', { class: 'action', title: label, 'aria-label': label }, icon(codicon));
  b.addEventListener('click', (e) => {
    e.stopPropagation();
    onClick();
  });
  return b;
}

const fmt = (v: number | undefined) => (v === undefined ? '—' : v.toFixed(2));
const percent = (v: number) => `${Math.round(v * 100)} %`;

/** The per-leg breakdown, for the relevance's tooltip. */
function breakdown(r: SearchResultView): string {
  const lines = [`Relevance ${percent(r.relevance ?? 0)}`];
  lines.push(r.matchedTerms.length ? `Matched words: ${r.matchedTerms.join(', ')}` : 'No query word in the text (found by meaning)');
  if (r.similarity !== undefined) lines.push(`Cosine similarity ${r.similarity.toFixed(2)}`);
  lines.push(`Ranking: final ${fmt(r.score)} · text ${fmt(r.legs.keyword)} · vector ${fmt(r.legs.vector)} · graph ${fmt(r.legs.graph)}`);
  if (r.legs.date !== undefined) lines.push(`Date ${fmt(r.legs.date)} (written on, or mentions, a date the query names)`);
  const e = r.evidence;
  if (e) {
    // The parts the relevance is made of (docs/recall.md "Relevance").
    lines.push(`Relevance from the words ${percent(e.keyword)} · from the meaning ${percent(e.vector)}`);
    if (e.speaker) lines.push('Said by the person the query names');
    if (e.context.length) lines.push(`Found through its context: ${e.context.join(', ')}`);
    if (e.alternate) lines.push(`Found through another wording of the query: “${e.alternate}”`);
  }
  lines.push(`Found by: ${r.matchType ?? 'keyword'}`);
  return lines.join('\n');
}

function relevanceBadge(r: SearchResultView): HTMLElement | undefined {
  if (r.relevance === undefined) return undefined;
  const meter = h('meter', { min: '0', max: '1', value: String(r.relevance), 'aria-hidden': 'true' });
  return h(
    'span',
    { class: 'relevance', title: breakdown(r), 'aria-label': `Relevance ${percent(r.relevance)}` },
    meter,
    percent(r.relevance),
  );
}

/** The text with the matched words in <mark>s: each segment is a text node (highlight.ts). */
function highlighted(text: string, terms: readonly string[]): HTMLElement {
  const p = h('p', { class: 'content' });
  for (const seg of highlightSegments(text, terms)) p.appendChild(seg.mark ? h('mark', {}, seg.text) : document.createTextNode(seg.text));
  return p;
}

/** Long text is clamped to a few lines (search.css); "Show more" lifts the clamp. */
const CLAMP_CHARS = 320;
const CLAMP_LINES = 4;

function clampToggle(content: HTMLElement, text: string, index: number): HTMLElement | undefined {
  if (text.length <= CLAMP_CHARS && text.split('\n').length <= CLAMP_LINES) return undefined;
  content.classList.add('clamped');
  content.id = `content-${index}`;
  const more = h('button', { class: 'more', 'aria-expanded': 'false', 'aria-controls': content.id }, 'Show more');
  more.addEventListener('click', (e) => {
    e.stopPropagation();
    const open = content.classList.toggle('clamped') === false;
    more.textContent = open ? 'Show less' : 'Show more';
    more.setAttribute('aria-expanded', String(open));
  });
  return more;
}

function actions(r: SearchResultView): HTMLElement {
  return h(
    'span',
    { class: 'actions', role: 'toolbar', 'aria-label': 'Actions' },
    button('Open', 'go-to-file', () => vscode.post({ type: 'open', id: r.id })),
    button('Copy text', 'copy', () => vscode.post({ type: 'copy', id: r.id })),
    button('Edit…', 'edit', () => vscode.post({ type: 'edit', id: r.id })),
    // Only a short-term memory can be made permanent (a permanent one has no lifetime shown).
    r.lifetime ? button('Make permanent', 'pinned', () => vscode.post({ type: 'promote', id: r.id })) : undefined,
    button('Delete…', 'trash', () => vscode.post({ type: 'delete', id: r.id })),
  );
}

function renderResult(r: SearchResultView, index: number): HTMLElement {
  const content = highlighted(r.content, r.matchedTerms);
  const more = clampToggle(content, r.content, index);
  const when = h('span', { title: humanDate(r.createdAt) }, relativeTime(r.createdAt));
  const li = h(
    'li',
    {
      class: 'result',
      'data-id': r.id,
      // The webview context menu (package.json webview/context) reads this; the commands get memoryId.
      // memoryShortTerm: "Make Permanent" is offered on short-term memories only.
      'data-vscode-context': JSON.stringify({
        webviewSection: 'memory',
        memoryId: r.id,
        memoryShortTerm: r.lifetime !== undefined,
        preventDefaultContextMenuItems: true,
      }),
      // A list item, not a listbox option: it holds buttons, and an option may hold no control.
      // Focusable so ↑/↓ can move to it; aria-current marks the selected one.
      tabindex: '-1',
      'aria-label': `${r.title || shortLabel(r.content, 80)}${r.relevance !== undefined ? `, relevance ${percent(r.relevance)}` : ''}`,
      id: `result-${index}`,
    },
    // An untitled memory is headed by its own text (beside the badges), not by an empty title row.
    h(
      'div',
      { class: r.title ? 'result-head' : 'result-head untitled' },
      icon(r.scope === 'global' ? 'globe' : 'note'),
      r.title ? h('span', { class: 'title' }, r.title) : h('div', { class: 'body' }, content, more),
      h('span', { class: 'badge', title: 'Memory type' }, typeLabel(r.type)),
      relevanceBadge(r),
      actions(r),
    ),
    r.title ? content : undefined,
    r.title ? more : undefined,
    h(
      'div',
      { class: 'result-meta' },
      h('span', { class: 'meta' }, r.scope === 'global' ? 'global' : 'project', ' · ', when, r.lifetime ? ` · ${r.lifetime}` : ''),
      r.tags.length ? h('span', { class: 'tags' }, r.tags.map((t) => `#${t}`).join(' ')) : undefined,
    ),
  );
  li.addEventListener('click', () => select(index));
  li.addEventListener('dblclick', () => vscode.post({ type: 'open', id: r.id }));
  return li;
}

function results(): HTMLElement[] {
  return [...list.querySelectorAll<HTMLElement>('.result')];
}

let selected = -1;

function markSelected(el: HTMLElement, on: boolean): void {
  if (on) el.setAttribute('aria-current', 'true');
  else el.removeAttribute('aria-current');
}

/** Moves the selection (and focus) to result `i`; -1 returns focus to the query. */
function select(i: number): void {
  const items = results();
  items.forEach((el, k) => markSelected(el, k === i));
  selected = i >= 0 && i < items.length ? i : -1;
  if (selected < 0) {
    input.focus();
    return;
  }
  const el = items[selected]!;
  el.focus();
  el.scrollIntoView({ block: 'nearest' });
}

function selectedId(): string | undefined {
  return selected >= 0 ? results()[selected]?.dataset.id : undefined;
}

// ── keyboard ───────────────────────────────────────────────────────────────────────────────

function inTextField(el: Element | null): boolean {
  return el instanceof HTMLInputElement || el instanceof HTMLSelectElement || el instanceof HTMLTextAreaElement;
}

/** What a key does, given where the focus is: the query box, or any other text field. */
type KeyHandler = (e: KeyboardEvent, focus: { onQuery: boolean; inField: boolean }) => void;

// A Map, not an object literal: `e.key` must never find Object.prototype's members.
const keyHandlers = new Map<string, KeyHandler>([
  [
    '/',
    (e, { inField }) => {
      if (inField) return;
      e.preventDefault();
      input.focus();
      input.select();
    },
  ],
  [
    'Escape',
    (e) => {
      e.preventDefault();
      input.value = '';
      select(-1);
      search();
    },
  ],
  [
    'ArrowDown',
    (e, { onQuery, inField }) => {
      if (inField && !onQuery) return;
      e.preventDefault();
      select(Math.min(selected + 1, results().length - 1));
    },
  ],
  [
    'ArrowUp',
    (e, { onQuery, inField }) => {
      if (inField && !onQuery) return;
      e.preventDefault();
      select(selected - 1);
    },
  ],
  [
    'Enter',
    (e, { onQuery, inField }) => {
      if (onQuery) {
        e.preventDefault();
        search(); // at once, without the debounce
        return;
      }
      const id = !inField && document.activeElement?.classList.contains('result') ? selectedId() : undefined;
      if (!id) return;
      e.preventDefault();
      vscode.post({ type: 'open', id });
    },
  ],
  [
    'Delete',
    (e, { inField }) => {
      const id = !inField ? selectedId() : undefined;
      if (!id) return;
      e.preventDefault();
      vscode.post({ type: 'delete', id }); // the extension asks for confirmation
    },
  ],
]);

document.addEventListener('keydown', (e) => {
  if (e.altKey || e.ctrlKey || e.metaKey) return;
  keyHandlers.get(e.key)?.(e, { onQuery: document.activeElement === input, inField: inTextField(document.activeElement) });
});

// ── messages ───────────────────────────────────────────────────────────────────────────────

type InitMessage = Extract<ToSearchView, { type: 'init' }>;
type ResultsMessage = Extract<ToSearchView, { type: 'results' }>;

function onInit(m: InitMessage): void {
  initialized = true;
  renderTypeOptions(m.memoryTypes);
  const saved = vscode.getState<SavedState>();
  // Never overwrite what the person already typed while the panel was loading.
  if (m.query !== undefined) input.value = m.query;
  else if (!input.value) input.value = saved?.query ?? '';
  if (saved?.filters && !checkedTypes().length && !scopeSelect.value && !tagsInput.value && !afterInput.value && !beforeInput.value)
    applyFilters(saved.filters);
  search();
  // Only when the panel has focus: a panel VS Code restores in the background after a reload must
  // not take the keyboard from what the person is doing (an open quick pick closes when it loses focus).
  if (document.hasFocus()) input.focus();
}

function onResults(m: ResultsMessage): void {
  if (m.query !== input.value) return; // an older answer
  const keep = selectedId();
  clear(list);
  m.results.forEach((r, i) => list.appendChild(renderResult(r, i)));
  selected = -1;
  // After a refresh (a memory changed), keep the selection on the same memory if it is still there.
  const again = keep ? m.results.findIndex((r) => r.id === keep) : -1;
  if (again >= 0) {
    results().forEach((el, k) => markSelected(el, k === again));
    selected = again;
    if (document.activeElement === document.body) results()[again]!.focus();
  }
  setStatus(...resultsStatus(m, Object.keys(currentFilters()).length > 0));
}

function resultsStatus(m: ResultsMessage, filtered: boolean): [string, 'info' | 'empty'] {
  const n = m.results.length;
  if (m.recent) {
    if (n) return [`Recent memories — type to search`, 'info'];
    return [filtered ? 'No memory with these filters yet.' : 'No memories yet. Add one with "Agent Memory: Add Memory…".', 'empty'];
  }
  if (n) return [`${n} relevant ${n === 1 ? 'memory' : 'memories'} (${m.legsUsed.join(' + ')}, ${m.tookMs.toFixed(0)} ms)`, 'info'];
  const none = `No relevant memories for “${m.query.trim()}”.`;
  return [filtered ? `${none} Clear the filters to search everything.` : none, 'empty'];
}

vscode.onMessage((m) => {
  switch (m.type) {
    case 'init':
      onInit(m);
      return;
    case 'results':
      onResults(m);
      return;
    case 'error':
      clear(list);
      selected = -1;
      setStatus(m.message, 'error');
      return;
  }
});

input.addEventListener('input', schedule);
for (const el of [scopeSelect, afterInput, beforeInput]) el.addEventListener('change', search);
tagsInput.addEventListener('input', schedule);
byId<HTMLButtonElement>('clearFilters').addEventListener('click', () => {
  applyFilters(undefined);
  typesBox.open = false;
  search();
});
// 'ready' until the extension answers with 'init' (after a window reload the extension may
// still be activating when this script runs).
let initialized = false;
const announce = (left: number) => {
  if (initialized) return;
  vscode.post({ type: 'ready' });
  if (left > 0) window.setTimeout(() => announce(left - 1), 1000);
};
announce(30);
