/**
 * A cold command line: each command loads only its own code. Observed on the built
 * bundle (dist/cli.cjs and its chunks, scripts/build.mjs) through a `node -r` hook that records
 * every module Node's loader is asked for: a property of what is loaded, not a time.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as zlib from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir, writeElidedOutputs } from '../../tools/testing/files';
import { CODE_CACHE_ENV } from './chunkLoader';
import { runCli } from './testing/runCli';

const ROOT = join(import.meta.dirname, '../..');
const DIST = join(ROOT, 'dist');
const DEMO = join(ROOT, 'samples/demo.sidecar.jsonl');
const tmp = tempDir();
afterAll(() => tmp.cleanup());

const HOOK = tmp.path('record-loads.cjs');
writeFileSync(
  HOOK,
  `const Module = require('node:module');
const requests = new Set();
const load = Module._load;
Module._load = function (request, ...rest) { requests.add(request); return load.call(this, request, ...rest); };
process.on('exit', () => require('node:fs').writeSync(2, '\\nLOADS ' + JSON.stringify({ requests: [...requests], files: Object.keys(require.cache), builtins: process.moduleLoadList }) + '\\n'));
`,
);

interface Loads {
  code: number | null;
  stdout: string;
  /** Every module Node's loader was asked for (builtins by the name asked, files by path). */
  requests: string[];
  /** The files of dist/ that ran, by name. */
  distFiles: string[];
  /** Node's own modules loaded, internal ones included (process.moduleLoadList). */
  builtins: string[];
}

/** Runs the bundle with the code cache off, so that a chunk is a plain require the hook sees. */
function runRecorded(args: string[], env: NodeJS.ProcessEnv = { [CODE_CACHE_ENV]: '0' }): Loads {
  const r = spawnSync(process.execPath, ['-r', HOOK, join(DIST, 'cli.cjs'), ...args], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, ...env } });
  const line = r.stderr.split('\n').find((l) => l.startsWith('LOADS '));
  if (line === undefined) throw new Error(`the hook printed nothing: ${r.stderr}`);
  const { requests, files, builtins } = JSON.parse(line.slice('LOADS '.length)) as { requests: string[]; files: string[]; builtins: string[] };
  return { code: r.status, stdout: r.stdout, requests, builtins, distFiles: files.filter((f) => f.startsWith(DIST)).map((f) => f.slice(DIST.length + 1)) };
}

/** A cache entry of a chunk the build signed: its signature, size and mtime, Node's version and the architecture (chunkLoader.ts entryKey). */
const SIGNED_ENTRY = (chunk: string) => new RegExp(`^${chunk}\\.cjs-[0-9a-f]{32}-\\d+-\\d+-${process.version.replace(/\./g, '\\.')}-${process.arch}\\.bin$`);

/** What only serve and open need: the HTTP host, Electron's launcher. */
const SERVE_ONLY = ['node:http', 'node:https', 'node:net', 'node:child_process'];

/**
 * What a check of a well-formed sidecar never uses, loaded on first use (scripts/build.mjs
 * `lazy-modules`): zlib and streams (an Inspect zip), worker_threads (the indexing pool of a
 * large file), crypto (SHA-256 starts in JavaScript), and the packages built as chunks of their
 * own (dist/cli-lib-*.cjs).
 */
const LAZY_BUILTINS = ['node:zlib', 'node:stream', 'node:worker_threads', 'node:crypto', 'zlib', 'stream', 'crypto'];

/** The o200k_base encoding's chunk (scripts/build.mjs LAZY_PACKAGES): 2.4 MB of ranks a command that estimates nothing never loads. */
const TOKENIZER = 'cli-lib-gpt-tokenizer-encoding-o200k_base.cjs';

/** A sidecar whose reduction record is invalid (tool_output_truncated without kept_bytes): zod words the finding. */
const INVALID = tmp.path('invalid.sidecar.jsonl');
writeFileSync(
  INVALID,
  `${readFileSync(DEMO, 'utf8')
    .split('\n')
    .map((line) => line.replace('"kept_bytes":15,', ''))
    .join('\n')}`,
);

/** Each cache entry's name with its inode and modification time: an entry written again (a temporary file renamed over it) changes. */
function entryIdentities(cacheDir: string): string[] {
  return readdirSync(cacheDir).map((name) => {
    const stats = statSync(join(cacheDir, name), { bigint: true });
    return `${name} ${stats.ino} ${stats.mtimeNs}`;
  });
}

describe.skipIf(!existsSync(join(DIST, 'cli.cjs')))('the cold command line (built bundle)', () => {
  it('check loads its own chunk and none of serve, open or bundle, nor zod, re2js, yauzl, zlib, streams or threads', () => {
    const r = runRecorded(['check', DEMO]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ findings: [], summary: { session_id: 's-demo' } });
    expect(r.distFiles.sort()).toEqual(['cli-session.cjs', 'cli.cjs']);
    expect(r.requests.filter((m) => SERVE_ONLY.includes(m) || LAZY_BUILTINS.includes(m))).toEqual([]);
    // Its one hash is taken in JavaScript (electron/cli/sha256.ts): node:crypto is not loaded.
    expect(r.builtins).not.toContain('NativeModule crypto');
    // The loader's performance.now() is electron/cli/performanceNow.ts's: Node's perf_hooks stay unloaded.
    expect(r.builtins).not.toContain('NativeModule internal/perf/performance');
  });

  it('check writes its output through the descriptor: process.stdout, a socket on a pipe, is never made', () => {
    // spawnSync's stdout and stderr are pipes: process.stdout would be a net.Socket over libuv's pipe_wrap.
    const r = runRecorded(['check', DEMO]);
    expect(r.code).toBe(0);
    expect(r.stdout.endsWith('}\n')).toBe(true);
    expect(r.builtins.filter((m) => ['NativeModule net', 'NativeModule tty', 'Internal Binding pipe_wrap', 'NativeModule internal/fs/sync_write_stream'].includes(m))).toEqual([]);
  });

  it('a reader that stops early (`| head`) ends the output quietly: the status is the command\'s, nothing on stderr', () => {
    const big = writeElidedOutputs(tmp.path('big.sidecar.jsonl'), 1, 1024 * 1024);
    const r = spawnSync('bash', ['-c', `"${process.execPath}" "${join(DIST, 'cli.cjs')}" expand --id r0 "${big}" | head -c 10 >/dev/null; echo "$\{PIPESTATUS[0]}"`], { encoding: 'utf8', env: { ...process.env, [CODE_CACHE_ENV]: '0' } });
    expect({ status: r.stdout.trim(), stderr: r.stderr }).toEqual({ status: '0', stderr: '' });
    // Read whole, the same output is complete: 1 MiB of content in one JSON line.
    const whole = spawnSync(process.execPath, [join(DIST, 'cli.cjs'), 'expand', '--id', 'r0', big], { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024, env: { ...process.env, [CODE_CACHE_ENV]: '0' } });
    expect((JSON.parse(whole.stdout) as { total_bytes: number; content: string }).content).toHaveLength(1024 * 1024);
  });

  it('a lazily loaded module is loaded where it is used, and the output is what the sources print in-process', async () => {
    const big = writeElidedOutputs(tmp.path('big-check.sidecar.jsonl'), 2, 300 * 1024);
    const tampered = tmp.path('tampered.sidecar.jsonl');
    writeFileSync(tampered, readFileSync(DEMO, 'utf8').replace('got 4', 'got 5'));
    const cases: { args: string[]; loads: string[] }[] = [
      // Hashes checked in JavaScript: equal, a mismatch, and past the budget (node:crypto takes over).
      { args: ['check', DEMO], loads: [] },
      // log estimates the tokens each reduction hid (docs/token-estimates.md): it loads the tokenizer, check never does.
      { args: ['log', DEMO], loads: [TOKENIZER] },
      { args: ['check', tampered], loads: [] },
      { args: ['check', big], loads: [] },
      { args: ['log', big], loads: [TOKENIZER] },
      // An invalid record: zod words the finding.
      { args: ['check', INVALID], loads: ['cli-lib-zod.cjs'] },
      // A zstd Inspect archive on Node 20: yauzl lists it, fzstd inflates its entries.
      { args: ['check', join(ROOT, 'e2e/fixtures/synthetic/inspect/zstd.eval')], loads: ['cli-lib-fzstd.cjs', 'cli-lib-yauzl.cjs'] },
      { args: ['check', join(ROOT, 'e2e/fixtures/synthetic/inspect/bad-crc.eval')], loads: ['cli-lib-yauzl.cjs'] },
      // A regex search runs re2js.
      { args: ['search', '--regex', '--query', 'got \\d', DEMO], loads: ['cli-lib-re2js.cjs'] },
      { args: ['view', '--policy', tmp.path('not-a-policy.json'), DEMO], loads: ['cli-lib-zod.cjs'] },
    ];
    writeFileSync(tmp.path('not-a-policy.json'), '{"dedupe":"yes"}');
    for (const { args, loads } of cases) {
      const r = runRecorded(args);
      const inProcess = await runCli(args);
      expect({ args, code: r.code, stdout: r.stdout }).toEqual({ args, code: inProcess.code, stdout: inProcess.stdout });
      // A Node with its own zstd decoder (22.15 and later) needs no fzstd (electron/loader/inspect/zip.ts).
      const expected = typeof (zlib as { createZstdDecompress?: unknown }).createZstdDecompress === 'function' ? loads.filter((f) => f !== 'cli-lib-fzstd.cjs') : loads;
      expect(r.distFiles.filter((f) => f.startsWith('cli-lib-')).sort(), args.join(' ')).toEqual(expected);
    }
  });

  it('--help loads nothing but dist/cli.cjs: no chunk, no hashing', () => {
    const r = runRecorded(['--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Usage: session-inspector');
    expect(r.distFiles).toEqual(['cli.cjs']);
    expect(r.requests.filter((m) => m.startsWith('node:crypto') || m.endsWith('.cjs'))).toEqual([join(DIST, 'cli.cjs')]);
  });

  it('bundle loads the bundle chunk alone (a usage error here, before any file is read)', () => {
    const r = runRecorded(['bundle', DEMO]);
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout)).toMatchObject({ error: { code: 'usage' } });
    expect(r.distFiles.sort()).toEqual(['cli-bundle.cjs', 'cli.cjs']);
  });

  it('a usage error of serve loads the serve chunk (and zod, for its contract) and starts nothing', () => {
    const r = runRecorded(['serve', '--port', 'x']);
    expect(r.code).toBe(2);
    expect(r.distFiles.sort()).toEqual(['cli-lib-zod.cjs', 'cli-serve.cjs', 'cli.cjs']);
    expect(r.requests.filter((m) => SERVE_ONLY.includes(m))).toEqual([]);
  });

  it('with the code cache on, check prints the same, and the cache holds one entry for its chunk under the cache folder', () => {
    const cacheHome = tmp.path('cache-home');
    const plain = runRecorded(['check', DEMO]);
    const env = { [CODE_CACHE_ENV]: '', XDG_CACHE_HOME: cacheHome };
    const cacheDir = join(cacheHome, 'session-inspector', 'code-cache');
    const first = runRecorded(['check', DEMO], env);
    const written = entryIdentities(cacheDir);
    const second = runRecorded(['check', DEMO], env);
    expect([first.stdout, second.stdout]).toEqual([plain.stdout, plain.stdout]);
    // Compiled through the cache, the chunk is not a require of the hook's: it still never loads serve's code.
    expect(second.distFiles).toEqual(['cli.cjs']);
    expect(second.requests.filter((m) => SERVE_ONLY.includes(m))).toEqual([]);
    if (process.platform === 'linux') expect(readdirSync(cacheDir)).toEqual([expect.stringMatching(SIGNED_ENTRY('cli-session'))]);
    // V8 took the entry the first run wrote (made under the flags it is read under), so the second wrote none.
    expect(entryIdentities(cacheDir)).toEqual(written);
  });

  it('a listing, whose indexing thread starts with a heap of its own size, leaves the flags as it read its chunk: the second writes no entry', () => {
    const folder = tmp.path('library');
    mkdirSync(folder);
    copyFileSync(DEMO, join(folder, 'demo.sidecar.jsonl'));
    const cacheHome = tmp.path('cache-home-sessions');
    const cacheDir = join(cacheHome, 'session-inspector', 'code-cache');
    const env = { [CODE_CACHE_ENV]: '', XDG_CACHE_HOME: cacheHome, HOME: tmp.path('home'), SESSION_INSPECTOR_CACHE_DIR: tmp.path('listing-cache') };
    const listing = (): { sessions: { indexed: boolean }[] } => {
      rmSync(env.SESSION_INSPECTOR_CACHE_DIR, { recursive: true, force: true });
      const r = runRecorded(['sessions', folder, '--no-default-roots'], env);
      expect(r.code).toBe(0);
      return JSON.parse(r.stdout) as { sessions: { indexed: boolean }[] };
    };
    // Indexed on the thread both times (the listing's own cache is emptied before each).
    expect(listing().sessions.map((s) => s.indexed)).toEqual([true]);
    const written = entryIdentities(cacheDir);
    expect(written).toEqual([expect.stringMatching(/^cli-sessions\.cjs-/)]);
    expect(listing().sessions.map((s) => s.indexed)).toEqual([true]);
    expect(entryIdentities(cacheDir)).toEqual(written);
  });

  it('a chunk a chunk loads (zod, for an invalid record) goes through the same code cache: one entry each, the same output', () => {
    const cacheHome = tmp.path('cache-home-zod');
    const plain = runRecorded(['check', INVALID]);
    expect(plain.code).toBe(1);
    const env = { [CODE_CACHE_ENV]: '', XDG_CACHE_HOME: cacheHome };
    const first = runRecorded(['check', INVALID], env);
    const second = runRecorded(['check', INVALID], env);
    expect([first.stdout, second.stdout]).toEqual([plain.stdout, plain.stdout]);
    if (process.platform === 'linux') {
      expect(readdirSync(join(cacheHome, 'session-inspector', 'code-cache')).sort()).toEqual([expect.stringMatching(SIGNED_ENTRY('cli-lib-zod')), expect.stringMatching(SIGNED_ENTRY('cli-session'))]);
    }
  });
});
