/** Counts with the right noun form: "1 memory", "2 memories", "0 chunks". English only, like every user-facing string. */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${formatCount(n)} ${n === 1 ? one : many}`;
}

/**
 * `n` as `toLocaleString('en-US')` writes it ("12,500"), without loading ICU's number formatting
 * for whole numbers: its first use costs about 9 ms, paid by every process that printed a count
 * (a Claude Code hook on each prompt, an MCP server's start). Other numbers go to ICU.
 */
export function formatCount(n: number): string {
  if (!Number.isSafeInteger(n)) return n.toLocaleString('en-US');
  const digits = String(Math.abs(n));
  const grouped = digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return n < 0 || Object.is(n, -0) ? `-${grouped}` : grouped;
}
