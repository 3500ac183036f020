/**
 * Loads the command line's chunks (dist/cli-*.cjs, scripts/build.mjs) with V8's code cache, so a
 * cold start does not parse a megabyte of JavaScript again (most of a cold `check` was
 * compiling its chunk). Node ≥ 22.1 has module.enableCompileCache for this; on older Node the chunk
 * is compiled here with vm.Script and its `cachedData`.
 *
 * Invariants: a cache entry is named by the Node version, the architecture and the SHA-256 of the
 * chunk's own bytes (the build's signature, with the file's size and mtime: entryKey), so a rebuilt
 * or edited chunk or another Node never uses a stale entry (and V8 itself
 * rejects data made under other flags: `cachedDataRejected`, then the chunk is compiled from its
 * text and the entry rewritten). The cache lives only under the OS cache folder
 * (`session-inspector/code-cache`); nothing is written next to the chunks or to any session file.
 * Any failure to read or write the cache falls back to compiling the text: the cache can only make
 * a start faster, never change what runs. `SESSION_INSPECTOR_CODE_CACHE=0` turns it off (chunks
 * are then plain `require`s, which is also what --enable-source-maps needs to map stack traces).
 */
import type { Script } from 'node:vm';

/**
 * Node's modules, fetched when first used: an `import` would be hoisted to the top of dist/cli.cjs
 * and load node:crypto and node:vm on `--help` too.
 */
const crypto = () => process.getBuiltinModule('node:crypto');
const fs = () => process.getBuiltinModule('node:fs');
const nodeModule = () => process.getBuiltinModule('node:module');
const path = () => process.getBuiltinModule('node:path');

/** The environment variable that turns the code cache off (`0`, `false`, `off` or `no`). */
export const CODE_CACHE_ENV = 'SESSION_INSPECTOR_CODE_CACHE';

export interface ChunkLoaderOptions {
  /** The cache folder; null: no code cache. Default: codeCacheDir(). */
  cacheDir?: string | null;
}

/** What the loader did with one chunk (for tests and the bench). */
export interface ChunkLoad {
  file: string;
  /** `hit`: compiled from the cache; `miss`: no entry; `rejected`: V8 refused the entry; `off`: no cache. */
  cache: 'hit' | 'miss' | 'rejected' | 'off';
}

/** The per-user cache folder of the OS, with this program's code cache under it; null when turned off. */
export function codeCacheDir(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform, home: string = process.getBuiltinModule('node:os').homedir()): string | null {
  const setting = (env[CODE_CACHE_ENV] ?? '').trim().toLowerCase();
  if (['0', 'false', 'off', 'no'].includes(setting)) return null;
  const join = (...parts: string[]): string => path().join(...parts);
  let base: string | undefined;
  if (platform === 'win32') base = env.LOCALAPPDATA;
  else if (platform === 'darwin') base = home ? join(home, 'Library', 'Caches') : undefined;
  else base = env.XDG_CACHE_HOME || (home ? join(home, '.cache') : undefined);
  return base ? join(base, 'session-inspector', 'code-cache') : null;
}

/** The line scripts/build.mjs ends a chunk with: the SHA-256 of the chunk's bytes before it. */
const SIGNATURE = /\n\/\/ chunk-sha256: ([0-9a-f]{64})\n$/;

/**
 * What a cache entry of `file` is named by: the Node version, the architecture and the chunk's
 * bytes. A chunk the build signed (SIGNATURE) is named by its signature with its size and mtime,
 * so that a start hashes nothing (node:crypto alone costs a cold start some 5 ms) and a chunk
 * edited since still misses; any other chunk by the SHA-256 of its text.
 */
function entryKey(file: string, text: string): string {
  const signed = SIGNATURE.exec(text.slice(-100));
  if (signed) {
    const { size, mtimeMs } = fs().statSync(file);
    return `${(signed[1] as string).slice(0, 32)}-${size}-${Math.trunc(mtimeMs)}-${process.version}-${process.arch}`;
  }
  return crypto().createHash('sha256').update(`${process.version}\0${process.arch}\0`).update(text).digest('hex').slice(0, 32);
}

interface Pending {
  script: Script;
  entry: string;
  /** Every entry of this chunk's builds starts so (`<chunk file name>-`). */
  prefix: string;
}

type ModuleWithCompileCache = ReturnType<typeof nodeModule> & { enableCompileCache?: (dir?: string) => unknown };

function enableNodeCompileCache(dir: string): boolean {
  const enable = (nodeModule() as ModuleWithCompileCache).enableCompileCache;
  if (typeof enable !== 'function') return false;
  try {
    enable(dir);
    return true;
  } catch {
    // No cache then: the chunks load from their text.
    return false;
  }
}

/**
 * Requires chunks through the code cache. One per process (bin.ts makes it); `flush()` after the
 * command has run writes the entries that were missing, with the functions the run compiled.
 */
export class ChunkLoader {
  readonly loads: ChunkLoad[] = [];
  private readonly cacheDir: string | null;
  private readonly pending: Pending[] = [];
  /** Node ≥ 22.1 caches every module itself: chunks are then plain requires. */
  private readonly nodeCaches: boolean;

  constructor(options: ChunkLoaderOptions = {}) {
    this.cacheDir = options.cacheDir === undefined ? codeCacheDir() : options.cacheDir;
    this.nodeCaches = this.cacheDir !== null && enableNodeCompileCache(this.cacheDir);
  }

  /** The exports of the CommonJS file `file` (an absolute path), as `require(file)` gives them. */
  load(file: string): unknown {
    const require = nodeModule().createRequire(file);
    if (this.cacheDir === null || this.nodeCaches) {
      this.loads.push({ file, cache: 'off' });
      return require(file);
    }
    const { readFileSync } = fs();
    const paths = path();
    const text = readFileSync(file, 'utf8');
    const entry = paths.join(this.cacheDir, `${paths.basename(file)}-${entryKey(file, text)}.bin`);
    let cachedData: Buffer | undefined;
    try {
      cachedData = readFileSync(entry);
    } catch {
      cachedData = undefined;
    }
    const { Script } = process.getBuiltinModule('node:vm');
    const script = new Script(nodeModule().wrap(text), { filename: file, ...(cachedData ? { cachedData } : {}) });
    const cache = cachedData === undefined ? 'miss' : script.cachedDataRejected === true ? 'rejected' : 'hit';
    this.loads.push({ file, cache });
    if (cache !== 'hit') this.pending.push({ script, entry, prefix: `${paths.basename(file)}-` });
    const wrapper = script.runInThisContext() as (exports: unknown, require: NodeJS.Require, module: { exports: unknown }, filename: string, dirname: string) => void;
    const module = { exports: {} as unknown, filename: file, id: file, loaded: false };
    wrapper.call(module.exports, module.exports, require, module, file, paths.dirname(file));
    module.loaded = true;
    return module.exports;
  }

  /**
   * Writes the cache entries this process was missing (atomically: a temporary file, then a
   * rename), and removes the entries of older builds of the same chunk: the folder holds one entry
   * per chunk. The folder and the entries are the user's alone (0700, 0600): an entry is code this
   * program runs. Never throws.
   */
  flush(): void {
    if (this.cacheDir === null) return;
    const { mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } = fs();
    const paths = path();
    for (const { script, entry, prefix } of this.pending.splice(0)) {
      try {
        mkdirSync(this.cacheDir, { recursive: true, mode: 0o700 });
        const temporary = `${entry}.${process.pid}.tmp`;
        writeFileSync(temporary, script.createCachedData(), { mode: 0o600 });
        renameSync(temporary, entry);
        const name = paths.basename(entry);
        for (const other of readdirSync(this.cacheDir)) {
          if (other !== name && other.startsWith(prefix) && other.endsWith('.bin')) rmSync(paths.join(this.cacheDir, other), { force: true });
        }
      } catch {
        // A read-only or full disk: the next start compiles from the text again.
      }
    }
  }

}

/**
 * This process's loader. A chunk that loads a chunk of its own (a package built apart,
 * scripts/build.mjs `lazy-modules`) has its own copy of this module: the loader is kept on the
 * global object so that every copy uses one, and bin.ts's flush writes the entries of all.
 */
const PROCESS_LOADER = Symbol.for('session-inspector.chunkLoader');

function processLoader(): ChunkLoader | undefined {
  return (globalThis as { [PROCESS_LOADER]?: ChunkLoader })[PROCESS_LOADER];
}

/** The chunk file `name` beside the running bundle, through this process's loader (scripts/build.mjs generates the calls). */
export function loadChunk(file: string): unknown {
  const loader = processLoader() ?? ((globalThis as { [PROCESS_LOADER]?: ChunkLoader })[PROCESS_LOADER] = new ChunkLoader());
  return loader.load(file);
}

/** Writes this process's missing cache entries: bin.ts calls it once the command has run. */
export function flushChunkCache(): void {
  processLoader()?.flush();
}
