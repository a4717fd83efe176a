/**
 * An event as people and budgets read it: its role and its text (the same extraction as the
 * index: message content, tool calls' arguments, tool results), one line per part. Used to count
 * an event's tokens, to condense old turns into the rolling summary and to show a transcript.
 */
import { extractIndexable } from './extract';

export function eventRole(payload: unknown): string {
  if (!payload || typeof payload !== 'object' || Array.isArray(payload)) return 'event';
  return extractIndexable(payload as Record<string, unknown>).role ?? 'event';
}

/** `role: text` (the parts joined by new lines); an event without text says what it held. */
export function eventText(payload: unknown): string {
  if (!payload || typeof payload !== 'object' || Array.isArray(payload)) return 'event: (no message)';
  const x = extractIndexable(payload as Record<string, unknown>);
  const role = x.role ?? 'event';
  const text = x.texts.join('\n').trim();
  if (text) return `${role}: ${text}`;
  return x.skipped.length ? `${role}: (${x.skipped.join('; ')})` : `${role}: (no text)`;
}

/** One line of at most `max` characters (white space collapsed, an ellipsis where it is cut). */
export function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= max) return flat;
  const cut = flat.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > max * 0.6 ? cut.slice(0, space) : cut).trimEnd()}…`;
}
