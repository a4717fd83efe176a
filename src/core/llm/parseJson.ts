/**
 * Reading an LLM's JSON answer (docs/pipeline.md "Extraction"): strip `<think>` blocks
 * (qwen3 and other chain-of-thought models), then Markdown code fences, then parse.
 * Never throws: a failure is returned with a reason for the job's warnings.
 */

/** Removes `<think>…</think>` blocks; an unclosed `<think>` swallows the rest (the model ran out). */
export function stripThink(text: string): string {
  return text
    .replace(/<think>[\s\S]*?<\/think>/gi, '')
    .replace(/<think>[\s\S]*$/i, '')
    .trim();
}

/** The content of the first ```/```json fence, or the text unchanged when there is none. */
export function stripFences(text: string): string {
  const m = /```[a-zA-Z0-9_-]*[ \t]*\r?\n?([\s\S]*?)(?:```|$)/.exec(text);
  return (m ? m[1]! : text).trim();
}

export type ParsedJson = { ok: true; value: unknown } | { ok: false; error: string };

export function parseLlmJson(raw: string): ParsedJson {
  if (typeof raw !== 'string') return { ok: false, error: 'the model returned no text' };
  const text = stripFences(stripThink(raw));
  if (!text) return { ok: false, error: 'the model returned an empty answer' };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (e) {
    // Some models wrap the object in a sentence despite the instructions: try the outermost braces.
    const start = text.indexOf('{');
    const end = text.lastIndexOf('}');
    if (start >= 0 && end > start) {
      try {
        return { ok: true, value: JSON.parse(text.slice(start, end + 1)) };
      } catch {
        // fall through
      }
    }
    return { ok: false, error: `the model's answer is not valid JSON (${(e as Error).message}): ${text.slice(0, 120)}` };
  }
}
