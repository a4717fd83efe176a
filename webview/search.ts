/**
 * The search panel (browser code). Debounced search as you type, filters (types, scope, tags,
 * created-at range), results with the full score breakdown, open / edit / promote / delete per
 * result, and keyboard navigation: ↑/↓ move between results, Enter opens, Delete asks to
 * delete, / focuses the query, Esc clears. Memory text is rendered with textContent only
 * (lib/dom.ts builds every element; there is no innerHTML).
 */
import type { FromSearchView, SearchFiltersView, SearchResultView, ToSearchView } from '../src/extension/webviewMessages';
import { byId, clear, h, icon } from './lib/dom';
import { channel } from './lib/vscodeApi';

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
  typesSummary.textContent = types.length === 0 ? 'All types' : types.length <= 2 ? types.join(', ') : `${types.length} types`;
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
    typeList.appendChild(h('label', { class: 'type-option', for: `type-${t}` }, box, t));
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
  if (!query.trim()) {
    clear(list);
    setStatus('Type to search your memories. Filters narrow the results.');
    return;
  }
  if (filters.createdAfter && filters.createdBefore && filters.createdAfter > filters.createdBefore) {
    clear(list);
    setStatus('"After" is later than "Before": no memory can match. Fix the dates or clear them.', 'error');
    return;
  }
  setStatus('Searching…');
  vscode.post({ type: 'search', query, filters });
}

function schedule(): void {
  window.clearTimeout(timer);
  timer = window.setTimeout(search, DEBOUNCE_MS);
}

// ── results ────────────────────────────────────────────────────────────────────────────────

function button(label: string, codicon: string, onClick: () => void): HTMLButtonElement {
  const b = h('button', { class: 'action', title: label, 'aria-label': label, tabindex: '-1' }, icon(codicon), h('span', {}, label));
  b.addEventListener('click', (e) => {
    e.stopPropagation();
    onClick();
  });
  return b;
}

const fmt = (v: number | undefined) => (v === undefined ? '—' : v.toFixed(2));

function scoreBreakdown(r: SearchResultView): HTMLElement {
  const part = (name: string, value: number | undefined, title: string) =>
    h(
      'span',
      { class: `score-part${value === undefined ? ' missing' : ''}`, title },
      `${name} `,
      h('span', { class: 'score-value' }, fmt(value)),
    );
  return h(
    'span',
    { class: 'score', title: 'Score breakdown' },
    part('final', r.score, 'Combined score (higher is better)'),
    part('text', r.legs.keyword, 'Full-text (BM25) score, normalized'),
    part('vector', r.legs.vector, 'Vector (cosine) score, normalized'),
    part('graph', r.legs.graph, 'Knowledge-graph boost'),
    // Only when it applied: most queries name no date.
    ...(r.legs.date !== undefined ? [part('date', r.legs.date, 'Written on a date the query names')] : []),
  );
}

function renderResult(r: SearchResultView, index: number): HTMLElement {
  const li = h(
    'li',
    { class: 'result', 'data-id': r.id, role: 'option', tabindex: '-1', 'aria-selected': 'false', id: `result-${index}` },
    h(
      'div',
      { class: 'result-head' },
      icon(r.scope === 'global' ? 'globe' : 'note'),
      h('span', { class: 'title' }, r.title || r.content.split('\n')[0]!.slice(0, 80)),
      h('span', { class: 'badge', title: 'Memory type' }, r.type),
      h('span', { class: `match match-${r.matchType ?? 'keyword'}`, title: 'Which search legs found it' }, r.matchType ?? 'keyword'),
    ),
    h('p', { class: 'content' }, r.content),
    h(
      'div',
      { class: 'result-meta' },
      scoreBreakdown(r),
      h(
        'span',
        { class: 'meta', title: r.createdAt },
        `${r.scope} · ${r.createdAt.slice(0, 10)}${r.importance !== undefined ? ` · importance ${r.importance}` : ''}${r.lifetime ? ` · ${r.lifetime}` : ''}`,
      ),
    ),
    h(
      'div',
      { class: 'result-foot' },
      h('span', { class: 'tags' }, r.tags.map((t) => `#${t}`).join(' ')),
      button('Open', 'go-to-file', () => vscode.post({ type: 'open', id: r.id })),
      button('Edit', 'edit', () => vscode.post({ type: 'edit', id: r.id })),
      button('Promote', 'pinned', () => vscode.post({ type: 'promote', id: r.id })),
      button('Delete', 'trash', () => vscode.post({ type: 'delete', id: r.id })),
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

/** Moves the selection (and focus) to result `i`; -1 returns focus to the query. */
function select(i: number): void {
  const items = results();
  items.forEach((el, k) => el.setAttribute('aria-selected', String(k === i)));
  selected = i >= 0 && i < items.length ? i : -1;
  if (selected < 0) {
    input.focus();
    input.removeAttribute('aria-activedescendant');
    return;
  }
  const el = items[selected]!;
  input.setAttribute('aria-activedescendant', el.id);
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
  renderTypeOptions(m.memoryTypes);
  const saved = vscode.getState<SavedState>();
  // Never overwrite what the person already typed while the panel was loading.
  if (m.query !== undefined) input.value = m.query;
  else if (!input.value) input.value = saved?.query ?? '';
  if (saved?.filters && !checkedTypes().length && !scopeSelect.value && !tagsInput.value && !afterInput.value && !beforeInput.value)
    applyFilters(saved.filters);
  search();
  input.focus();
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
    results().forEach((el, k) => el.setAttribute('aria-selected', String(k === again)));
    selected = again;
    if (document.activeElement === document.body) results()[again]!.focus();
  }
  const f = currentFilters();
  const filtered = Object.keys(f).length > 0;
  if (m.results.length) {
    setStatus(`${m.results.length} result${m.results.length === 1 ? '' : 's'} (${m.legsUsed.join(' + ')}, ${m.tookMs.toFixed(0)} ms)`);
  } else {
    setStatus(filtered ? 'No memory matches with these filters. Clear the filters to search everything.' : 'No memory matches.', 'empty');
  }
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
vscode.post({ type: 'ready' });
