/**
 * The inspector never changes a session file (SPEC §3: "It never writes to them"). At run time:
 * every file the loader opens, over a full session (load, check, expand, search, close), is opened
 * read-only. In the source: the code that touches session files (the loader, the resolver worker,
 * the hosts) imports no file system function that writes, and opens nothing but with `'r'`.
 */
import type { Mode, OpenMode, PathLike } from 'node:fs';
import { constants, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it, vi } from 'vitest';

const calls = vi.hoisted(() => ({ opens: [] as { path: string; flags: unknown }[] }));

vi.mock('node:fs', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs')>();
  return {
    ...real,
    openSync: (path: PathLike, flags?: OpenMode, mode?: Mode) => {
      calls.opens.push({ path: String(path), flags });
      return real.openSync(path, flags ?? 'r', mode);
    },
  };
});

const { loadSession } = await import('./session');

const ROOT = join(import.meta.dirname, '../..');
const SAMPLES = join(ROOT, 'samples');

/** True for the flags of a read-only open: `'r'`, `'rs'`, or numeric flags with no access but O_RDONLY. */
function readOnlyFlags(flags: unknown): boolean {
  if (flags === undefined || flags === 'r' || flags === 'rs') return true;
  if (typeof flags === 'number') return (flags & (constants.O_WRONLY | constants.O_RDWR | constants.O_APPEND | constants.O_CREAT | constants.O_TRUNC)) === 0;
  return false;
}

describe('the loader opens session files read-only', () => {
  it('over a full session of each sample: load, check, expand every reduction, search, close', async () => {
    calls.opens.length = 0;
    for (const paths of [[join(SAMPLES, 'session.sidecar.jsonl')], [join(SAMPLES, 'legacy.session.json')], [join(SAMPLES, 'broken/log_differs.session.json'), join(SAMPLES, 'broken/log_differs.sidecar.jsonl')]]) {
      const loaded = await loadSession(paths, { cacheBytes: 0 });
      if (!loaded.ok) throw new Error(loaded.error.message);
      const s = loaded.session;
      s.check();
      for (const r of s.log) s.expand(r.id);
      s.search('e');
      s.close();
    }
    // The legacy snapshot brings its sibling sidecar: five different files in all.
    expect(new Set(calls.opens.map((o) => o.path)).size).toBe(5);
    for (const open of calls.opens) expect(readOnlyFlags(open.flags), `${open.path} opened with ${String(open.flags)}`).toBe(true);
  });
});

/** Source files (not tests, not test helpers) of the folders that read session files. */
function sources(folder: string): string[] {
  const dir = join(ROOT, folder);
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts') && !name.endsWith('.test.ts') && !name.endsWith('.setup.ts') && !name.split('/').includes('testing'))
    .map((name) => join(dir, name));
}

/** File system functions that change files or folders (their sync, callback and promise forms). */
const WRITES = /^(write|writeSync|writeFile|writeFileSync|writev|writevSync|appendFile|appendFileSync|createWriteStream|truncate|truncateSync|ftruncate|ftruncateSync|rm|rmSync|rmdir|rmdirSync|unlink|unlinkSync|rename|renameSync|copyFile|copyFileSync|cp|cpSync|mkdir|mkdirSync|mkdtemp|mkdtempSync|chmod|chmodSync|fchmod|fchmodSync|chown|chownSync|fchown|fchownSync|lchown|lchownSync|utimes|utimesSync|futimes|futimesSync|lutimes|lutimesSync|symlink|symlinkSync|link|linkSync|fsync|fsyncSync|fdatasync|fdatasyncSync)$/;

/**
 * Modules that write only files they create themselves, never a session file. The upload receiver
 * streams the page's bytes into a private folder it makes (`mkdtemp`, 0700; the file
 * 0600, created exclusively) and removes it; `electron/host/upload.test.ts` proves the modes, the
 * location, that a refused or aborted upload leaves nothing, and the removal. The loader then opens
 * that copy read-only like any file (the run-time test above covers it).
 */
const WRITERS_OF_THEIR_OWN_FILES = new Set(['electron/host/upload.ts']);

describe('the code that reads session files imports nothing that writes', () => {
  const files = ['electron/loader', 'electron/worker', 'electron/host'].flatMap(sources).filter((f) => !WRITERS_OF_THEIR_OWN_FILES.has(relative(ROOT, f)));

  it('finds the sources', () => {
    expect(files.map((f) => relative(ROOT, f))).toEqual(expect.arrayContaining(['electron/loader/session.ts', 'electron/loader/common/lines.ts', 'electron/worker/service.ts', 'electron/host/sessionHost.ts']));
  });

  it.each(files.map((f) => [relative(ROOT, f), f]))('%s', (_name, file) => {
    const text = readFileSync(file, 'utf8');
    // Every import of the file system, by name: a namespace or default import could reach anything.
    const imports = [...text.matchAll(/import\s+(type\s+)?([^;]*?)\s+from\s+'(node:)?fs(\/promises)?'/g)];
    for (const [statement, typeOnly, what] of imports) {
      if (typeOnly) continue;
      expect(what, statement).toMatch(/^\{[^}]*\}$/);
      const names = (what ?? '')
        .slice(1, -1)
        .split(',')
        .map((n) => n.trim().replace(/^type\s+/, '').split(/\s+as\s+/)[0] ?? '')
        .filter((n) => n !== '');
      for (const name of names) expect(WRITES.test(name), `${statement} imports ${name}`).toBe(false);
    }
    // A thread's source text (run with `eval: true`) takes what it needs by name too: each name is
    // checked like an import's, and any other require() of the file system fails.
    const named = /\bconst\s+\{([^}]*)\}\s*=\s*require\(\s*'(node:)?fs'\s*\);?/g;
    for (const [statement, what] of text.matchAll(named)) {
      for (const name of (what ?? '').split(',').map((n) => n.trim().split(/\s*:\s*/)[0] ?? '')) if (name !== '') expect(WRITES.test(name), `${statement} takes ${name}`).toBe(false);
    }
    expect(text.replace(named, ''), 'require() of the file system').not.toMatch(/require\(\s*'(node:)?fs/);
    // Whatever is opened is opened for reading.
    // `'r'`, or a constant the same file defines as O_RDONLY with O_NONBLOCK (and O_NOFOLLOW, where the platform has it) and nothing else.
    const readOnlyConstants = new Set([...text.matchAll(/\bconst\s+(\w+)\s*=\s*constants\.O_RDONLY\s*\|\s*constants\.O_NONBLOCK(?:\s*\|\s*\(constants\.O_NOFOLLOW \?\? 0\))?\s*;/g)].map((m) => m[1]));
    for (const [call, flags] of text.matchAll(/\bopenSync\(\s*[^,()]+(?:,\s*([^,)]+))?/g)) {
      const f = flags?.trim() ?? '';
      expect(f === "'r'" || readOnlyConstants.has(f), `${call} opens with ${f}`).toBe(true);
    }
    for (const [call] of text.matchAll(/\b(?:open|fs\.open|promises\.open)\(\s*[^,()]+,\s*'[^r']/g)) expect.fail(`${call} opens for writing`);
  });
});
