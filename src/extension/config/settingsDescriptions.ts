/**
 * Descriptions written for the Settings editor, for the settings people change every day. The
 * other (advanced) settings use the configuration table's own description
 * (src/core/config/schema.ts). Markdown; `#agentMemory.x#` links to another setting.
 */
export const SETTING_DESCRIPTIONS: Readonly<Record<string, string>> = {
  'memory.pipelineV2.enabled':
    'Let a local Ollama model read what you and your agents save and turn it into short facts. Off: memories are stored exactly as given. ' +
    'The command **Agent Memory: Switch Pipeline Mode…** sets this and the next settings together.',
  'memory.pipelineV2.shadowMode':
    'Dry run: the pipeline extracts facts and records what it would have written in the history, but changes no memory.',
  'memory.pipelineV2.allowUpdateDelete':
    'Let the pipeline update and delete existing memories, not only add new ones. Every change keeps the old version and can be undone.',
  'memory.pipelineV2.ollamaUrl': 'Address of the Ollama server the pipeline uses, with its port.',
  'memory.pipelineV2.extractionModel': 'Ollama model that extracts facts and decides what to write, e.g. `qwen3:4b`.',
  'memory.pipelineV2.graphEnabled': 'Record the people, projects and tools that memories mention, for the memory graph and for search.',
  'memory.pipelineV2.mutationsFrozen': 'Emergency brake: the pipeline writes nothing, whatever the other settings say.',

  'memory.default_ttl':
    'How long a new short-term memory lives before it expires, e.g. `1d` or `7d`. Important or often used memories become permanent.',
  'memory.ttl_extend_factor':
    'Each time a short-term memory is used, its lifetime grows by this fraction of the original (0.5: half a lifetime; 0: never).',
  'memory.promote_access_count': 'A short-term memory used this many times becomes permanent.',
  'memory.promote_importance': 'Memories saved with at least this importance (0 to 1) are permanent from the start.',
  'memory.pipelineV2.tombstoneRetentionMs': 'How long deleted memories can still be restored before they are removed for good.',
  'memory.pipelineV2.historyRetentionMs': 'How long the history of each memory (earlier versions, who changed what) is kept.',

  'search.default_limit': 'How many memories a search returns when the caller does not say.',
  'search.max_limit': 'The most memories one search may return.',
  'search.min_score': 'Leave out results scoring below this (0 to 1; 0 keeps every match).',
  'search.vector_weight': 'How much meaning counts in search (0 to 1), against exact words (the next setting).',
  'search.keyword_weight': 'How much exact words count in search (0 to 1), against meaning.',
  'memory.pipelineV2.graphBoostWeight': 'Extra score for memories linked to the query through the knowledge graph.',
  'memory.pipelineV2.rerankerEnabled': 'Reorder the best search results with a reranking model (slower, sometimes better).',
  'memory.pipelineV2.rerankerModel': 'Model the reranker uses (empty: its default).',
  'memory.pipelineV2.queryExpansionEnabled':
    "Also search with other wordings of your query, written by the pipeline's Ollama model (slower; finds memories that use other words).",

  'memory.similarity_threshold': 'Two memories at least this similar (0 to 1) are offered to you as a merge suggestion.',
  'memory.auto_merge_threshold':
    'What an agent saves or captures on its own is merged without asking into a memory at least this similar. What you save yourself is kept, with a merge suggestion. Must not be below the suggestion threshold.',
  'memory.merge_strategy':
    'How two merged memories are combined: `smart_merge` joins their sentences, `append` adds one after the other, `latest_wins` keeps the newer.',
  'memory.dedup_scan_interval': 'How often duplicate memories are looked for in the background.',
  'memory.secret_policy':
    'What happens to a credential (API key, token, private key, password) in a memory being saved: `redact` replaces it with [redacted: …] and tells you, `refuse` does not save the memory, `allow` saves it as written.',

  'embedding.provider':
    '`auto`: Ollama when it is running, else the built-in offline model. `builtin`: always the offline model. `ollama`: always Ollama. `hash`: no model (tests).',
  'embedding.model': 'Ollama model that turns memories into vectors for search by meaning.',
  'embedding.ollama_url': 'Address of the Ollama server used for embeddings, with its port.',

  'memory.normalize_project_id':
    'Recognise the same project in every clone and worktree (by its remote URL), so they share one memory store.',
};
