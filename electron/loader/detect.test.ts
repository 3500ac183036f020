import { closeSync, readSync, writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../tools/testing/files';
import { detectSource, FORMAT_ADAPTERS } from './detect';
import type { DetectContext, FormatAdapter, OpenFile, SessionSource } from './common/source';

const tmp = tempDir();
afterAll(() => tmp.cleanup());
const context: DetectContext = { read: readSync, maxRecordBytes: 1 << 20, cacheBytes: 1 << 20 };

/** An adapter that claims files whose text starts with `prefix`, recording what it was shown. */
function fakeAdapter(name: string, prefix: string, seen: string[], error?: 'unreadable_file'): FormatAdapter {
  return {
    name,
    formats: ['supercode-sidecar'],
    detect(file: OpenFile) {
      seen.push(name);
      const head = Buffer.alloc(prefix.length);
      readSync(file.fd, head, 0, prefix.length, 0);
      if (head.toString() === prefix) {
        const source: Partial<SessionSource> = { format: 'supercode-sidecar', file, close: () => closeSync(file.fd) };
        return { ok: true, source: source as SessionSource };
      }
      return { ok: false, error: { code: error ?? 'unrecognized_file', message: `${file.path} is not ${name}` } };
    },
    assemble: (opened) => ({ sources: [...opened] }),
  };
}

describe('detectSource', () => {
  const path = tmp.path('x.jsonl');
  writeFileSync(path, 'BBB data');

  it('asks the adapters in order; the first that claims the file by content wins', () => {
    const seen: string[] = [];
    const found = detectSource(path, context, [fakeAdapter('a', 'AAA', seen), fakeAdapter('b', 'BBB', seen), fakeAdapter('c', 'BBB', seen)]);
    expect('source' in found && found.source.file.path).toBe(path);
    expect(seen).toEqual(['a', 'b']);
    if ('source' in found) found.source.close();
  });

  it('a file no format claims names every format read, in its name and in users` words', () => {
    const path = tmp.path('notes.txt');
    writeFileSync(path, 'shopping list\n');
    const found = detectSource(path, context);
    const message = 'error' in found ? found.error.message : '';
    expect('error' in found && found.error.code).toBe('unrecognized_file');
    for (const words of ['supercode', 'claude-code', 'Claude Code', 'codex', 'Codex', 'swe-agent', 'SWE-agent', 'mini-swe-agent', 'inspect', 'Inspect AI', 'openhands', 'OpenHands V0', 'V1']) expect(message).toContain(words);
    expect(FORMAT_ADAPTERS.every((a) => a.reads !== undefined && message.includes(`${a.name} (${a.reads})`))).toBe(true);
  });

  it('a file no adapter claims is the first adapter’s unrecognized_file, listing the supported formats', () => {
    const found = detectSource(path, context, [fakeAdapter('a', 'AAA', []), fakeAdapter('c', 'CCC', [])]);
    expect(found).toEqual({ error: { code: 'unrecognized_file', message: `${path} is not a (the supported formats are a, c)` } });
  });

  it('an adapter that recognizes its format but cannot open the file ends the search', () => {
    const seen: string[] = [];
    const found = detectSource(path, context, [fakeAdapter('a', 'AAA', seen, 'unreadable_file'), fakeAdapter('b', 'BBB', seen)]);
    expect('error' in found && found.error.code).toBe('unreadable_file');
    expect(seen).toEqual(['a']);
  });

  it('the error of the adapter that recognized the file is the answer, not an earlier adapter’s unrecognized_file', () => {
    const seen: string[] = [];
    const found = detectSource(path, context, [fakeAdapter('c', 'CCC', seen), fakeAdapter('a', 'AAA', seen, 'unreadable_file'), fakeAdapter('b', 'BBB', seen)]);
    expect(found).toEqual({ error: { code: 'unreadable_file', message: `${path} is not a` } });
    expect(seen).toEqual(['c', 'a']);
  });

  it('every adapter names its formats, and no two adapters share one', () => {
    const formats = FORMAT_ADAPTERS.flatMap((a) => a.formats);
    expect(new Set(formats).size).toBe(formats.length);
  });
});
