/** Canonical entity names (docs/pipeline.md "Knowledge graph"): lowercase, whitespace-normalized. */
export function canonicalEntityName(name: string): string {
  return name.trim().replace(/\s+/g, ' ').toLowerCase();
}

/** Relation types compare case- and spacing-insensitively ("Depends on" = "depends_on"). */
export function canonicalRelationType(rel: string): string {
  return rel
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');
}
