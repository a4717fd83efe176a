/**
 * The layer order of src/core, lowest first (ARCHITECTURE.md "Layers"). A file imports only its
 * own folder and folders of LOWER layers; folders that share a layer do not import each other,
 * and the files of src/core form no import cycle. test/core/layers.test.ts scans the sources
 * and enforces both. A new folder must be placed here before it is used.
 */
export const CORE_LAYERS: readonly (readonly string[])[] = [
  ['util'], // errors and the error catalogue: imported by everyone, imports nothing
  ['text', 'secrets'], // normalization, tokenizing, quality and contradiction heuristics; the secret guard's rules
  ['crypto'], // encryption at rest: AES-256-GCM formats, the store key header, user keys (keychain, key file, recovery key)
  ['store'], // SQLite (sql.js), op log, snapshots, lock; knows no ranking (search registers bm25)
  ['config', 'project'], // agent.yaml + settings; project identity
  ['embed'], // embedders and their HTTP client
  ['llm'], // LLM providers (reuse embed's Ollama HTTP client) and reading their JSON
  ['vector'], // HNSW / exact indexes and their files
  ['vectorstore'], // vectors of one store: embeddings table + index, the active space
  ['jobs', 'changes'], // the durable job queue and its worker; the change feed and the webhook outbox
  ['memory'], // the memory API (MemoryService), rows, history, visibility, embed-on-write
  ['lifecycle', 'consolidation', 'graph', 'search'], // read-side lifetimes, merge suggestions, entity graph, recall
  ['documents', 'sessions', 'imports'], // document ingestion (chunks become memories); agent sessions, their chunks, summary, scratchpad, notes; other tools' memory files read and split
  ['retention', 'webhooks'], // retention sweep; webhook deliveries (signing, sending, retries)
  ['maintenance'], // maintenance worker (runs retention, diagnostics)
  ['pipeline'], // extraction → decisions → writes; composes everything below
  ['schedules'], // schedules and reminders: cadences, their store, runs that recall and digest
  ['team'], // team memory: a project's memory replicated through a PostgreSQL server (push, pull, conflicts)
];
