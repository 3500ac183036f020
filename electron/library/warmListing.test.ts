/**
 * A warm listing (docs/library.md "The cache"): a file the index cache knows for its size,
 * modification time and inode is not opened at all — its format and head come from the cache with
 * its counts — and an entry written by an older listing (counts only) learns its head once.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import * as scan from '../listing/scan';
import { CACHE_FILE, IndexCache } from './cache';
import type { LibraryListing } from './library';
import { listLibrary } from './library';
import { indexPool } from './pool';
import { smallSession, writeSmallSessions } from './testing/generated';

vi.mock('../listing/scan', async (original) => {
  const actual = await original<typeof import('../listing/scan')>();
  return { ...actual, sniffFile: vi.fn(actual.sniffFile) };
});

const FILES = 40;
let base: string;
let root: string;
beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), 'library-warm-'));
  root = join(base, 'sessions');
  mkdirSync(root);
  writeSmallSessions(root, FILES);
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

async function list(cacheDir: string, heads = false): Promise<LibraryListing> {
  const pool = indexPool({ threads: 1 });
  try {
    return await listLibrary({ roots: [{ path: root, agent: 'given' }], pool, cache: new IndexCache(cacheDir), ...(heads ? { heads } : {}) });
  } finally {
    pool.close();
  }
}

const opened = (): number => vi.mocked(scan.sniffFile).mock.calls.length;
const withoutLive = (l: LibraryListing) => l.sessions.map(({ live: _live, ...rest }) => rest);

describe('a warm listing', () => {
  it('opens no file the cache knows, and lists exactly what the cold listing listed', async () => {
    const cacheDir = join(base, 'cache');
    vi.mocked(scan.sniffFile).mockClear();
    const cold = await list(cacheDir);
    expect(cold.sessions).toHaveLength(FILES);
    expect(opened()).toBe(FILES);
    vi.mocked(scan.sniffFile).mockClear();
    const warm = await list(cacheDir);
    expect(opened()).toBe(0);
    expect(warm.indexedFiles).toBe(0);
    expect(withoutLive(warm)).toEqual(withoutLive(cold));
    // A heads-only listing from the same cache: the heads as the cold listing read them.
    const heads = await list(cacheDir, true);
    expect(opened()).toBe(0);
    expect(heads.sessions.map((e) => [e.path, e.title, e.format])).toEqual(cold.sessions.map((e) => [e.path, e.title, e.format]));
  }, 120_000);

  it('opens a file again once it changed, and only that one', async () => {
    const cacheDir = join(base, 'cache-changed');
    const cold = await list(cacheDir);
    const changed = cold.sessions[3]?.path as string;
    writeFileSync(changed, smallSession(999, 3));
    vi.mocked(scan.sniffFile).mockClear();
    const warm = await list(cacheDir);
    expect(vi.mocked(scan.sniffFile).mock.calls.map((c) => c[0])).toEqual([changed]);
    expect(warm.indexedFiles).toBe(1);
    expect(warm.sessions.find((e) => e.path === changed)).toMatchObject({ calls: 3 });
  }, 120_000);

  it('an entry of an older listing (counts, no head) is opened once more and then known', async () => {
    const cacheDir = join(base, 'cache-older');
    await list(cacheDir);
    const file = join(cacheDir, CACHE_FILE);
    const doc = JSON.parse(readFileSync(file, 'utf8')) as { entries: Record<string, Record<string, unknown>> };
    for (const e of Object.values(doc.entries)) {
      delete e.format;
      delete e.info;
    }
    writeFileSync(file, JSON.stringify(doc));
    vi.mocked(scan.sniffFile).mockClear();
    const upgraded = await list(cacheDir);
    expect(opened()).toBe(FILES);
    expect(upgraded.indexedFiles).toBe(0);
    vi.mocked(scan.sniffFile).mockClear();
    await list(cacheDir);
    expect(opened()).toBe(0);
  }, 120_000);

  it('a cached head that is not a head (a hand-edited cache) is not trusted: the file is indexed again', async () => {
    const cacheDir = join(base, 'cache-edited');
    const cold = await list(cacheDir);
    const file = join(cacheDir, CACHE_FILE);
    const doc = JSON.parse(readFileSync(file, 'utf8')) as { entries: Record<string, Record<string, unknown>> };
    for (const e of Object.values(doc.entries)) e.info = { title: 42 };
    writeFileSync(file, JSON.stringify(doc));
    const again = await list(cacheDir);
    expect(again.indexedFiles).toBe(FILES);
    expect(withoutLive(again)).toEqual(withoutLive(cold));
  }, 120_000);
});
