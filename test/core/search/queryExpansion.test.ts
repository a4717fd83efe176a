// Query expansion through the pipeline's model (src/core/search/queryExpansion.ts) against a real
// HTTP fake of Ollama on 127.0.0.1, through the real provider: the wordings are cleaned, a slow,
// failing or babbling model leaves the query as written with the reason, a failure pauses
// expansion (an injected clock), and answers are cached per query.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeOllama } from '../../helpers/fakeOllama';
import { OllamaProvider } from '../../../src/core/llm/ollamaProvider';
import {
  cleanAlternates,
  expansionPrompt,
  llmQueryExpander,
  MAX_ALTERNATES,
  PAUSE_MS,
  QueryExpansion,
} from '../../../src/core/search/queryExpansion';

describe('query expansion (fake Ollama)', () => {
  let fake: FakeOllama;
  let provider: OllamaProvider;
  before(async () => {
    fake = await FakeOllama.start({ models: ['qwen3:4b'] });
    provider = new OllamaProvider({ host: fake.url, model: 'qwen3:4b' });
  });
  after(async () => {
    await fake.close();
  });

  test('the prompt carries the query and asks for JSON wordings, not an answer', () => {
    const p = expansionPrompt('Which tool fetches our JavaScript libraries?');
    assert.match(p, /Query: Which tool fetches our JavaScript libraries\?/);
    assert.match(p, /\{"queries"/);
    assert.match(p, /Do not answer/);
  });

  test('wordings are trimmed, cut, deduplicated, never the query itself, at most MAX_ALTERNATES', () => {
    const out = cleanAlternates('Which tool fetches libraries?', [
      '  package   manager  ',
      'which TOOL fetches libraries',
      'Package manager',
      42,
      '???',
      'pnpm install',
      'npm or yarn',
      'lockfile',
      'x'.repeat(500),
    ]);
    assert.deepEqual(out.slice(0, 3), ['package manager', 'pnpm install', 'npm or yarn']);
    assert.equal(out.length, MAX_ALTERNATES);
    assert.ok(cleanAlternates('q', ['y'.repeat(500)])[0]!.length <= 200);
  });

  test("the model's wordings are used; a fenced answer with a <think> block is read; the answer is cached", async () => {
    fake.reset();
    fake.enqueue('generate', {
      reply: '<think>libraries are packages</think>```json\n{"queries":["package manager pnpm","npm install"]}\n```',
    });
    const x = new QueryExpansion();
    const out = await x.expand('Which tool fetches our JavaScript libraries?', llmQueryExpander(provider), 5000);
    assert.equal(out.status, 'expanded');
    assert.deepEqual(out.alternates, ['package manager pnpm', 'npm install']);
    assert.equal(fake.requestsTo('generate')[0]!.body.model, 'qwen3:4b');
    const again = await x.expand('Which tool fetches our JavaScript libraries?', llmQueryExpander(provider), 5000);
    assert.deepEqual(again.alternates, out.alternates);
    assert.equal(again.ms, 0);
    assert.equal(fake.count('generate'), 1, 'the same query is not asked twice');
    fake.enqueue('generate', { reply: '{"queries":["pnpm"]}' });
    const other = await x.expand('Which tool fetches our JavaScript libraries?', llmQueryExpander(provider), 5000, 'ollama:other-model');
    assert.deepEqual(other.alternates, ['pnpm'], 'cached per model');
    assert.equal(fake.count('generate'), 2);
  });

  test('garbage, an HTTP error and a hanging model leave the query as written with the reason', async () => {
    fake.reset();
    fake.enqueue('generate', { reply: 'sure, here are some ideas' });
    const garbage = await new QueryExpansion().expand('deploy', llmQueryExpander(provider), 5000);
    assert.equal(garbage.status, 'failed');
    assert.deepEqual(garbage.alternates, []);
    assert.match(garbage.reason!, /not JSON/);

    fake.enqueue('generate', { reply: '{"queries":[]}' });
    const none = await new QueryExpansion().expand('deploy', llmQueryExpander(provider), 5000);
    assert.equal(none.status, 'unchanged');

    fake.enqueue('generate', { status: 500, body: { error: 'model crashed' } });
    const crashed = await new QueryExpansion().expand('deploy', llmQueryExpander(provider), 5000);
    assert.equal(crashed.status, 'failed');
    assert.match(crashed.reason!, /model crashed/);

    fake.enqueue('generate', { hang: true });
    const hung = await new QueryExpansion().expand('deploy', llmQueryExpander(provider), 200);
    assert.equal(hung.status, 'timeout');
    assert.match(hung.reason!, /within 200 ms/);
  });

  test('an expander that ignores its deadline does not hold the search', async () => {
    let late: (v: string[]) => void = () => undefined;
    const never = () => new Promise<string[]>((resolve) => (late = resolve));
    const out = await new QueryExpansion().expand('deploy', never, 50);
    assert.equal(out.status, 'timeout');
    late(['too late']);
  });

  test('after a failure expansion pauses for PAUSE_MS, then asks again', async () => {
    let now = 1_000_000;
    const x = new QueryExpansion(() => now);
    let calls = 0;
    const failing = async () => {
      calls++;
      throw new Error('connection refused');
    };
    assert.equal((await x.expand('one', failing, 1000)).status, 'failed');
    const paused = await x.expand('two', failing, 1000);
    assert.equal(paused.status, 'paused');
    assert.match(paused.reason!, /connection refused/);
    assert.equal(calls, 1, 'not asked while paused');
    now += PAUSE_MS + 1;
    const ok = async () => {
      calls++;
      return ['three again'];
    };
    assert.deepEqual((await x.expand('three', ok, 1000)).alternates, ['three again']);
    assert.equal(calls, 2);
  });
});
