/**
 * "Show Diagnostics" for people (docs/DEVELOPMENT.md has the log's technical lines): what Agent
 * Memory holds, how it searches, what the pipeline does, what needs attention — in sentences,
 * without store paths, sequence numbers or internal names, which stay in the log. "Everything is
 * working" only when nothing is degraded: a pipeline that waits for Ollama or its model, jobs
 * that wait or failed, a fallback embedder, a store that cannot be written each need attention.
 * No vscode import (unit-tested).
 */
import type { EngineDiagnostics, PipelineDiagnostics, PipelineTrouble, StoreInfo } from '../../engine/protocol';
import { plural } from '../../core/text/plural';

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

/** "3 jobs wait" / "1 job waits". */
function jobsWait(n: number): string {
  return plural(n, 'job waits', 'jobs wait');
}

/** The pipeline's problem, if it has one: waiting for Ollama or its model, paused with work queued, not working. */
function pipelineAttention(e: EngineDiagnostics, p: PipelineDiagnostics | undefined): string | undefined {
  const s = e.pipeline;
  if (s.restricted || s.mode === 'off') return undefined;
  const waiting = (s.jobs.pending ?? 0) + (s.jobs.leased ?? 0);
  if (s.paused)
    return waiting ? `The pipeline is paused: ${jobsWait(waiting)} until you resume it (Agent Memory: Resume Pipeline).` : undefined;
  if (p && !p.llm.reachable)
    return `The pipeline is on but Ollama does not answer at ${p.llm.url}: ${jobsWait(waiting)} until it does. Start Ollama, or switch the pipeline off (Agent Memory: Switch Pipeline Mode…).`;
  if (p && !p.llm.modelPresent)
    return `The pipeline is on but Ollama does not have the model ${p.llm.model}: ${jobsWait(waiting)} until it is installed ("Agent Memory: Switch Pipeline Mode…" offers to pull it).`;
  return s.state === 'degraded' ? troubleText(s.trouble, waiting) : undefined;
}

/** A degraded pipeline's trouble in words. */
function troubleText(trouble: PipelineTrouble | undefined, waiting: number): string {
  switch (trouble?.kind) {
    case 'model-slow':
      return `The pipeline waits for its model, which is slow to answer or times out: ${jobsWait(waiting)}.`;
    case 'failing':
      return `The pipeline failed ${plural(trouble.failures, 'time')} in a row: ${jobsWait(waiting)}. Is Ollama running?`;
    case 'not-running':
      return `The pipeline is on but its worker is not running: ${jobsWait(waiting)}. See the log.`;
    default:
      return `The pipeline is not working normally: ${jobsWait(waiting)}. See the log.`;
  }
}

/** Search by meaning that is off, reduced to a fallback, or waiting for Ollama. */
function embedderAttention(e: EngineDiagnostics): string | undefined {
  const m = e.embedder;
  if (!m) return 'Search by meaning is off: no embedding model could be opened, so search matches keywords only.';
  if (!m.degraded) return undefined;
  if (m.provider === 'ollama')
    return 'Search by meaning waits for Ollama, which is set as the embedding model but does not answer: new memories wait for their vectors.';
  return 'Search by meaning is reduced: the built-in model could not be loaded, so a fallback that matches words only is used (the log says why).';
}

function storeAttention(name: 'project' | 'global', s: StoreInfo): string | undefined {
  if (s.health && s.health.state !== 'ok' && s.health.state !== 'read_only')
    return `The ${name} store cannot be written now: ${s.health.detail}`;
  return undefined;
}

/** Everything that is not working as it should, most important first. */
export function attentionItems(e: EngineDiagnostics, p?: PipelineDiagnostics): string[] {
  const { project, global } = e.stats;
  const dead = p?.health.queue.dead ?? e.pipeline.jobs.dead ?? 0;
  const items: (string | undefined)[] = [
    project.readOnly || global.readOnly ? 'A memory store is read-only: changes are refused until it can be written again.' : undefined,
    storeAttention('project', project),
    storeAttention('global', global),
    e.config.issues.length
      ? `${plural(e.config.issues.length, 'setting has a problem', 'settings have problems')}: see the Problems view.`
      : undefined,
    pipelineAttention(e, p),
    dead ? `${plural(dead, 'pipeline job')} failed for good: the Pipeline view lists them under Queue.` : undefined,
    embedderAttention(e),
    e.stats.suggestionsPending
      ? `${plural(e.stats.suggestionsPending, 'pair of similar memories waits', 'pairs of similar memories wait')} in the Suggestions view.`
      : undefined,
    e.pipeline.pendingReviews
      ? `${plural(e.pipeline.pendingReviews, 'pipeline change waits', 'pipeline changes wait')} for your review.`
      : undefined,
  ];
  return items.filter((i): i is string => i !== undefined);
}

/**
 * The summary as markdown-free plain text, one topic a paragraph. `pipeline`: what the Pipeline
 * view shows (Ollama probed, failed jobs), when the engine answered it.
 */
export function diagnosticsSummary(e: EngineDiagnostics | undefined, engineProblem?: string, pipeline?: PipelineDiagnostics): string {
  if (!e)
    return `Agent Memory is not running: ${engineProblem ?? 'the engine has not started'}.\n\nRun "Agent Memory: Restart Engine", or "Agent Memory: Show Log" for the details.\n`;
  const { project, global } = e.stats;
  const attention = attentionItems(e, pipeline);
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
