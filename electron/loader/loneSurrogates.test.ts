/**
 * One decoding rule for search snippets and expand. The committed bad input with lone
 * surrogates in JSON escapes, read by the real loader: each is U+FFFD wherever text reaches the user.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { utf8Length } from '../../shared/index';
import { loadSession } from './session';

const FIXTURE = join(import.meta.dirname, '../../e2e/fixtures/bad/lone-surrogates.sidecar.jsonl');

describe('lone surrogates in a sidecar', () => {
  it('a search snippet is exactly what expand returns for its byte range: U+FFFD, never a raw surrogate', async () => {
    const loaded = await loadSession([FIXTURE]);
    if (!loaded.ok) throw new Error(loaded.error.message);
    const { session } = loaded;
    try {
      for (const query of ['reversed', 'low', '\uFFFD', '\ud800']) {
        const found = session.search(query);
        if (!found.ok) throw new Error(found.error.message);
        expect(found.value.total_matches).toBeGreaterThan(0);
        for (const m of found.value.matches) {
          expect(m.snippet).not.toMatch(/[\uD800-\uDFFF]/);
          const start = m.offset - m.snippet_match[0];
          const expanded = session.expand(m.reduction_id, [start, start + utf8Length(m.snippet)]);
          if (!expanded.ok) throw new Error(expanded.error.message);
          expect(m.snippet).toBe(expanded.value.content);
        }
      }
    } finally {
      session.close();
    }
  });
});
