/**
 * The V8 heap limits of the worker threads we start: the engine's and the built-in model's.
 *
 * Left alone, V8 grows a thread's young generation (new space) after a burst of allocation —
 * loading a 2 MB bundle, opening a store — up to 16 MB semi-spaces, and gives the memory back only
 * in idle time, which a Node thread never reports. Measured on the agent path (a fresh
 * `agent-memory mcp`, 1,000 memories): the engine's new space held 16–30 MB and the model's
 * 12–16 MB, mostly empty, while each thread's live young objects were 1–4 MB.
 * - The model's thread allocates little JavaScript (its weights and work buffers are WebAssembly
 *   memory): V8's smallest young generation (3 MB, 1 MB semi-spaces) costs it nothing measurable.
 * - The engine allocates a lot while it starts: at 3 MB its start-up collected so often that the
 *   first answer came later; 8 MB kept the first answer and most of the saving.
 * Figures: bench/RESULTS-recall.md "Stop 35".
 */
import type { ResourceLimits } from 'node:worker_threads';

export const ENGINE_WORKER_LIMITS: ResourceLimits = Object.freeze({ maxYoungGenerationSizeMb: 8 });
export const MODEL_WORKER_LIMITS: ResourceLimits = Object.freeze({ maxYoungGenerationSizeMb: 3 });
