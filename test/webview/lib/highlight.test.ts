import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { highlightSegments } from '../../../webview/lib/highlight';

const marked = (text: string, terms: string[]) =>
  highlightSegments(text, terms)
    .filter((s) => s.mark)
    .map((s) => s.text);

describe('search highlights', () => {
  test('marks matched words at word starts, case-insensitively, with their longer forms', () => {
    assert.deepEqual(marked('We use pnpm; PNPM workspaces and JWT tokens.', ['pnpm', 'token']), ['pnpm', 'PNPM', 'tokens']);
    assert.deepEqual(marked('The deployment was deployed', ['deploying']), ['deployment', 'deployed']);
    assert.deepEqual(marked('unpnpm is not a match', ['pnpm']), []);
  });

  test('phrases across whitespace; the segments give back the text unchanged', () => {
    const text = 'The package\nmanager is pnpm.';
    const segs = highlightSegments(text, ['package manager']);
    assert.equal(segs.map((s) => s.text).join(''), text);
    assert.deepEqual(
      segs.filter((s) => s.mark).map((s) => s.text),
      ['package\nmanager'],
    );
  });

  test('markup in memory text stays text, regex characters in terms are literal', () => {
    const text = '<img src=x onerror=alert(1)> c++ (a.b)';
    assert.equal(
      highlightSegments(text, ['img', 'c++', 'a.b'])
        .map((s) => s.text)
        .join(''),
      text,
    );
    assert.deepEqual(marked(text, ['img', 'a.b']), ['img', 'a.b']);
    assert.deepEqual(highlightSegments('abc', []), [{ text: 'abc', mark: false }]);
  });
});
