// Every catalogue code has a notification sentence, and the engine's message stays as the detail.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ERROR_CODES } from '../../src/core/util/errorCatalogue';
import { UserFacingError } from '../../src/core/util/errors';
import { EngineError } from '../../src/engine/errors';
import { ERROR_SENTENCES, errorLine, errorNotification, errorText, memoryGoneError } from '../../src/present/errorText';

test('errorText has a sentence for every code of the catalogue, and no other', () => {
  assert.deepEqual(Object.keys(ERROR_SENTENCES).sort(), [...ERROR_CODES].sort());
  for (const code of ERROR_CODES) {
    const s = ERROR_SENTENCES[code];
    assert.match(s, /^[A-Z].*\.$/, `${code}: a sentence (capital first, full stop last)`);
    assert.doesNotMatch(s, /[a-z]+_[a-z]+/, `${code}: no code names or identifiers in what people read`);
  }
  assert.equal(new Set(Object.values(ERROR_SENTENCES)).size, ERROR_CODES.length, 'each code says something of its own');
});

test('a notification is the code sentence with the engine message as detail', () => {
  const e = new EngineError('version_conflict', 'Memory m1 changed meanwhile (expected version 1, found 2). Reload and try again.');
  assert.deepEqual(errorText(e), { code: 'version_conflict', sentence: ERROR_SENTENCES.version_conflict, detail: e.message });
  assert.equal(errorNotification('update', e), `Agent Memory: update: ${ERROR_SENTENCES.version_conflict} (${e.message})`);
  // A core error that never crossed the port is read the same way.
  assert.equal(errorText(UserFacingError.of('disk_full', { dir: '/s' })).sentence, ERROR_SENTENCES.disk_full);
  // No duplicated text when the engine's message is the sentence itself.
  assert.equal(errorLine(new EngineError('cancelled', ERROR_SENTENCES.cancelled)), ERROR_SENTENCES.cancelled);
  // An error without a catalogue code keeps its own message.
  assert.deepEqual(errorText(new Error('boom')), { code: undefined, sentence: 'boom' });
  assert.equal(errorNotification('', 'plain'), 'Agent Memory: plain');
});

test('a payload with a code outside the catalogue (another engine version) becomes internal, its text kept', () => {
  const e = EngineError.fromPayload({ code: 'made_up' as never, message: 'Something new.', detail: 'stack' });
  assert.equal(e.code, 'internal');
  assert.equal(e.message, 'Something new.');
  assert.equal(e.detail, 'code "made_up"\nstack');
  assert.equal(EngineError.fromPayload({ code: 'not_found', message: 'No memory with id x.' }).code, 'not_found');
});

test('a memory picked in VS Code that is gone meanwhile: the sentence alone, no id', () => {
  assert.equal(errorNotification('open memory', memoryGoneError()), `Agent Memory: open memory: ${ERROR_SENTENCES.not_found}`);
  assert.equal(memoryGoneError().code, 'not_found');
});
