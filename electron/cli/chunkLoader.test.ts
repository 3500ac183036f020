/** The code cache of the command line's chunks (chunkLoader.ts): it can make a start faster, never change what runs. */
import { existsSync, mkdirSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import nodeModule from 'node:module';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../tools/testing/files';
import { CODE_CACHE_ENV, ChunkLoader, codeCacheDir } from './chunkLoader';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

/** Node ≥ 22.1 caches modules itself: the loader then requires chunks plainly (its own cache is not used). */
const nodeCaches = typeof (nodeModule as { enableCompileCache?: unknown }).enableCompileCache === 'function';

let serial = 0;
/** A CommonJS chunk in a fresh folder that requires a sibling file and reports where it runs. */
function writeChunk(value: string): { dir: string; file: string } {
  const dir = tmp.path(`chunk-${serial++}`);
  mkdirSync(dir);
  writeFileSync(join(dir, 'helper.cjs'), 'module.exports = (x) => `helped ${x}`;\n');
  const file = join(dir, 'chunk.cjs');
  writeFileSync(file, `const help = require('./helper.cjs');\nexports.value = help(${JSON.stringify(value)});\nexports.where = [__filename, __dirname];\nexports.self = module.exports === exports;\n`);
  return { dir, file };
}

describe('codeCacheDir', () => {
  it('is session-inspector/code-cache under the OS cache folder, and null when turned off', () => {
    expect(codeCacheDir({ XDG_CACHE_HOME: '/x/cache' }, 'linux', '/home/u')).toBe(join('/x/cache', 'session-inspector', 'code-cache'));
    expect(codeCacheDir({}, 'linux', '/home/u')).toBe(join('/home/u', '.cache', 'session-inspector', 'code-cache'));
    expect(codeCacheDir({}, 'darwin', '/Users/u')).toBe(join('/Users/u', 'Library', 'Caches', 'session-inspector', 'code-cache'));
    expect(codeCacheDir({ LOCALAPPDATA: 'C:\\Users\\u\\AppData\\Local' }, 'win32', 'C:\\Users\\u')).toBe(join('C:\\Users\\u\\AppData\\Local', 'session-inspector', 'code-cache'));
    for (const off of ['0', 'false', 'OFF', ' no ']) expect(codeCacheDir({ [CODE_CACHE_ENV]: off, XDG_CACHE_HOME: '/x' }, 'linux', '/home/u')).toBeNull();
    expect(codeCacheDir({}, 'win32', '')).toBeNull();
  });
});

describe.skipIf(nodeCaches)('ChunkLoader (vm.Script cachedData)', () => {
  it('a chunk loads as require() loads it; the second process start compiles it from the cache', () => {
    const { dir, file } = writeChunk('a');
    const cacheDir = tmp.path('cache-1');
    const first = new ChunkLoader({ cacheDir });
    const exported = first.load(file);
    expect(exported).toEqual({ value: 'helped a', where: [file, dir], self: true });
    expect(first.loads).toEqual([{ file, cache: 'miss' }]);
    expect(existsSync(cacheDir)).toBe(false); // nothing is written before flush
    first.flush();
    expect(readdirSync(cacheDir)).toEqual([expect.stringMatching(/^chunk\.cjs-[0-9a-f]{32}\.bin$/)]);
    if (process.platform !== 'win32') {
      // The user's alone: an entry is code this program runs.
      expect(statSync(cacheDir).mode & 0o077).toBe(0);
      expect(statSync(join(cacheDir, readdirSync(cacheDir)[0] as string)).mode & 0o077).toBe(0);
    }
    const second = new ChunkLoader({ cacheDir });
    expect(second.load(file)).toEqual(exported);
    expect(second.loads).toEqual([{ file, cache: 'hit' }]);
    second.flush(); // a hit writes nothing new
    expect(readdirSync(cacheDir)).toHaveLength(1);
    expect(readdirSync(dir).sort()).toEqual(['chunk.cjs', 'helper.cjs']); // nothing beside the chunk
  });

  it('a rebuilt chunk never runs from the old entry; over a damaged entry the text of the chunk runs', () => {
    const { file } = writeChunk('old');
    const cacheDir = tmp.path('cache-2');
    const old = new ChunkLoader({ cacheDir });
    old.load(file);
    old.flush();
    writeChunk('unused');
    writeFileSync(file, "exports.value = 'new';\n");
    const rebuilt = new ChunkLoader({ cacheDir });
    expect(rebuilt.load(file)).toEqual({ value: 'new' });
    expect(rebuilt.loads[0]?.cache).toBe('miss');
    rebuilt.flush();
    // One entry per chunk: the old build's is removed when the new one is written.
    const entries = readdirSync(cacheDir);
    expect(entries).toHaveLength(1);
    for (const entry of entries) writeFileSync(join(cacheDir, entry), 'not V8 code cache data');
    // (Within one process V8 may answer from its own in-memory cache instead of the damaged data,
    // so what is asserted is the outcome, not which of the two compiled it.)
    const damaged = new ChunkLoader({ cacheDir });
    expect(damaged.load(file)).toEqual({ value: 'new' });
    damaged.flush();
  });

  it('a chunk the build signed is named by its signature, size and mtime: an edit under the same signature misses and runs the new text', () => {
    const { file } = writeChunk('signed');
    const sign = (text: string) => `${text}// chunk-sha256: ${'ab'.repeat(32)}\n`;
    writeFileSync(file, sign("exports.value = 'one';\n"));
    utimesSync(file, 1_000_000, 1_000_000);
    const cacheDir = tmp.path('cache-signed');
    const first = new ChunkLoader({ cacheDir });
    expect(first.load(file)).toEqual({ value: 'one' });
    first.flush();
    const { size } = statSync(file);
    expect(readdirSync(cacheDir)).toEqual([`chunk.cjs-${'ab'.repeat(16)}-${size}-1000000000-${process.version}-${process.arch}.bin`]);
    const again = new ChunkLoader({ cacheDir });
    again.load(file);
    expect(again.loads[0]?.cache).toBe('hit');
    // The same length and signature, other bytes: the mtime tells them apart.
    writeFileSync(file, sign("exports.value = 'two';\n"));
    const edited = new ChunkLoader({ cacheDir });
    expect(edited.load(file)).toEqual({ value: 'two' });
    expect(edited.loads[0]?.cache).toBe('miss');
    edited.flush();
    expect(readdirSync(cacheDir)).toHaveLength(1);
  });

  it('with the cache off (cacheDir null) a chunk is a plain require and nothing is written', () => {
    const { dir, file } = writeChunk('plain');
    const loader = new ChunkLoader({ cacheDir: null });
    expect(loader.load(file)).toEqual({ value: 'helped plain', where: [file, dir], self: true });
    expect(loader.loads).toEqual([{ file, cache: 'off' }]);
    loader.flush();
    expect(readdirSync(dir).sort()).toEqual(['chunk.cjs', 'helper.cjs']);
  });

  it('a cache folder that cannot be written is no error: the chunk still runs', () => {
    const { file } = writeChunk('b');
    const blocker = tmp.path('a-file');
    writeFileSync(blocker, '');
    const loader = new ChunkLoader({ cacheDir: join(blocker, 'cache') });
    expect(loader.load(file)).toMatchObject({ value: 'helped b' });
    expect(() => loader.flush()).not.toThrow();
  });
});
