import { Store } from '../../src/core/store/store';
import { MemoryService, type MemoryServiceOptions } from '../../src/core/memory/memoryService';
import { tmpDir } from './tmp';

/** A real store on disk and a memory service over it, with a controllable clock. */
export async function openMemory(opts: Partial<MemoryServiceOptions> & { dir?: string } = {}) {
  const dir = opts.dir ?? tmpDir('am-mem-');
  const store = await Store.open({ dir });
  let now = new Date('2026-03-01T12:00:00.000Z');
  const clock = {
    now: () => new Date(now),
    advance(ms: number) {
      now = new Date(now.getTime() + ms);
    },
  };
  const svc = new MemoryService(store, { projectId: 'github.com/acme/app', now: clock.now, ...opts });
  return { dir, store, svc, clock };
}
