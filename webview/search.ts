/** The search panel (browser code). Renders results with textContent only; see lib/dom.ts. */
import type { FromSearchView, SearchResultView, ToSearchView } from '../src/extension/webviewMessages';
import { byId, clear, h, icon } from './lib/dom';
import { channel } from './lib/vscodeApi';

const vscode = channel<ToSearchView, FromSearchView>();
const input = byId<HTMLInputElement>('query');
const typeSelect = byId<HTMLSelectElement>('type');
const status = byId<HTMLElement>('status');
const list = byId<HTMLElement>('results');
let timer: number | undefined;

function search(): void {
  const query = input.value;
  vscode.setState({ query, type: typeSelect.value });
  if (!query.trim()) {
    clear(list);
    status.textContent = 'Type to search your memories.';
    return;
  }
  status.textContent = 'Searching…';
  vscode.post({ type: 'search', query, ...(typeSelect.value ? { memoryType: typeSelect.value } : {}) });
}

function schedule(): void {
  window.clearTimeout(timer);
  timer = window.setTimeout(search, 250);
}

function button(label: string, codicon: string, onClick: () => void): HTMLButtonElement {
  const b = h('button', { class: 'action', title: label, 'aria-label': label }, icon(codicon), h('span', {}, label));
  b.addEventListener('click', onClick);
  return b;
}

function renderResult(r: SearchResultView): HTMLElement {
  const legs = Object.entries(r.legs).map(([leg, v]) => `${leg} ${Number(v).toFixed(2)}`).join(' · ');
  return h('li', { class: 'result', 'data-id': r.id },
    h('div', { class: 'result-head' },
      icon(r.scope === 'global' ? 'globe' : 'note'),
      h('span', { class: 'title' }, r.title || r.content.split('\n')[0]!.slice(0, 80)),
      h('span', { class: 'badge' }, r.type),
      h('span', { class: 'score', title: 'Matched legs and their scores' }, legs),
    ),
    h('p', { class: 'content' }, r.content),
    h('div', { class: 'result-foot' },
      h('span', { class: 'tags' }, r.tags.map((t) => `#${t}`).join(' ')),
      button('Open', 'go-to-file', () => vscode.post({ type: 'open', id: r.id })),
      button('Promote', 'pinned', () => vscode.post({ type: 'promote', id: r.id })),
      button('Delete', 'trash', () => vscode.post({ type: 'delete', id: r.id })),
    ),
  );
}

vscode.onMessage((m) => {
  switch (m.type) {
    case 'init': {
      clear(typeSelect);
      typeSelect.appendChild(h('option', { value: '' }, 'All types'));
      for (const t of m.memoryTypes) typeSelect.appendChild(h('option', { value: t }, t));
      const saved = vscode.getState<{ query?: string; type?: string }>();
      // Never overwrite what the person already typed while the panel was loading.
      if (m.query !== undefined) input.value = m.query;
      else if (!input.value) input.value = saved?.query ?? '';
      if (!typeSelect.value) typeSelect.value = saved?.type ?? '';
      search();
      input.focus();
      return;
    }
    case 'results': {
      if (m.query !== input.value) return; // an older answer
      clear(list);
      for (const r of m.results) list.appendChild(renderResult(r));
      status.textContent = m.results.length
        ? `${m.results.length} result${m.results.length === 1 ? '' : 's'} (${m.legsUsed.join(' + ')}, ${m.tookMs.toFixed(0)} ms)`
        : 'No memory matches.';
      return;
    }
    case 'error':
      status.textContent = m.message;
      return;
  }
});

input.addEventListener('input', schedule);
input.addEventListener('keydown', (e) => { if (e.key === 'Enter') search(); });
typeSelect.addEventListener('change', search);
vscode.post({ type: 'ready' });
