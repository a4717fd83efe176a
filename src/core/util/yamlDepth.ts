/**
 * How deeply a YAML text nests, found in one pass over its characters: no parsing, no recursion,
 * so it cannot itself run out of stack or memory. A YAML parser recurses once per level: text
 * nested thousands of levels deep (98 KB of "[") can exhaust the stack or the heap before the
 * parser reports anything, so such text is refused before it is parsed (agent.yaml, override files).
 *
 * Levels counted: flow collections (`[`, `{`), deeper indentation of block collections, and
 * compact sequence entries ("- - x"). Not counted: comments, quoted text, block scalars (`|`, `>`).
 * The count errs on the low side where YAML is ambiguous; the parser's own limits remain behind it.
 */

/** No configuration nests anywhere near this deep (agent.yaml's deepest key is 3 levels). */
export const MAX_YAML_DEPTH = 64;

export interface TooDeep {
  /** 1-based position of the character that went past the limit. */
  line: number;
  column: number;
}

/** Where `text` first nests deeper than `max` levels, or undefined. */
export function yamlTooDeep(text: string, max = MAX_YAML_DEPTH): TooDeep | undefined {
  return new DepthScan(max).run(text);
}

type Quote = '"' | "'" | undefined;

class DepthScan {
  /** Indentation of the open block collections. */
  private readonly indents: number[] = [];
  private flow = 0;
  private quote: Quote;
  /** Inside a block scalar introduced on a line with this indentation. */
  private scalarIndent: number | undefined;

  constructor(private readonly max: number) {}

  run(text: string): TooDeep | undefined {
    const lines = text.split(/\r?\n/);
    for (let n = 0; n < lines.length; n++) {
      const at = this.line(lines[n]!);
      if (at !== undefined) return { line: n + 1, column: at + 1 };
    }
    return undefined;
  }

  /** One line; the column where the limit was passed, if it was. */
  private line(line: string): number | undefined {
    const indent = line.length - line.trimStart().length;
    const blank = indent === line.length || line[indent] === '#';
    if (this.scalarIndent !== undefined) {
      if (blank || indent > this.scalarIndent) return undefined; // text of the block scalar
      this.scalarIndent = undefined;
    }
    if (blank && !this.quote) return undefined;
    const block = this.flow === 0 && !this.quote ? this.blockLevels(line, indent) : { col: indent };
    return block.over ?? this.chars(line, block.col, indent);
  }

  /** The block levels a line opens: its indentation, then each compact "- ". Where text starts, or where the limit was passed. */
  private blockLevels(line: string, indent: number): { col: number; over?: number } {
    while (this.indents.length && this.indents[this.indents.length - 1]! >= indent) this.indents.pop();
    this.indents.push(indent);
    let col = indent;
    if (this.depth() > this.max) return { col, over: col };
    for (; line[col] === '-' && (col + 1 === line.length || line[col + 1] === ' '); col += 2) {
      this.indents.push(col + 2);
      if (this.depth() > this.max) return { col, over: col };
    }
    return { col };
  }

  /** The flow brackets and quotes of a line from `from`; the column where the limit was passed, if it was. */
  private chars(line: string, from: number, indent: number): number | undefined {
    for (let i = from; i < line.length; i++) {
      if (this.quote) {
        i = this.inQuote(line, i);
        continue;
      }
      const c = line[i]!;
      const prev = i > 0 ? line[i - 1]! : ' ';
      if (c === '#' && /\s/.test(prev)) return undefined; // a comment
      if ((c === '"' || c === "'") && /[\s[{,:-]/.test(prev)) this.quote = c;
      else if (c === '[' || c === '{') {
        if (++this.flow + this.indents.length > this.max) return i;
      } else if (c === ']' || c === '}') this.flow = Math.max(0, this.flow - 1);
      else if (this.startsBlockScalar(line, i)) {
        this.scalarIndent = indent;
        return undefined;
      }
    }
    return undefined;
  }

  /** Inside quoted text at `i`: where the scan goes on (past an escape), closing the quote at its end. */
  private inQuote(line: string, i: number): number {
    const c = line[i];
    if (this.quote === '"' && c === '\\') return i + 1;
    if (this.quote === "'" && c === "'" && line[i + 1] === "'") return i + 1; // '' is a quote inside the text
    if (c === this.quote) this.quote = undefined;
    return i;
  }

  /** `|` or `>` (with its indicators) ending a line outside flow collections: the lines after it are text. */
  private startsBlockScalar(line: string, i: number): boolean {
    const c = line[i];
    return (c === '|' || c === '>') && this.flow === 0 && /^[|>][-+0-9]*\s*(#.*)?$/.test(line.slice(i));
  }

  private depth(): number {
    return this.indents.length + this.flow;
  }
}
