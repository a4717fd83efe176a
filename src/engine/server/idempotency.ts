/**
 * Exactly-once creates across an owner's death (ARCHITECTURE.md "One owner, many clients").
 * The client's idempotency key is stored in the memory's metadata by the same transaction that
 * writes the memory, so it is durable exactly when the memory is. A retry of an applied create
 * meets the content-hash gate (same text, live memory) and comes back as a duplicate of a memory
 * holding the same key: that is the original create, answered as such instead of a second write.
 */
import type { CallContext, MemoryEngine } from '../engine';
import { IDEMPOTENCY_KEY, type CreateMemoryInput, type CreateMemoryResult } from '../protocol';

export async function idempotentCreate(engine: MemoryEngine, input: CreateMemoryInput, _ctx?: CallContext): Promise<CreateMemoryResult> {
  const result = await engine.memories.create(input);
  const key = input.metadata?.[IDEMPOTENCY_KEY];
  if (typeof key === 'string' && result.status === 'duplicate' && result.memory.metadata?.[IDEMPOTENCY_KEY] === key) {
    return { ...result, status: 'created', action: 'stored' };
  }
  return result;
}
