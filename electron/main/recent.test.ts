import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { tempDir } from '../../tools/testing/files';
import { createRecentFiles, MAX_RECENT, RECENT_FILE_NAME } from './recent';

let dir: ReturnType<typeof tempDir>;
let store: string;

/** Creates `name` in the temp dir and returns its absolute path. */
function file(name: string): string {
  const path = dir.path(name);
  writeFileSync(path, '{}\n');
  return path;
}

beforeEach(() => {
  dir = tempDir();
  store = dir.path(`userData/${RECENT_FILE_NAME}`);
});
afterEach(() => dir.cleanup());

describe('recent files', () => {
  it('lists the most recent first, without duplicates', () => {
    const [a, b, c] = [file('a.jsonl'), file('b.jsonl'), file('c.jsonl')];
    const recent = createRecentFiles({ file: store });
    recent.add([a]);
    recent.add([b]);
    recent.add([c]);
    recent.add([a]);
    expect(recent.list()).toEqual([a, c, b]);
  });

  it('puts the files opened together in their order, the first on top', () => {
    const [sidecar, snapshot, older] = [file('s.sidecar.jsonl'), file('s.session.json'), file('old.jsonl')];
    const recent = createRecentFiles({ file: store });
    recent.add([older]);
    recent.add([sidecar, snapshot]);
    expect(recent.list()).toEqual([sidecar, snapshot, older]);
  });

  it(`keeps at most ${MAX_RECENT}`, () => {
    const recent = createRecentFiles({ file: store });
    const paths = Array.from({ length: MAX_RECENT + 3 }, (_, i) => file(`f${i}.jsonl`));
    for (const path of paths) recent.add([path]);
    expect(recent.list()).toEqual(paths.slice(-MAX_RECENT).reverse());
  });

  it('persists as JSON in the settings folder and reloads', () => {
    const [a, b] = [file('a.jsonl'), file('b.jsonl')];
    createRecentFiles({ file: store }).add([a, b]);
    expect(JSON.parse(readFileSync(store, 'utf8'))).toEqual({ version: 1, files: [a, b] });
    expect(createRecentFiles({ file: store }).list()).toEqual([a, b]);
  });

  it('lists only files that still exist', () => {
    const [a, b] = [file('a.jsonl'), file('b.jsonl')];
    const recent = createRecentFiles({ file: store });
    recent.add([a, b]);
    rmSync(a);
    mkdirSync(dir.path('now-a-folder'));
    recent.add([dir.path('now-a-folder')]);
    expect(recent.list()).toEqual([b]);
  });

  it('ignores relative and non-string paths', () => {
    const recent = createRecentFiles({ file: store });
    recent.add(['relative.jsonl', '', 42 as unknown as string]);
    expect(recent.list()).toEqual([]);
  });

  it('starts empty from a missing or damaged file, and filters a damaged list', () => {
    expect(createRecentFiles({ file: store }).list()).toEqual([]);
    mkdirSync(dir.path('userData'));
    writeFileSync(store, '{ not json');
    expect(createRecentFiles({ file: store }).list()).toEqual([]);
    const a = file('a.jsonl');
    writeFileSync(store, JSON.stringify({ files: [a, 7, 'relative', a, null] }));
    expect(createRecentFiles({ file: store }).list()).toEqual([a]);
    writeFileSync(store, JSON.stringify(['not', 'an', 'object']));
    expect(createRecentFiles({ file: store }).list()).toEqual([]);
  });

  it('clears the list, on disk too', () => {
    const clearRecentDocuments = vi.fn();
    const recent = createRecentFiles({ file: store, clearRecentDocuments });
    recent.add([file('a.jsonl')]);
    recent.clear();
    expect(recent.list()).toEqual([]);
    expect(createRecentFiles({ file: store }).list()).toEqual([]);
    expect(clearRecentDocuments).toHaveBeenCalledTimes(1);
  });

  it("tells the OS's recent documents", () => {
    const addRecentDocument = vi.fn();
    const a = file('a.jsonl');
    createRecentFiles({ file: store, addRecentDocument }).add([a]);
    expect(addRecentDocument).toHaveBeenCalledWith(a);
  });

  it('writes only its own settings file, and warns instead of throwing when it cannot', () => {
    const a = file('a.jsonl');
    const before = readFileSync(a, 'utf8');
    createRecentFiles({ file: store }).add([a]);
    expect(readFileSync(a, 'utf8')).toBe(before);

    const warn = vi.fn();
    writeFileSync(dir.path('blocker'), '');
    const recent = createRecentFiles({ file: dir.path('blocker/recent.json'), warn });
    expect(() => recent.add([a])).not.toThrow();
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('could not save recent files'));
    expect(recent.list()).toEqual([a]);
  });
});
