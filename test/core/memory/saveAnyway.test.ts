// "Save anyway" (docs/write-path.md "Validate"): a person may keep a text the low-value rule
// skips; placeholders and the rule itself stay as they are for everyone else.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tmpDir } from '../../helpers/tmp';
import { Store } from '../../../src/core/store/store';
import { MemoryService } from '../../../src/core/memory/memoryService';

test('allowLowValue keeps a filler text the low-value rule would skip; without it the text is skipped', async () => {
  const store = await Store.open({ dir: tmpDir('am-save-anyway-') });
  try {
    const svc = new MemoryService(store, { projectId: 'p' });
    const skipped = svc.create({ content: 'thanks so much, ok cool' });
    assert.equal(skipped.status, 'skipped');
    assert.equal(skipped.status === 'skipped' && skipped.reason, 'low_value');
    const saved = svc.create({ content: 'thanks so much, ok cool', allowLowValue: true });
    assert.equal(saved.status, 'created');
    const placeholder = svc.create({ content: '{{memory content}}', allowLowValue: true });
    assert.equal(placeholder.status, 'skipped', 'a placeholder is still not content');
  } finally {
    await store.close();
  }
});
