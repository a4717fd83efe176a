/**
 * The other way round from the importer (docs/import-from-tools.md "Export as an AGENTS.md
 * section"): the project's most important memories as a Markdown section for tools that read
 * markdown only, kept between two markers so that writing it again replaces it, and the
 * importer never reads it back as memories.
 */

export const SECTION_BEGIN = '<!-- agent-memory:begin (written by Agent Memory: edits here are replaced) -->';
export const SECTION_END = '<!-- agent-memory:end -->';
/** Lines that open / close the section, whatever the words after the marker name. */
export const SECTION_BEGIN_RE = /^<!--\s*agent-memory:begin\b.*-->\s*$/;
export const SECTION_END_RE = /^<!--\s*agent-memory:end\s*-->\s*$/;

export interface SectionMemory {
  type: string;
  title: string;
  content: string;
}

/** Headings of the types people read, in this order; other types go under "Notes". */
const GROUPS: [string, string][] = [
  ['decision', 'Decisions'],
  ['code_pattern', 'Conventions'],
  ['preference', 'Preferences'],
  ['workflow', 'Workflows'],
  ['problem', 'Pitfalls'],
  ['fix', 'Fixes'],
  ['solution', 'Solutions'],
];

/** One list item: the text on one line (a title only when the text does not start with it). */
function item(m: SectionMemory, maxChars: number): string {
  const text = m.content.replace(/\s+/g, ' ').trim();
  const cut = text.length > maxChars ? `${text.slice(0, maxChars - 1)}…` : text;
  // Never let memory text close the section or open another.
  const safe = cut.replace(/<!--/g, '<!–');
  return m.title && !text.toLowerCase().startsWith(m.title.toLowerCase()) ? `- **${m.title.replace(/\*/g, '')}**: ${safe}` : `- ${safe}`;
}

export function agentsMdSection(memories: readonly SectionMemory[], maxChars = 300): string {
  const lines = [SECTION_BEGIN, '## Project memory', ''];
  const known = new Set(GROUPS.map(([t]) => t));
  const groups: [string, SectionMemory[]][] = [
    ...GROUPS.map(([t, h]): [string, SectionMemory[]] => [h, memories.filter((m) => m.type === t)]),
    ['Notes', memories.filter((m) => !known.has(m.type))],
  ];
  for (const [heading, list] of groups) {
    if (!list.length) continue;
    lines.push(`### ${heading}`, '', ...list.map((m) => item(m, maxChars)), '');
  }
  if (lines.length === 3) lines.push('No memories yet.', '');
  lines.push(SECTION_END);
  return lines.join('\n');
}

/** `text` with the section replaced (or appended after a blank line when there is none). */
export function withSection(text: string | undefined, section: string): string {
  if (!text?.trim()) return `${section}\n`;
  const lines = text.split('\n');
  const from = lines.findIndex((l) => SECTION_BEGIN_RE.test(l));
  const to = from >= 0 ? lines.findIndex((l, i) => i > from && SECTION_END_RE.test(l)) : -1;
  if (from >= 0 && to > from) return [...lines.slice(0, from), section, ...lines.slice(to + 1)].join('\n');
  return `${text.replace(/\n*$/, '')}\n\n${section}\n`;
}
