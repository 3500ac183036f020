/**
 * Bytes changed on disk are never served as verified (SPEC §5.1: a wrong-bytes
 * substitution must be impossible). A content's hash is computed once, while its bytes are read
 * back from the file on every request; the session now checks, before and after every read, that
 * the file is still the one it opened (FileGuard), and answers `file_changed` otherwise.
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { utf8Encode } from '../../shared/index';
import { fileOffsetOf, rewriteInPlace, writeLargeOutputSidecar } from '../../tools/testing/changingFile';
import { makeHeader, messageRecord, reductionRecord, sessionOpener, tempDir, writeSidecar } from '../../tools/testing/files';
import { makeReduction, tool, user } from '../../shared/testing/builders';
import type { ReadSync } from './common/lines';
import { readSync } from 'node:fs';
import { FileChangedError } from './session';

const tmp = tempDir('session-inspector-file-changed-');
afterAll(() => tmp.cleanup());
const { load, closeAll } = sessionOpener();
afterEach(closeAll);

const SLICE = 64 * 1024;

describe('a large content read by range, changed between two slices', () => {
  it('the second slice answers file_changed, never the rewritten bytes', async () => {
    const { path, view } = writeLargeOutputSidecar(tmp.path('large.sidecar.jsonl'));
    const content = utf8Encode(view[1]?.content ?? '');
    const s = await load([path]);
    expect(s.minted.at(1)?.large, 'the content is read back by range').toBeDefined();
    const first = s.expand('r1', [0, SLICE]);
    expect(first.ok && first.value.content).toBe(Buffer.from(content.subarray(0, SLICE)).toString('utf8'));

    // Rewrite 64 KiB in the middle of the output, where the second slice will read.
    const at = 4 * 1024 * 1024;
    const body = fileOffsetOf(path, view[1]?.content ?? '', at);
    const altered = rewriteInPlace(path, body, SLICE);
    const second = s.expand('r1', [at, at + SLICE]);
    expect(second).toMatchObject({ ok: false, error: { code: 'file_changed' } });
    if (!second.ok) expect(second.error.message).toContain(path);
    // Nothing is served afterwards either, the old slice included.
    for (const range of [[0, SLICE], [at, at + SLICE]] as const) {
      const again = s.expand('r1', range);
      expect(again.ok).toBe(false);
      expect(again.ok ? again.value.content : '').not.toContain(altered.subarray(0, 64).toString('utf8'));
    }
    expect(s.search('PASS')).toMatchObject({ ok: false, error: { code: 'file_changed' } });
    expect(() => s.check()).toThrow(FileChangedError);
  });

  it('a rewrite while a slice is being read (between the checks around it) is caught after the read', async () => {
    const { path, view } = writeLargeOutputSidecar(tmp.path('during.sidecar.jsonl'));
    const at = 6 * 1024 * 1024;
    const body = fileOffsetOf(path, view[1]?.content ?? '', at);
    let armed = false;
    // The first read of the slice rewrites the bytes it is about to read, then reads them.
    const rewriting: ReadSync = (fd, buffer, offset, length, position) => {
      if (armed) {
        armed = false;
        rewriteInPlace(path, body, SLICE);
      }
      return readSync(fd, buffer, offset, length, position);
    };
    const s = await load([path], { readSync: rewriting });
    expect(s.expand('r1', [0, SLICE]).ok).toBe(true);
    armed = true;
    const slice = s.expand('r1', [at, at + SLICE]);
    expect(armed, 'the slice was read').toBe(false);
    expect(slice).toMatchObject({ ok: false, error: { code: 'file_changed' } });
  });
});

describe('a small session rewritten in place, or replaced', () => {
  const view = [user('build it'), tool('error TS2345: Argument of type string is not assignable\n'.repeat(40), 'call_1')];
  const log = [makeReduction(view, { id: 'r1', kind: 'tool_output_elided', index: 1 })];

  it('same length, mtime set back: expand answers file_changed, check throws FileChangedError', async () => {
    const path = writeSidecar(tmp.path('small.sidecar.jsonl'), [makeHeader(), ...view.map((m, i) => messageRecord(i, m)), ...log.map(reductionRecord)]);
    const s = await load([path], { cacheBytes: 0 });
    expect(s.expand('r1').ok).toBe(true);
    const offset = readFileSync(path).indexOf('Argument of type');
    rewriteInPlace(path, offset, 16);
    expect(s.expand('r1')).toMatchObject({ ok: false, error: { code: 'file_changed' } });
    expect(() => s.check()).toThrow(/small\.sidecar\.jsonl changed on disk since it was opened/);
    expect(s.fileChange()).toMatchObject({ path });
  });

  it('replaced by another file of the same bytes, renamed over it: file_changed', async () => {
    const path = writeSidecar(tmp.path('renamed.sidecar.jsonl'), [makeHeader(), ...view.map((m, i) => messageRecord(i, m)), ...log.map(reductionRecord)]);
    const s = await load([path]);
    expect(s.expand('r1').ok).toBe(true);
    writeFileSync(`${path}.new`, readFileSync(path));
    renameSync(`${path}.new`, path);
    expect(s.expand('r1')).toMatchObject({ ok: false, error: { code: 'file_changed', message: expect.stringMatching(/replaced by another file/) as unknown } });
  });

  it('an unchanged file is never reported, however often it is read', async () => {
    const path = writeSidecar(tmp.path('steady.sidecar.jsonl'), [makeHeader(), ...view.map((m, i) => messageRecord(i, m)), ...log.map(reductionRecord)]);
    const s = await load([path], { cacheBytes: 0 });
    for (let k = 0; k < 20; k++) expect(s.expand('r1', [k, k + 10]).ok).toBe(true);
    expect(s.check().findings).toEqual([]);
    expect(s.fileChange()).toBeUndefined();
  });
});
