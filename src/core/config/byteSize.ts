/**
 * Parsing and formatting of byte sizes: "512", "64KiB", "8MiB", "10MB", "1GiB".
 * KB/MB/GB are read as binary multiples (1024), as the pipeline spec does ("10 MB" = 10485760).
 */

const UNIT_BYTES: Readonly<Record<string, number>> = {
  b: 1,
  k: 1024,
  kb: 1024,
  kib: 1024,
  m: 1024 ** 2,
  mb: 1024 ** 2,
  mib: 1024 ** 2,
  g: 1024 ** 3,
  gb: 1024 ** 3,
  gib: 1024 ** 3,
};

const SIZE = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i;

/** Bytes in a size string, or undefined if the string is not a size. */
export function parseByteSize(text: string): number | undefined {
  const m = SIZE.exec(text);
  if (!m) return undefined;
  const unit = (m[2] ?? '').toLowerCase() || 'b';
  const factor = UNIT_BYTES[unit];
  if (factor === undefined) return undefined;
  return Number(m[1]) * factor;
}

/** The shortest exact binary spelling, e.g. 8388608 → "8MiB", 1000 → "1000B". */
export function formatByteSize(n: number): string {
  if (!Number.isInteger(n) || n <= 0) return `${n}B`;
  for (const [name, size] of [
    ['GiB', 1024 ** 3],
    ['MiB', 1024 ** 2],
    ['KiB', 1024],
  ] as const) {
    if (n % size === 0) return `${n / size}${name}`;
  }
  return `${n}B`;
}
