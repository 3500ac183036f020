/**
 * The file guard's samples (fileGuard.ts): hashed only for a file the session reads back after its
 * pass, and then against the identity taken at the open, so a write between the open and the
 * samples is still a change.
 */
import { closeSync, openSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { sessionFilesUnder, tempDir } from '../../../tools/testing/files';
import { loadSession } from '../session';
import { FileGuard } from './fileGuard';

const ROOT = join(import.meta.dirname, '../../..');
const tmp = tempDir('session-inspector-file-guard-');
afterAll(() => tmp.cleanup());
afterEach(() => {
  vi.restoreAllMocks();
});


/** Counts the guards' sample hashes (a private method: what a guard reads and hashes of the file). */
function countSampling(): { calls: () => number } {
  const spy = vi.spyOn(FileGuard.prototype as unknown as { hashSamples: () => string | undefined }, 'hashSamples');
  return { calls: () => spy.mock.calls.length };
}

describe('a guard taken without its samples', () => {
  it('reports a write made between the open and the samples', () => {
    const path = tmp.path('written.jsonl');
    writeFileSync(path, '{"a":1}\n{"b":2}\n');
    const fd = openSync(path, 'r');
    try {
      const guard = new FileGuard(path, fd, undefined, false);
      expect(guard.change(true)).toBeUndefined();
      // The same bytes written again in place: the size stays, the times move.
      const w = openSync(path, 'r+');
      writeSync(w, '{"a":1}', 0);
      closeSync(w);
      guard.takeSamples();
      expect(guard.change()).toBeDefined();
    } finally {
      closeSync(fd);
    }
  });

  it('answers a light check, and refuses a full one until its samples are taken', () => {
    const path = tmp.path('quiet.jsonl');
    writeFileSync(path, '{"a":1}\n');
    const fd = openSync(path, 'r');
    try {
      const guard = new FileGuard(path, fd, undefined, false);
      expect(guard.change(true)).toBeUndefined();
      expect(() => guard.change()).toThrow(/samples that were never taken/);
      guard.takeSamples();
      expect(guard.change()).toBeUndefined();
    } finally {
      closeSync(fd);
    }
  });
});

describe('the loader', () => {
  const files = [...sessionFilesUnder(join(ROOT, 'e2e/fixtures/real')), join(ROOT, 'samples/demo.sidecar.jsonl'), join(ROOT, 'samples/session.sidecar.jsonl')];

  it.each(files.map((f) => [f.slice(ROOT.length + 1), f]))('%s: samples hashed only when the file is read after its pass', async (_name, file) => {
    const sampling = countSampling();
    const loaded = await loadSession([file]);
    expect(loaded.ok).toBe(true);
    if (!loaded.ok) return;
    try {
      // A sidecar is read back (a snapshot beside it is parsed whole).
      const readBack = loaded.session.files.filter((f) => f.format === 'supercode-sidecar').length;
      if (readBack > 0) {
        expect(sampling.calls(), 'a sidecar is read back: its samples are taken before its pass').toBe(readBack);
        // The check compares the samples: it neither finds the file changed nor lacks them.
        expect(() => loaded.session.check()).not.toThrow();
      } else expect(sampling.calls(), 'nothing reads the file again: no samples').toBe(0);
    } finally {
      loaded.session.close();
    }
  }, 60_000);
});
