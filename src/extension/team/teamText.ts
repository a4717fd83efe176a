/**
 * What the VS Code surfaces of team memory say (docs/team.md "In VS Code"): the status-bar
 * item's text and tooltip, the sentence its click shows, who made a memory's shared version,
 * and a conflict's row. Pure: no `vscode` import (the unit tests read it directly).
 */
import type { SharedBy } from '../../core/memory/types';
import { plural } from '../../core/text/plural';
import { truncateLine } from '../../core/text/truncate';
import { relativeTime } from '../../core/text/timeWords';
import type { TeamConflictInfo, TeamOverview } from '../../engine/teamProtocol';

type Connected = Extract<TeamOverview, { connected: true }>;

/** The host part of a machine name ("ben-laptop/1a2b3c4d" → "ben-laptop"). */
export function machineName(machine: string | null): string | undefined {
  if (!machine) return undefined;
  return machine.replace(/\/[0-9a-f]{8}$/i, '') || undefined;
}

/** "ben on ben-laptop": who made the version the team server holds. */
export function sharedByText(s: SharedBy): string {
  const where = machineName(s.machine);
  return where ? `${s.author} on ${where}` : s.author;
}

/** The status-bar item: a codicon and a few words. */
export function teamStatusText(s: Connected): string {
  switch (s.state) {
    case 'connecting':
      return '$(sync~spin) Team: connecting';
    case 'offline':
      return s.waiting ? `$(debug-disconnect) Team: offline, ${s.waiting} waiting` : '$(debug-disconnect) Team: offline';
    case 'conflict':
      return `$(warning) Team: ${plural(s.conflicts, 'conflict')}`;
    case 'waiting':
      return `$(cloud-upload) Team: ${s.waiting} waiting`;
    default:
      return '$(cloud) Team: synced';
  }
}

function lastSync(s: Connected, now: Date): string {
  return s.lastSyncAt ? `Last synced ${relativeTime(s.lastSyncAt, now)}.` : 'Not synced yet.';
}

/** The sentences of the state, as the status item's tooltip and its click say them. */
export function teamStatusSentences(s: Connected, now = new Date()): string[] {
  const server = `the team memory server ${s.server}`;
  const waiting = s.waiting ? `${plural(s.waiting, 'change')} made here ${s.waiting === 1 ? 'waits' : 'wait'} to be sent.` : '';
  const lines: string[] = [];
  switch (s.state) {
    case 'connecting':
      lines.push(`Connecting to ${server}…`);
      break;
    case 'offline':
      lines.push(
        `Offline: ${server} cannot be reached${s.lastError ? ` (${s.lastError})` : ''}.`,
        'Your memory keeps working here and is shared when the server is back.',
      );
      break;
    case 'conflict':
      lines.push(
        `${plural(s.conflicts, 'memory was', 'memories were')} changed here and by someone else at the same time.`,
        'Their version is kept for now; choose which to keep in the Suggestions view.',
      );
      break;
    default:
      lines.push(s.waiting ? `Connected to ${server}.` : `Synced with ${server}.`);
  }
  if (waiting) lines.push(waiting);
  lines.push(`You share as ${s.author} from ${machineName(s.machine) ?? 'this machine'}. ${lastSync(s, now)}`);
  return lines;
}

/** A conflict's row in the Suggestions view: who else changed it leads (the sidebar cuts the end), then the memory's name. */
export function conflictLabel(c: Pick<TeamConflictInfo, 'local' | 'current' | 'serverAuthor' | 'contradiction'>): string {
  const who = c.serverAuthor ?? 'someone else';
  if (c.contradiction) return `${who} says otherwise · ${truncateLine(c.local.title || c.local.content, 60)}`;
  const lead = !c.current || c.current.deletedAt ? `Deleted by ${who}, edited by you` : `Changed by ${who} and by you`;
  return `${lead} · ${memoryNameOf(c)}`;
}

/** The memory a conflict is about, in a few words. */
export function memoryNameOf(c: Pick<TeamConflictInfo, 'local' | 'current'>): string {
  return truncateLine(c.current?.title || c.local.title || c.current?.content || c.local.content, 60);
}

/** What each side of a conflict says (the tooltip and the Keep question). */
export function conflictSides(c: TeamConflictInfo): { mine: string; theirs: string } {
  const mine = c.local.deletedAt ? '(you deleted it)' : c.local.content;
  const theirs = !c.current ? '(no longer here)' : c.current.deletedAt ? '(deleted)' : c.current.content;
  return { mine, theirs };
}

/** The headings and closing sentence of a conflict's tooltip (an edit conflict, or another person's memory contradicting mine). */
export function conflictTip(c: TeamConflictInfo, now = new Date()): { mine: string; theirs: string; footer: string } {
  const who = c.serverAuthor ?? 'someone else';
  if (c.contradiction) {
    return {
      mine: 'Yours',
      theirs: `${who}'s memory`,
      footer: `The pipeline found that ${who}'s memory says otherwise: ${c.contradiction.reason} Keep theirs to retire yours (you can restore it), or keep yours to keep both.`,
    };
  }
  return {
    mine: 'Yours (not shared)',
    theirs: c.serverAuthor ? `Theirs (by ${c.serverAuthor}, kept now)` : 'Theirs (kept now)',
    footer: `Changed at the same time ${relativeTime(c.createdAt, now)}. Keep yours or theirs.`,
  };
}

const HOST_PORT = /^([A-Za-z0-9._-]{1,253}|\[[0-9A-Fa-f:]+\])(?::(\d{1,5}))?$/;

/** The secret storage key of a server's password: its "user@host:port/database" label (the status's `server`). */
export function secretKey(server: string): string {
  return `agentMemory.team/${server}`;
}

/** "host" or "host:port" → its parts, or why not. */
export function parseServer(text: string): { host: string; port: number } | string {
  const m = HOST_PORT.exec(text.trim());
  if (!m) return 'Write a host name or address, with ":port" when it is not 5432 (db.example.com or 127.0.0.1:5433).';
  const port = m[2] ? Number(m[2]) : 5432;
  if (port < 1 || port > 65535) return 'The port is a number from 1 to 65535.';
  return { host: m[1]!.replace(/^\[|\]$/g, ''), port };
}
