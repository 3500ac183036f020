/**
 * A persisted output's original in its `tool-results/` file is read back from the file when asked,
 * not held for the session's life (electron/loader/content/companionFile.ts,
 * docs/streaming-import.md): the same answers as a string held in memory, and a file changed or
 * replaced since the open is never served as its verified original.
 */
import { appendFileSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isMemorySource } from '../../../shared/format/bytes';
import type { LoadedSession } from '../../../shared/resolver/session';
import { tempDir } from '../../../tools/testing/files';
import type { LargeText } from '../content/largeStrings';
import { TranscriptMemo } from '../content/largeStrings';
import { loadSession } from '../session';
import { importClaudeFile } from './index';
import { PERSISTED_FULL, SESSION_ID, writeSynthetic } from './testing/build';

/** The synthetic scenario's tool-results file that holds PERSISTED_FULL (its stub names it). */
const PRESENT = 'bpresent1.txt';

const dirs: { cleanup(): void }[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) d.cleanup();
});

async function openSynthetic(before?: (resultFile: string, dir: string) => void): Promise<{ s: LoadedSession; resultFile: string; dir: string }> {
  const tmp = tempDir('session-inspector-tool-results-');
  dirs.push(tmp);
  const path = writeSynthetic(tmp.dir);
  const resultFile = join(tmp.dir, SESSION_ID, 'tool-results', PRESENT);
  before?.(resultFile, tmp.dir);
  const loaded = await loadSession([path]);
  if (!loaded.ok) throw new Error(loaded.error.message);
  return { s: loaded.session, resultFile, dir: tmp.dir };
}

const persisted = (s: LoadedSession) => s.log.find((r) => r.kind === 'tool_output_truncated' && r.ptr.hash !== null)!;

describe('a tool-results original read back from its file', () => {
  it('is a source read from the file, not a string held, and expands to the file’s bytes', async () => {
    const { s } = await openSynthetic();
    const r = persisted(s);
    const m = s.minted.at(r.ptr.index)!;
    expect(m.large).toBeDefined();
    expect(isMemorySource(m.large!)).toBe(false);
    expect(r.ptr.bytes).toBe(Buffer.byteLength(PERSISTED_FULL));
    // Any range written into an array at an offset (as a hash reads it, a window at a time).
    const full = Buffer.from(PERSISTED_FULL);
    const target = Buffer.alloc(full.length, 0xee);
    m.large!.readInto?.(100, full.length - 50, target, 30);
    expect(target.subarray(30, 30 + full.length - 150).equals(full.subarray(100, full.length - 50))).toBe(true);
    expect(target.subarray(0, 30).every((x) => x === 0xee) && target.subarray(full.length - 120).every((x) => x === 0xee)).toBe(true);
    const e = s.expand(r.id);
    expect(e.ok && e.value.content).toBe(PERSISTED_FULL);
    // (The scenario's own warnings aside: an unknown record type, a cut last line.)
    expect(s.check().findings.filter((f) => f.severity === 'error')).toEqual([]);
    s.close();
  });

  it('rewritten since the open with as many bytes: a hash mismatch, never the new bytes as verified', async () => {
    const { s, resultFile } = await openSynthetic();
    writeFileSync(resultFile, PERSISTED_FULL.replace('SECRET', 'SWAPPD'));
    const e = s.expand(persisted(s).id);
    expect(!e.ok && e.error.code).toBe('hash_mismatch');
    s.close();
  });

  it('grown or removed since the open: the original can no longer be read', async () => {
    const grown = await openSynthetic();
    appendFileSync(grown.resultFile, 'more\n');
    const g = grown.s.expand(persisted(grown.s).id);
    expect(!g.ok && g.error.code).toBe('address_out_of_range');
    expect(!g.ok && g.error.message).toMatch(/can no longer be read: .*bytes now/);
    grown.s.close();

    const removed = await openSynthetic();
    rmSync(removed.resultFile);
    const r = removed.s.expand(persisted(removed.s).id);
    expect(!r.ok && r.error.code).toBe('address_out_of_range');
    removed.s.close();
  });

  it('replaced by a link to a file outside its folder: refused when read, the link never followed', async () => {
    const { s, resultFile } = await openSynthetic();
    const outside = tempDir('session-inspector-outside-');
    dirs.push(outside);
    // The same bytes outside: were the link followed, the hash would even match.
    writeFileSync(outside.path('elsewhere.txt'), PERSISTED_FULL);
    rmSync(resultFile);
    symlinkSync(outside.path('elsewhere.txt'), resultFile);
    const e = s.expand(persisted(s).id);
    expect(!e.ok && e.error.code).toBe('address_out_of_range');
    expect(!e.ok && e.error.message).toMatch(/symbolic link/);
    s.close();
  });

  it('built again (a followed session), is the same text while the file is as long, and read again once it grew', async () => {
    const { s, resultFile, dir } = await openSynthetic();
    const index = persisted(s).ptr.index;
    s.close();
    const path = join(dir, `${SESSION_ID}.jsonl`);
    const text = readFileSync(path, 'utf8');
    const memo = new TranscriptMemo();
    const readBack = new Map<string, LargeText>();
    const build = () => importClaudeFile(path, text, undefined, undefined, memo, readBack)!.messages[index]!;
    const first = build();
    expect(first.large).toBeDefined();
    // The same source, so the transcripts measured over it are taken up (TranscriptMemo compares by identity).
    expect(build().large).toBe(first.large);
    appendFileSync(resultFile, 'one more line\n');
    const grown = build();
    expect(grown.large).not.toBe(first.large);
    expect(grown.large!.length).toBe(first.large!.length + 'one more line\n'.length);
  });

  it('not valid UTF-8: held as its decoded string (U+FFFD for the bad byte), as before', async () => {
    const bad = Buffer.concat([Buffer.from(PERSISTED_FULL), Buffer.from([0xff])]);
    const { s } = await openSynthetic((resultFile) => writeFileSync(resultFile, bad));
    const r = persisted(s);
    expect(s.minted.at(r.ptr.index)!.large).toBeUndefined();
    const decoded = bad.toString('utf8');
    expect(r.ptr.bytes).toBe(Buffer.byteLength(decoded));
    const e = s.expand(r.id);
    expect(e.ok && e.value.content).toBe(decoded);
    s.close();
  });
});
