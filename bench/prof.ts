import { Store } from '../src/core/store/store';
import { MemoryService } from '../src/core/memory/memoryService';
import { syntheticMemories } from './corpus';
import * as fs from 'node:fs';
void (async () => {
  fs.rmSync('/tmp/prof', { recursive: true, force: true });
  const store = await Store.open({ dir: '/tmp/prof' });
  const svc = new MemoryService(store, { projectId: 'p', enqueueExtraction: true });
  let t = performance.now();
  const items = [...syntheticMemories(2000, 1)].map((m) => ({ ...m, allowNearDuplicate: true }));
  console.log('gen', performance.now() - t); t = performance.now();
  svc.createMany(items.slice(0, 1000), { batchSize: 1000 });
  console.log('createMany 1000', performance.now() - t); t = performance.now();
  for (const m of items.slice(1000, 1100)) svc.create({ ...m, allowNearDuplicate: true });
  console.log('create x100 (no near-dup)', performance.now() - t); t = performance.now();
  for (const m of items.slice(1100, 1200)) svc.create({ ...m });
  console.log('create x100 (near-dup)', performance.now() - t);
})();
