/**
 * Whose settings the shared engine runs with. One window's engine serves a project's store and
 * runs its pipeline for every window (ARCHITECTURE.md "One owner, many clients"), with the
 * settings that window read (ReadyInfo.config). A window compares its own reading with them when
 * it connects, and after the store changed hands:
 * - the same folder: the person's settings are the same files, so a difference means the owner
 *   missed a change — this window's fresh reading is sent to it (`owner-behind`);
 * - another folder (a clone or worktree of the project): its workspace settings or agent.yaml may
 *   say otherwise; the owner's stay in use, and the person is told what differs (`differ`);
 * - the pipeline mode changed with a takeover: said in words, never silently.
 * No vscode import (unit-tested).
 */
import * as path from 'node:path';
import { SETTING_IDS, settingIdFor } from '../config/settingsLayout';
import { SETTINGS_SECTION } from '../config/settingsSchema';

/** What the engine of a window runs with: its explicit settings (agent.yaml keys), folder and pipeline mode. */
export interface RunningConfig {
  settings: Readonly<Record<string, unknown>>;
  workspaceRoot?: string;
  mode: string;
  /** Who runs it (the owner's purpose: "VS Code window (pid 123)", "agent-memory mcp (pid 456)"). */
  owner?: string;
}

export type Agreement =
  { kind: 'same' } | { kind: 'owner-behind' } | { kind: 'differ'; mode?: { here: string; there: string }; keys: string[] };

const ORDER = Object.keys(SETTING_IDS);

function differingKeys(a: Readonly<Record<string, unknown>>, b: Readonly<Record<string, unknown>>): string[] {
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k]));
  const rank = (k: string) => (ORDER.includes(k) ? ORDER.indexOf(k) : ORDER.length);
  return keys.sort((x, y) => rank(x) - rank(y) || x.localeCompare(y));
}

/** This window's reading (`own`) against the owner's. */
export function compareWithOwner(own: RunningConfig, owner: RunningConfig): Agreement {
  const keys = differingKeys(own.settings, owner.settings);
  if (!keys.length && own.mode === owner.mode) return { kind: 'same' };
  if (own.workspaceRoot === owner.workspaceRoot) return { kind: 'owner-behind' };
  return {
    kind: 'differ',
    ...(own.mode !== owner.mode ? { mode: { here: own.mode, there: owner.mode } } : {}),
    keys: keys.map((k) => `${SETTINGS_SECTION}.${settingIdFor(k)}`),
  };
}

/** "off", "in shadow mode". */
export function modeWords(mode: string): string {
  return mode === 'off' ? 'off' : `in ${mode} mode`;
}

function keyList(keys: readonly string[]): string {
  if (keys.length <= 2) return keys.join(' and ');
  return `${keys.slice(0, 2).join(', ')} and ${keys.length - 2} more`;
}

/** "the window that serves this project's memory (folder clone-a)"; an agent's process by its name. */
function ownerWindow(folder: string | undefined, owner?: string): string {
  const where = folder ? `folder ${path.basename(folder)}` : '';
  if (owner && !/^VS Code window/.test(owner))
    return `the process that serves this project's memory (${owner.replace(/ \(pid \d+\)$/, '')}${where ? `, ${where}` : ''})`;
  return `the window that serves this project's memory${where ? ` (${where})` : ''}`;
}

function differText(d: Extract<Agreement, { kind: 'differ' }>, ownerFolder: string | undefined, owner?: string): string {
  const what = d.mode
    ? `: the pipeline is ${modeWords(d.mode.there)} there, ${modeWords(d.mode.here)} here`
    : d.keys.length
      ? ` (${keyList(d.keys)})`
      : '';
  return `${ownerWindow(ownerFolder, owner)} has other settings than this one${what}. Its settings are in use while it serves the memory.`;
}

function capital(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

export interface OwnershipInput {
  /** This window now: serving the store, or a client of the window that does. */
  role: 'owner' | 'client';
  /** A client's comparison with its owner (compareWithOwner). */
  agreement?: Agreement;
  /** The pipeline mode the engine runs now. */
  mode: string;
  /** The mode this window showed before the store changed hands (undefined at the first start). */
  before?: string;
  /** The owner's folder (a client's message names it). */
  ownerFolder?: string;
  /** The owner's purpose: a window, or an agent's process (named so). */
  owner?: string;
}

/** What to tell the person, if anything: the pipeline mode changed with a takeover, or the owner runs other settings. */
export function ownershipMessage(i: OwnershipInput): string | undefined {
  const changed =
    i.before !== undefined && i.before !== i.mode ? `the pipeline is now ${modeWords(i.mode)} (it was ${modeWords(i.before)})` : '';
  if (i.role === 'owner')
    return changed ? `Agent Memory: this window now serves the project's memory, with its own settings: ${changed}.` : undefined;
  if (i.agreement?.kind === 'differ') {
    const text = differText(i.agreement, i.ownerFolder, i.owner);
    return `Agent Memory: ${changed ? `${changed}. ${capital(text)}` : text}`;
  }
  if (!changed) return undefined;
  return `Agent Memory: ${changed}: ${ownerWindow(undefined)} now runs it as this window's settings say.`;
}
