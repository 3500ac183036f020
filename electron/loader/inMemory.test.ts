/**
 * LoadOptions.inMemoryUpToBytes (DetectContext): a file of at most that many bytes is read with its
 * strings in memory, as the library's index reads a small file (docs/library.md "Scale"); a larger
 * one keeps the loader's bounds. The answers are the same either way (docs/large-lines.md: the
 * large-line tests hold every answer of the two ways to each other).
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { countsOf } from '../library/index';
import { largeContents } from './testing/largeAnswers';
import { loadSession } from './session';
import type { LoadOptions } from './session';

const REAL = join(import.meta.dirname, '../../e2e/fixtures/real');
const FILES = [join(REAL, 'claude-code/cc-2.1.17-persisted-bash.jsonl'), join(REAL, 'codex/rollout-0.118-exec-parallel-calls-ENTIRE.jsonl')];

async function counts(path: string, options: LoadOptions): Promise<unknown> {
  const loaded = await loadSession([path], options);
  if (!loaded.ok) throw new Error(loaded.error.message);
  try {
    return { counts: countsOf(loaded.session), findings: loaded.session.loadFindings };
  } finally {
    loaded.session.close();
  }
}

describe('a small file read with its strings in memory', () => {
  for (const path of FILES) {
    it(`${path.split('/').slice(-2).join('/')}: no content left in the file up to the bound, the loader's bounds past it, the same counts`, async () => {
      const size = statSync(path).size;
      const kept = await largeContents(path, {});
      // The file holds texts the loader leaves in the file by default.
      expect(kept).toBeGreaterThan(0);
      expect(await largeContents(path, { inMemoryUpToBytes: size })).toBe(0);
      expect(await largeContents(path, { inMemoryUpToBytes: size - 1 })).toBe(kept);
      expect(await counts(path, { inMemoryUpToBytes: size })).toEqual(await counts(path, {}));
    });
  }
});
