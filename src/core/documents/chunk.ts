/**
 * Overlapping windows over a document (docs/pipeline.md "Documents"): `size` characters each,
 * each sharing `overlap` characters with the previous one. A text no longer than one window
 * is one chunk. A window end is moved back to the last white space in its final fifth, so
 * words are not cut where that is possible.
 */
export function chunkText(text: string, size: number, overlap: number): string[] {
  if (!Number.isInteger(size) || size < 1) throw new RangeError(`chunk size must be a positive whole number, got ${size}`);
  if (!Number.isInteger(overlap) || overlap < 0 || overlap >= size) {
    throw new RangeError(`chunk overlap must be a whole number from 0 to ${size - 1}, got ${overlap}`);
  }
  if (text.length <= size) return text.trim() ? [text] : [];
  const chunks: string[] = [];
  let start = 0;
  while (start < text.length) {
    let end = Math.min(start + size, text.length);
    if (end < text.length) {
      const ws = text.lastIndexOf(' ', end);
      if (ws > start + Math.floor(size * 0.8) && ws - start > overlap) end = ws;
    }
    const piece = text.slice(start, end);
    if (piece.trim()) chunks.push(piece);
    if (end >= text.length) break;
    start = end - overlap;
  }
  return chunks;
}
