/**
 * The `webhooks.endpoints` value (docs/changes.md "Webhooks"): a list of webhooks, each with a
 * name (its signing secret is kept under it, never in agent.yaml), an http(s) URL and the
 * change types it wants. Checked like every key: a bad list keeps the previous value and says
 * which webhook and what is wrong.
 */
import { showRaw } from './describe.js';
import { closest } from './suggest.js';
import { CHANGE_TYPES, MAX_WEBHOOKS, type WebhookEndpointConfig } from './changeTypes.js';

export { CHANGE_TYPES, MAX_WEBHOOKS, type WebhookEndpointConfig } from './changeTypes.js';

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const ITEM_KEYS = ['name', 'url', 'events'];

export type CheckedWebhooks = { ok: true; value: WebhookEndpointConfig[] } | { ok: false; message: string };

export function checkWebhooks(raw: unknown): CheckedWebhooks {
  if (!Array.isArray(raw)) return { ok: false, message: `expected a list of webhooks, got ${showRaw(raw)}` };
  if (raw.length > MAX_WEBHOOKS) return { ok: false, message: `holds ${raw.length} webhooks; at most ${MAX_WEBHOOKS} are allowed` };
  const out: WebhookEndpointConfig[] = [];
  for (const [i, item] of raw.entries()) {
    const r = checkItem(item, i + 1);
    if (typeof r === 'string') return { ok: false, message: r };
    if (out.some((w) => w.name === r.name)) return { ok: false, message: `webhook ${i + 1}: the name "${r.name}" is used twice` };
    out.push(r);
  }
  return { ok: true, value: out };
}

function checkItem(item: unknown, n: number): WebhookEndpointConfig | string {
  const at = `webhook ${n}`;
  if (item === null || typeof item !== 'object' || Array.isArray(item))
    return `${at}: expected a mapping with name and url, got ${showRaw(item)}`;
  const o = item as Record<string, unknown>;
  const unknown = Object.keys(o).find((k) => !ITEM_KEYS.includes(k));
  if (unknown !== undefined) {
    const near = closest(unknown, ITEM_KEYS);
    return `${at}: unknown key ${unknown}${near ? ` (did you mean ${near}?)` : ''}; a webhook has name, url and events`;
  }
  if (typeof o.name !== 'string' || !NAME.test(o.name.trim()))
    return `${at}: name must be 1 to 64 letters, digits, dots, dashes or underscores, got ${showRaw(o.name)}`;
  const name = o.name.trim();
  const url = checkUrl(o.url, `${at} (${name})`);
  if (url.startsWith('!')) return url.slice(1);
  const events = checkEvents(o.events, `${at} (${name})`);
  if (typeof events === 'string') return events;
  return { name, url, events };
}

/** The URL as given (trimmed), or '!' and the problem. */
function checkUrl(raw: unknown, at: string): string {
  if (typeof raw !== 'string' || !raw.trim()) return `!${at}: url must be an http:// or https:// URL, got ${showRaw(raw)}`;
  let u: URL;
  try {
    u = new URL(raw.trim());
  } catch {
    return `!${at}: url ${showRaw(raw)} is not a valid URL`;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return `!${at}: url must use http:// or https://, got ${showRaw(raw)}`;
  if (u.username || u.password)
    return `!${at}: url must not hold a user name or password (deliveries are signed instead; see docs/changes.md)`;
  return u.href;
}

function checkEvents(raw: unknown, at: string): string[] | string {
  if (raw === undefined || raw === null) return [];
  const list = typeof raw === 'string' ? [raw] : raw;
  if (!Array.isArray(list)) return `${at}: events must be a list of change types, got ${showRaw(raw)}`;
  const out: string[] = [];
  for (const e of list) {
    if (typeof e !== 'string' || !(CHANGE_TYPES as readonly string[]).includes(e.trim())) {
      const near = typeof e === 'string' ? closest(e, CHANGE_TYPES) : undefined;
      return `${at}: ${showRaw(e)} is not a change type${near ? ` (did you mean "${near}"?)` : ''}; use ${CHANGE_TYPES.join(', ')}`;
    }
    if (!out.includes(e.trim())) out.push(e.trim());
  }
  return out;
}
