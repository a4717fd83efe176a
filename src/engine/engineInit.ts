/**
 * The engine thread's start-up options (protocol.ts re-exports them).
 */

/** workerData of the engine thread: everything it needs to open its stores. */
export interface EngineInit {
  /** Folder of the open workspace (project id source, agent.yaml location); absent = no folder open. */
  workspaceRoot?: string;
  /**
   * The shared store folder (src/engine/storeLocation.ts): `<home>/<project folder>` and
   * `<home>/global`. When set, storageDir / globalStorageDir only name the old per-window
   * stores, merged into the shared ones on first open (src/engine/worker/storeMigration.ts).
   */
  home?: string;
  /** Without `home`: where per-project stores live (`<storageDir>/projects/<folder>`); with it: the old location to migrate. */
  storageDir?: string;
  /** Without `home`: where the global store lives (`<globalStorageDir>/global`); with it: the old location to migrate. */
  globalStorageDir?: string;
  /**
   * The project store must be opened writable: when another process holds its lock, start-up
   * fails with `store_locked` (the caller then connects to that owner) instead of opening it read-only.
   */
  exclusive?: boolean;
  /** Serve the engine on the store's local socket (src/engine/worker/owner) once open. */
  serve?: boolean;
  /** agent.yaml keys set in the host's settings (dotted paths); they win over agent.yaml. */
  settings?: Record<string, unknown>;
  /** Explicit sql-wasm.wasm / migrations locations (bundled builds find them next to dist/engine.js). */
  sqlWasmPath?: string;
  migrationsDir?: string;
  /** Test hooks (crash on request): refused unless set. */
  allowDebug?: boolean;
  /** Who owns the store, shown to a second process that finds it locked. */
  purpose?: string;
  /**
   * false: this engine owns the store for one short command (the CLI) and runs no schedule that
   * is due, so it never cuts a run short when the command ends (the next long-lived owner runs
   * them); "run now" still runs one.
   */
  runSchedules?: boolean;
  /**
   * false: an owner for one short answer (a Claude Code hook): none of the store's background work
   * starts — the embedding backfill (which would load the embedding model), the pipeline, webhook
   * delivery, team sync, session summaries, schedules. The next long-lived owner does that work.
   */
  backgroundWork?: boolean;
  /**
   * Where the built-in embedding model runs: a worker thread of its own (default; the editor,
   * where a long document batch must not hold the engine), or 'engine': this engine's thread (the
   * CLI and `agent-memory mcp`: one thread and V8 heap fewer, no thread start before a first answer).
   */
  modelThread?: 'own' | 'engine';
  /**
   * Identifies the client that runs this engine (EngineClient sets one). The client runs one
   * worker at a time, so a store lock held by this process under the same owner was left by
   * a crashed predecessor thread and is reclaimed (a pid check cannot tell: the pid is ours).
   */
  ownerId?: string;
  /**
   * Untrusted workspace (VS Code workspace trust): the stores open read-only when they exist
   * (else writable but every write is refused), no pipeline, dedup scan or upkeep runs.
   */
  restricted?: boolean;
  /** Start with the pipeline's job workers paused (pipeline.pause; the host remembers it per workspace). */
  pipelinePaused?: boolean;
}
