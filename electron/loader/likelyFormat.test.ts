/**
 * `LoadOptions.likelyFormat` (the library's sniffed format, asked first): it changes which adapter
 * is asked first, never what a file opens as — for every real file of the corpus and samples, any
 * hint gives the same format, views and findings as detection in its own order.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SESSION_FILE_FORMATS } from '../../shared/index';
import type { LoadedSession } from '../../shared/index';
import { sessionFilesUnder } from '../../tools/testing/files';
import { loadSession } from './session';

const ROOT = join(import.meta.dirname, '../..');

const FILES = [...sessionFilesUnder(join(ROOT, 'e2e/fixtures/real')), join(ROOT, 'samples/demo.sidecar.jsonl')];

function summary(s: LoadedSession): unknown {
  return { formats: s.files.map((f) => f.format), messages: s.minted.length, log: s.log.map((r) => r.id), findings: s.loadFindings.map((f) => f.code) };
}

describe('likelyFormat', () => {
  it.each(FILES.map((f) => [f.slice(ROOT.length + 1), f]))('%s opens the same whatever format is hinted', async (_name, file) => {
    const plain = await loadSession([file]);
    const expected = plain.ok ? summary(plain.session) : { error: plain.error.code };
    if (plain.ok) plain.session.close();
    for (const hint of SESSION_FILE_FORMATS) {
      const hinted = await loadSession([file], { likelyFormat: hint });
      expect(hinted.ok ? summary(hinted.session) : { error: hinted.error.code }, `hint ${hint}`).toEqual(expected);
      if (hinted.ok) hinted.session.close();
    }
  }, 120_000);
});
