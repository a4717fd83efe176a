/** Counts with the right noun form: "1 memory", "2 memories", "0 chunks". English only, like every user-facing string. */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;
}
