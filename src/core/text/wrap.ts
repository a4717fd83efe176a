/**
 * Plain text for a read-only document that is read without word wrap (the diagnostics report):
 * long lines are broken at spaces, the continuation indented like its line plus two spaces.
 */
export function wrapLines(text: string, width: number): string {
  return text
    .split('\n')
    .flatMap((line) => wrapLine(line, width))
    .join('\n');
}

function wrapLine(line: string, width: number): string[] {
  if (line.length <= width) return [line];
  const indent = ' '.repeat((/^\s*/.exec(line)?.[0].length ?? 0) + 2);
  const out: string[] = [];
  let rest = line;
  while (rest.length > width) {
    const cut = rest.lastIndexOf(' ', width);
    if (cut <= indent.length) break; // one long word: left as it is
    out.push(rest.slice(0, cut).trimEnd());
    rest = indent + rest.slice(cut + 1).trimStart();
  }
  out.push(rest);
  return out;
}
