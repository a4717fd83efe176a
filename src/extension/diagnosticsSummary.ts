/**
 * "Show Diagnostics" for people (docs/DEVELOPMENT.md has the log's technical lines): what Agent
 * Memory holds, how it searches, what the pipeline does, what needs attention — in sentences,
 * without store paths, sequence numbers or internal names, which stay in the log. No vscode
 * import (unit-tested).
 */
import type { EngineDiagnostics } from '../engine/protocol';
import { plural } from '../core/text/plural';

const MODES: Record<string, string> = {
  off: 'off — memories are stored exactly as given',
  shadow: 'dry run — it proposes facts and records them in the history, but changes nothing',
  controlled: 'on — a local model adds short facts from what is saved; existing memories are never changed',
  full: 'on — a local model adds, updates and deletes facts; every change can be undone',
};

function searchLine(e: EngineDiagnostics): string {
  const m = e.embedder;
  if (!m) return 'Search: by keywords only (no embedding model is available).';
  const by = m.provider === 'ollama' ? 'Ollama' : m.provider === 'builtin' ? 'the built-in offline model' : `the ${m.provider} embedder`;
  const pending = e.stats.project.pendingEmbeddings + e.stats.global.pendingEmbeddings;
  return `Search: by keywords and by meaning, with ${by}${m.degraded ? ' (in a reduced mode: see the log)' : ''}.${pending ? ` ${plural(pending, 'memory waits', 'memories wait')} for its vector.` : ''}`;
}

/** The summary as markdown-free plain text, one topic a paragraph. */
export function diagnosticsSummary(e: EngineDiagnostics | undefined, engineProblem?: string): string {
  if (!e)
    return `Agent Memory is not running: ${engineProblem ?? 'the engine has not started'}.\n\nRun "Agent Memory: Restart Engine", or "Agent Memory: Show Log" for the details.\n`;
  const { project, global } = e.stats;
  const attention: string[] = [];
  if (project.readOnly || global.readOnly)
    attention.push('A memory store is read-only: changes are refused until it can be written again.');
  if (e.config.issues.length)
    attention.push(`${plural(e.config.issues.length, 'setting has a problem', 'settings have problems')}: see the Problems view.`);
  if (e.stats.suggestionsPending)
    attention.push(
      `${plural(e.stats.suggestionsPending, 'pair of similar memories waits', 'pairs of similar memories wait')} in the Suggestions view.`,
    );
  if (e.pipeline.pendingReviews)
    attention.push(`${plural(e.pipeline.pendingReviews, 'pipeline change waits', 'pipeline changes wait')} for your review.`);
  const lines = [
    'Agent Memory — diagnostics',
    '',
    attention.length ? `Needs attention:\n${attention.map((a) => `- ${a}`).join('\n')}` : 'Everything is working.',
    '',
    `Memories: ${plural(project.memories, 'memory', 'memories')} in this project (${e.projectId}), ${global.memories} shared across projects.${project.deleted + global.deleted ? ` ${plural(project.deleted + global.deleted, 'deleted memory', 'deleted memories')} can still be restored.` : ''}`,
    '',
    searchLine(e),
    '',
    `Pipeline: ${e.pipeline.paused ? 'paused' : (MODES[e.pipeline.mode] ?? e.pipeline.mode)}.`,
    '',
    `Settings: ${e.config.file ? "from your settings and the workspace's agent.yaml" : 'from your settings (this workspace has no agent.yaml)'}.`,
    ...(e.warnings.length
      ? [
          '',
          `Recent warnings:\n${e.warnings
            .slice(-5)
            .map((w) => `- ${w}`)
            .join('\n')}`,
        ]
      : []),
    '',
    'Versions, storage folders and timings are in the log: "Agent Memory: Show Log".',
  ];
  return lines.join('\n') + '\n';
}
