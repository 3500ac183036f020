/**
 * Native detection of a snapshot (SPEC §3): a JSON document that cannot hold the string
 * `supercode-session` is refused without being decoded or parsed whole; one that holds it, even
 * with escaped characters, is still read as a snapshot.
 */
import { readFileSync, readSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { tempDir } from '../../../tools/testing/files';
import { isLoadError, openReadOnly, safeClose } from '../common/openFile';
import type { DetectContext } from '../common/source';
import { detectNative, mayHoldSnapshotTag } from './detect';

const ROOT = join(import.meta.dirname, '../../..');
const TAG = 'supercode-session';
const context: DetectContext = { read: readSync, maxRecordBytes: 1 << 28, cacheBytes: 1 << 20 };
const tmp = tempDir('session-inspector-native-detect-');
afterAll(() => tmp.cleanup());

function detect(path: string): ReturnType<typeof detectNative> {
  const f = openReadOnly(path);
  if (isLoadError(f)) throw new Error(f.message);
  try {
    return detectNative(f, context);
  } finally {
    safeClose(f.fd);
  }
}

describe('snapshot detection of a multi-line JSON document', () => {
  it('another format`s document (a SWE-agent trajectory) is refused without JSON.parse of the whole text', () => {
    const path = join(ROOT, 'e2e/fixtures/real/swe-agent/sweagenttestrepo-1c2844.traj');
    const parse = vi.spyOn(JSON, 'parse');
    try {
      expect(detect(path)).toMatchObject({ error: { code: 'unrecognized_file', message: expect.stringContaining(`"format": "${TAG}"`) as unknown } });
      const longest = Math.max(0, ...parse.mock.calls.map(([text]) => String(text).length));
      expect(longest).toBeLessThan(readFileSync(path).length / 2);
    } finally {
      parse.mockRestore();
    }
  });

  it('a snapshot whose format value escapes a character is still a snapshot', () => {
    const path = tmp.path('escaped.session.json');
    const text = readFileSync(join(ROOT, 'samples/legacy.session.json'), 'utf8').replace(`"${TAG}"`, '"supercode\\u002Dsession"');
    expect(text).not.toContain(TAG);
    writeFileSync(path, text);
    expect(detect(path)).toMatchObject({ format: 'supercode-snapshot' });
  });
});

describe('mayHoldSnapshotTag', () => {
  it('is true for the tag with any of its characters written as \\u00XX (either hex case), false for text with neither', () => {
    fc.assert(
      fc.property(fc.array(fc.boolean(), { minLength: TAG.length, maxLength: TAG.length }), fc.boolean(), fc.string(), (escaped, upper, around) => {
        const tag = [...TAG].map((c, i) => (escaped[i] ? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}` : c)).join('');
        const written = upper ? tag.replace(/\\u00(..)/g, (_m, h: string) => `\\u00${h.toUpperCase()}`) : tag;
        expect(mayHoldSnapshotTag(Buffer.from(`{"format": "${written}", "x": ${JSON.stringify(around)}}`))).toBe(true);
      }),
    );
    fc.assert(
      fc.property(fc.string(), (s) => {
        fc.pre(!s.includes(TAG) && !s.includes('\\u00'));
        expect(mayHoldSnapshotTag(Buffer.from(s))).toBe(false);
      }),
    );
  });
});
