/**
 * The working-memory scratchpad of a session (docs/sessions.md "Scratchpad"): the agent's list of
 * current goals, done steps and open items, at most SCRATCHPAD_MAX_ITEMS items of at most
 * SCRATCHPAD_MAX_ITEM_CHARS characters. Each write replaces the whole list; a list over a limit is
 * refused with invalid_input naming the limit (never cut). Kept in the session's state.
 */
import type { Store } from '../store/store';
import { shownValue } from '../util/shownValue';
import { ValidationError } from '../memory/errors';
import { SCRATCHPAD_MAX_ITEMS, SCRATCHPAD_MAX_ITEM_CHARS } from './limits';
import {
  SessionNotFoundError,
  checkAgent,
  checkSessionId,
  readState,
  scratchpadOf,
  sessionExists,
  upsertSession,
  writeState,
} from './state';
import type { ScratchpadState } from './types';
import { plural } from '../text/plural';

/** The scratchpad, or null when the session has none (or is unknown). */
export function readScratchpad(store: Store, sessionIdIn: string): ScratchpadState | null {
  const sessionId = checkSessionId(sessionIdIn);
  return scratchpadOf(readState(store, sessionId));
}

/** The items, trimmed and checked against the limits. */
export function checkScratchpadItems(items: unknown): string[] {
  if (!Array.isArray(items)) throw new ValidationError('items', `must be a list of strings, got ${shownValue(items)}`);
  if (items.length > SCRATCHPAD_MAX_ITEMS)
    throw new ValidationError(
      'items',
      `${plural(items.length, 'item')} are more than the ${SCRATCHPAD_MAX_ITEMS} a scratchpad may hold; keep the ones that matter`,
    );
  return items.map((item, i) => {
    if (typeof item !== 'string') throw new ValidationError(`items[${i}]`, `must be a string, got ${shownValue(item)}`);
    const t = item.trim();
    if (!t) throw new ValidationError(`items[${i}]`, 'is empty');
    const chars = Array.from(t).length;
    if (chars > SCRATCHPAD_MAX_ITEM_CHARS)
      throw new ValidationError(
        `items[${i}]`,
        `is ${chars} characters, over the limit of ${SCRATCHPAD_MAX_ITEM_CHARS} per item; say it shorter or split it`,
      );
    return t;
  });
}

/** Replaces the scratchpad (creating the session on its first write). */
export function writeScratchpad(store: Store, sessionIdIn: string, items: unknown, now: string, agent?: string): ScratchpadState {
  const sessionId = checkSessionId(sessionIdIn);
  const checked = checkScratchpadItems(items);
  const a = checkAgent(agent);
  return store.transaction((tx) => {
    upsertSession(tx, sessionId, a, now);
    const state = readState(tx, sessionId);
    writeState(tx, sessionId, { ...state, scratchpad: { items: checked, updated_at: now } }, now);
    return { items: checked, updatedAt: now };
  });
}

/** Empties the scratchpad; false when it held nothing. */
export function clearScratchpad(store: Store, sessionIdIn: string, now: string): boolean {
  const sessionId = checkSessionId(sessionIdIn);
  if (!sessionExists(store, sessionId)) throw new SessionNotFoundError(sessionId);
  const state = readState(store, sessionId);
  if (!state.scratchpad?.items?.length) return false;
  store.transaction((tx) => {
    const { scratchpad: _dropped, ...rest } = readState(tx, sessionId);
    writeState(tx, sessionId, rest, now);
  });
  return true;
}
