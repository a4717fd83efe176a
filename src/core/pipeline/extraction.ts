/**
 * Extraction stage (docs/pipeline.md "Extraction"): one LLM pass that turns a raw memory into discrete facts and
 * entity triples, then strict, partial-failure-safe validation. Never throws for bad model
 * output: problems become warnings and whatever is valid is returned.
 */
import type { LlmProvider } from '../llm/types';
import { parseLlmJson } from '../llm/parseJson';

export const FACT_TYPES = ['fact', 'preference', 'decision', 'procedural', 'semantic'] as const;
export type FactType = (typeof FACT_TYPES)[number];

/**
 * What an entity is, as the model names it (`source_type` / `target_type`). Optional in the
 * answer: small models often leave it out, and then the entity is stored as `unknown` until a
 * later extraction names its type.
 */
export const ENTITY_TYPES = ['person', 'tool', 'library', 'service', 'file', 'project', 'concept', 'other'] as const;
export type EntityType = (typeof ENTITY_TYPES)[number] | 'unknown';

export const EXTRACTION_LIMITS = {
  maxInputChars: 12_000,
  maxFacts: 20,
  minFactChars: 10,
  maxFactChars: 2000,
  maxEntities: 50,
  maxEntityChars: 200,
} as const;

export interface ExtractedFact {
  content: string;
  type: FactType;
  confidence: number;
}

export interface ExtractedEntity {
  source: string;
  relationship: string;
  target: string;
  confidence: number;
  sourceType: EntityType;
  targetType: EntityType;
}

export interface ExtractionResult {
  facts: ExtractedFact[];
  entities: ExtractedEntity[];
  warnings: string[];
}

/** JSON schema passed as Ollama's `format` (structured output). */
export const EXTRACTION_SCHEMA = {
  type: 'object',
  properties: {
    facts: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          content: { type: 'string' },
          type: { type: 'string', enum: [...FACT_TYPES] },
          confidence: { type: 'number' },
        },
        required: ['content', 'type', 'confidence'],
      },
    },
    entities: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          source: { type: 'string' },
          relationship: { type: 'string' },
          target: { type: 'string' },
          confidence: { type: 'number' },
          source_type: { type: 'string', enum: [...ENTITY_TYPES] },
          target_type: { type: 'string', enum: [...ENTITY_TYPES] },
        },
        required: ['source', 'relationship', 'target', 'confidence'],
      },
    },
  },
  required: ['facts', 'entities'],
} as const;

export function buildExtractionPrompt(input: string): string {
  return `You extract durable, reusable knowledge from a note written while working on a software project.

Return ONLY a JSON object, no other text, of this shape:
{"facts": [{"content": string, "type": "fact"|"preference"|"decision"|"procedural"|"semantic", "confidence": number 0..1}],
 "entities": [{"source": string, "source_type": string, "relationship": string, "target": string, "target_type": string, "confidence": number 0..1}]}

Rules:
- Each fact is one self-contained statement that makes sense without the note (name the subject, no "it"/"this").
- type: preference = what someone likes or wants; decision = a choice that was made; procedural = how to do something;
  semantic = a general truth or definition; fact = anything else that is true about the project.
- Skip ephemeral details: greetings, moods, what someone is doing right now, one-off timestamps, file line numbers.
- entities are relationship triples between named things (tools, libraries, services, people, files, concepts).
- source_type / target_type: one of ${ENTITY_TYPES.join(', ')}.
- confidence is how sure you are the statement is true and lasting.
- If there is nothing worth keeping, return {"facts": [], "entities": []}.

Example note: "We moved the API from Express to Fastify last week because Express was too slow under load. Run tests with pnpm test."
Example answer:
{"facts": [
  {"content": "The API server uses Fastify instead of Express.", "type": "decision", "confidence": 0.9},
  {"content": "Express was replaced because it was too slow under load.", "type": "fact", "confidence": 0.8},
  {"content": "Tests are run with pnpm test.", "type": "procedural", "confidence": 0.9}],
 "entities": [
  {"source": "API server", "source_type": "service", "relationship": "uses", "target": "Fastify", "target_type": "library", "confidence": 0.9},
  {"source": "API server", "source_type": "service", "relationship": "replaced", "target": "Express", "target_type": "library", "confidence": 0.8}]}

Example note: "Good morning! I prefer tabs over spaces in this repo."
Example answer:
{"facts": [{"content": "The user prefers tabs over spaces for indentation in this repository.", "type": "preference", "confidence": 0.85}],
 "entities": [{"source": "user", "source_type": "person", "relationship": "prefers", "target": "tabs", "target_type": "concept", "confidence": 0.85}]}

Note:
"""
${input}
"""
Answer:`;
}

/** Input over 12 000 characters is cut before the prompt is built. */
export function truncateInput(text: string, warnings: string[]): string {
  if (text.length <= EXTRACTION_LIMITS.maxInputChars) return text;
  warnings.push(`input truncated from ${text.length} to ${EXTRACTION_LIMITS.maxInputChars} characters`);
  return text.slice(0, EXTRACTION_LIMITS.maxInputChars);
}

function clampConfidence(v: unknown, where: string, warnings: string[]): number {
  const n = typeof v === 'number' ? v : typeof v === 'string' ? Number(v) : NaN;
  if (!Number.isFinite(n)) {
    warnings.push(`${where}: confidence ${JSON.stringify(v)} is not a number; 0.5 used`);
    return 0.5;
  }
  if (n < 0 || n > 1) warnings.push(`${where}: confidence ${n} clamped to [0, 1]`);
  return Math.min(1, Math.max(0, n));
}

/** A known entity type, or `unknown` (absent: silently; anything else: with a warning). */
function entityType(v: unknown, where: string, warnings: string[]): EntityType {
  if (v === undefined || v === null || v === '') return 'unknown';
  const t = typeof v === 'string' ? v.trim().toLowerCase() : '';
  if ((ENTITY_TYPES as readonly string[]).includes(t)) return t as EntityType;
  warnings.push(`${where}: unknown entity type ${JSON.stringify(v)}; stored as "unknown"`);
  return 'unknown';
}

/** Validates a parsed model answer. Collects warnings; keeps every valid item. */
export function validateExtraction(value: unknown): ExtractionResult {
  const warnings: string[] = [];
  const facts: ExtractedFact[] = [];
  const entities: ExtractedEntity[] = [];
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    warnings.push('the model answer is not a JSON object; no facts extracted');
    return { facts, entities, warnings };
  }
  const obj = value as Record<string, unknown>;
  const rawFacts = Array.isArray(obj.facts) ? obj.facts : [];
  if (!Array.isArray(obj.facts)) warnings.push('the answer has no "facts" array');
  if (rawFacts.length > EXTRACTION_LIMITS.maxFacts) {
    warnings.push(`${rawFacts.length} facts returned; only the first ${EXTRACTION_LIMITS.maxFacts} kept`);
  }
  rawFacts.slice(0, EXTRACTION_LIMITS.maxFacts).forEach((f, i) => {
    const where = `fact ${i + 1}`;
    if (!f || typeof f !== 'object') return void warnings.push(`${where}: not an object; rejected`);
    const r = f as Record<string, unknown>;
    let content = typeof r.content === 'string' ? r.content.trim().replace(/\s+/g, ' ') : '';
    if (content.length < EXTRACTION_LIMITS.minFactChars) {
      return void warnings.push(`${where}: content shorter than ${EXTRACTION_LIMITS.minFactChars} characters; rejected`);
    }
    if (content.length > EXTRACTION_LIMITS.maxFactChars) {
      warnings.push(`${where}: content truncated from ${content.length} to ${EXTRACTION_LIMITS.maxFactChars} characters`);
      content = content.slice(0, EXTRACTION_LIMITS.maxFactChars);
    }
    let type: FactType = 'fact';
    if (typeof r.type === 'string' && (FACT_TYPES as readonly string[]).includes(r.type.toLowerCase()))
      type = r.type.toLowerCase() as FactType;
    else warnings.push(`${where}: unknown type ${JSON.stringify(r.type)}; stored as "fact"`);
    facts.push({ content, type, confidence: clampConfidence(r.confidence, where, warnings) });
  });

  const rawEntities = Array.isArray(obj.entities) ? obj.entities : [];
  if (obj.entities !== undefined && !Array.isArray(obj.entities)) warnings.push('"entities" is not an array; ignored');
  if (rawEntities.length > EXTRACTION_LIMITS.maxEntities) {
    warnings.push(`${rawEntities.length} entities returned; only the first ${EXTRACTION_LIMITS.maxEntities} kept`);
  }
  rawEntities.slice(0, EXTRACTION_LIMITS.maxEntities).forEach((e, i) => {
    const where = `entity ${i + 1}`;
    if (!e || typeof e !== 'object') return void warnings.push(`${where}: not an object; rejected`);
    const r = e as Record<string, unknown>;
    const str = (v: unknown) => (typeof v === 'string' ? v.trim().replace(/\s+/g, ' ').slice(0, EXTRACTION_LIMITS.maxEntityChars) : '');
    const source = str(r.source);
    const target = str(r.target);
    const relationship = str(r.relationship);
    if (!source || !target || !relationship) {
      return void warnings.push(`${where}: source, target and relationship must be non-empty; rejected`);
    }
    entities.push({
      source,
      target,
      relationship,
      confidence: clampConfidence(r.confidence, where, warnings),
      sourceType: entityType(r.source_type, `${where} source_type`, warnings),
      targetType: entityType(r.target_type, `${where} target_type`, warnings),
    });
  });
  return { facts, entities, warnings };
}

/**
 * Runs extraction for one text. Provider errors propagate (the job retries); model output
 * problems do not (warnings). `raw` is returned for the audit trail.
 */
export async function extractFacts(
  llm: LlmProvider,
  text: string,
  opts: { timeoutMs?: number; signal?: AbortSignal } = {},
): Promise<ExtractionResult & { raw: string }> {
  const warnings: string[] = [];
  const input = truncateInput(text, warnings);
  const raw = await llm.generate(buildExtractionPrompt(input), {
    format: EXTRACTION_SCHEMA as unknown as Record<string, unknown>,
    timeoutMs: opts.timeoutMs,
    signal: opts.signal,
  });
  const parsed = parseLlmJson(raw);
  if (!parsed.ok) return { facts: [], entities: [], warnings: [...warnings, `extraction: ${parsed.error}`], raw };
  const result = validateExtraction(parsed.value);
  return { ...result, warnings: [...warnings, ...result.warnings], raw };
}
