import fc from 'fast-check';
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CACHE_FILE, CACHE_VERSION, IndexCache, cacheFolder } from './cache';
import type { IndexedCounts } from './index';
import type { LibraryListing, LibraryOptions } from './library';
import { listLibrary } from './library';
import { indexPool } from './pool';
import { headInfo, oneLine } from './head';
import { defaultRoots } from './roots';
import { smallSession, writeMixedLibrary, writeSmallSessions } from './testing/generated';
import type { WalkCount } from './walk';
import { walkRoot } from './walk';

let base: string;
beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), 'library-'));
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

async function list(root: string, cacheDir: string | undefined, extra: Partial<LibraryOptions> = {}): Promise<LibraryListing> {
  const pool = indexPool({ threads: 2 });
  try {
    return await listLibrary({ roots: [{ path: root, agent: 'given' }], pool, ...(cacheDir !== undefined ? { cache: new IndexCache(cacheDir) } : {}), ...extra });
  } finally {
    pool.close();
  }
}

const withoutLive = (l: LibraryListing) => l.sessions.map(({ live: _live, ...rest }) => rest);

describe('the index cache', () => {
  let root: string;
  let cacheDir: string;
  let paths: string[];
  let first: LibraryListing;
  beforeAll(async () => {
    root = join(base, 'many');
    cacheDir = join(base, 'cache-many');
    paths = writeSmallSessions(root, 320);
    first = await list(root, cacheDir);
  }, 240_000);

  it('indexes every file once, then answers a second listing of 320 from the cache', async () => {
    expect(first.indexedFiles).toBe(320);
    expect(first.sessions.every((e) => e.indexed && e.calls === 2 && e.messages === 4)).toBe(true);
    const second = await list(root, cacheDir);
    expect(second.indexedFiles).toBe(0);
    expect(withoutLive(second)).toEqual(withoutLive(first));
  }, 120_000);

  it('lets the event loop turn while it walks, long before the walk ends (the threads\' answers are heard and more jobs handed out)', async () => {
    let walked = 0;
    let atFirstTurn: number | undefined;
    setImmediate(() => {
      atFirstTurn = walked;
    });
    const listing = await list(root, undefined, { heads: true, onEntry: () => walked++ });
    expect(listing.sessions).toHaveLength(320);
    expect(atFirstTurn).toBeGreaterThan(0);
    expect(atFirstTurn).toBeLessThan(160);
  });

  it('indexes again a file that grew, and only that one', async () => {
    const grown = paths[7] as string;
    const extra = smallSession(7, 3).split('\n').slice(4).join('\n');
    appendFileSync(grown, extra);
    const after = await list(root, cacheDir);
    expect(after.indexedFiles).toBe(1);
    expect(after.sessions.find((e) => e.path === grown)).toMatchObject({ calls: 3, messages: 6 });
  }, 120_000);

  it('ignores a corrupt cache file and writes a good one in its place', async () => {
    const dir = join(base, 'cache-corrupt');
    await list(root, dir);
    writeFileSync(join(dir, CACHE_FILE), '{"version":1,"entries":{"x":');
    const again = await list(root, dir);
    expect(again.indexedFiles).toBe(320);
    expect((JSON.parse(readFileSync(join(dir, CACHE_FILE), 'utf8')) as { version: number }).version).toBe(CACHE_VERSION);
    expect((await list(root, dir)).indexedFiles).toBe(0);
  }, 240_000);

  it('ignores a cache of another version', async () => {
    const dir = join(base, 'cache-version');
    await list(root, dir);
    const doc = JSON.parse(readFileSync(join(dir, CACHE_FILE), 'utf8')) as { version: number };
    writeFileSync(join(dir, CACHE_FILE), JSON.stringify({ ...doc, version: CACHE_VERSION + 1 }));
    expect((await list(root, dir)).indexedFiles).toBe(320);
  }, 240_000);

  it('round-trips counts under their key, and answers nothing for any other key', () => {
    const counts = fc.record<IndexedCounts>({ messages: fc.nat(), calls: fc.nat(), reductions: fc.nat(), compactions: fc.nat(), tokens: fc.option(fc.nat(), { nil: null }), models: fc.array(fc.string()) });
    const key = fc.record({ size: fc.nat(), mtimeMs: fc.double({ noNaN: true, noDefaultInfinity: true, min: 0 }), ino: fc.nat() });
    let n = 0;
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), key, key, counts, (path, k, other, c) => {
        const dir = join(base, `cache-prop-${n++}`);
        const cache = new IndexCache(dir);
        cache.set(path, k, c);
        expect(cache.save([])).toBeUndefined();
        const read = new IndexCache(dir);
        expect(read.get(path, k)).toEqual(c);
        const same = other.size === k.size && Object.is(other.mtimeMs, k.mtimeMs) && other.ino === k.ino;
        if (!same) expect(read.get(path, other)).toBeUndefined();
      }),
      { numRuns: 40 },
    );
  });

  it('round-trips a path named like an Object.prototype property (__proto__, constructor)', () => {
    const c: IndexedCounts = { messages: 1, calls: 2, reductions: 3, compactions: 0, tokens: null, models: ['m'] };
    const k = { size: 10, mtimeMs: 5, ino: 7 };
    const dir = join(base, 'cache-proto');
    const cache = new IndexCache(dir);
    for (const path of ['__proto__', 'constructor', 'toString']) cache.set(path, k, c);
    expect(cache.save([])).toBeUndefined();
    const read = new IndexCache(dir);
    for (const path of ['__proto__', 'constructor', 'toString']) expect(read.get(path, k), path).toEqual(c);
  });

  it('lives in the OS cache folder, or where SESSION_INSPECTOR_CACHE_DIR says', () => {
    expect(cacheFolder({ env: {}, home: '/h', platform: 'linux' })).toBe('/h/.cache/session-inspector/library');
    expect(cacheFolder({ env: { XDG_CACHE_HOME: '/x' }, home: '/h', platform: 'linux' })).toBe('/x/session-inspector/library');
    expect(cacheFolder({ env: {}, home: '/h', platform: 'darwin' })).toBe('/h/Library/Caches/session-inspector/library');
    expect(cacheFolder({ env: { LOCALAPPDATA: 'C:\\L' }, home: 'C:\\h', platform: 'win32' })).toContain('session-inspector');
    expect(cacheFolder({ env: { SESSION_INSPECTOR_CACHE_DIR: '/t' }, home: '/h', platform: 'linux' })).toBe('/t');
  });
});

describe('the caller indexing too (docs/library.md "The caller indexes too")', () => {
  it('lists a library of every format the same as the threads alone', async () => {
    const mixed = join(base, 'mixed');
    writeMixedLibrary(mixed, 120, join(import.meta.dirname, '../..'));
    const helped = await list(mixed, undefined, { callerIndexes: true });
    expect(helped.sessions).toHaveLength(120);
    expect(helped.sessions.filter((e) => e.indexed).length).toBeGreaterThan(100);
    expect(withoutLive(helped)).toEqual(withoutLive(await list(mixed, undefined)));
  }, 120_000);
});

describe('roots', () => {
  it("are each agent's default folder, or its environment override", () => {
    const ctx = { env: {}, home: '/h', cwd: '/w', platform: 'linux' as const };
    expect(defaultRoots(ctx).map((r) => `${r.agent} ${r.path}`)).toEqual([
      'claude-code /h/.claude/projects',
      'claude-code /h/.config/claude/projects',
      'codex /h/.codex/sessions',
      'codex /h/.codex/archived_sessions',
      'inspect /w/logs',
      'swe-agent /w/trajectories',
      'mini-swe-agent /h/.config/mini-swe-agent',
      'openhands /h/.openhands/conversations',
      'openhands /h/.openhands/sessions',
    ]);
    const env = { CLAUDE_CONFIG_DIR: '/c', CODEX_HOME: '/x', INSPECT_LOG_DIR: 'l', MSWEA_GLOBAL_CONFIG_DIR: '/m' };
    expect(defaultRoots({ ...ctx, env }).map((r) => r.path).slice(0, 6)).toEqual(['/c/projects', '/x/sessions', '/x/archived_sessions', '/w/l', '/w/trajectories', '/m']);
  });

  it("are Claude Code's as Claude Code reads them: ~/.claude and the XDG config folder's claude, or one CLAUDE_CONFIG_DIR taken whole", async () => {
    const home = join(base, 'claude-home');
    const legacy = join(home, '.claude', 'projects', '-work-a');
    const xdg = join(home, '.config', 'claude', 'projects', '-work-b');
    const comma = join(base, 'one,two', 'projects', '-work-c');
    for (const d of [legacy, xdg, comma, join(base, 'one', 'projects'), join(base, 'two', 'projects')]) mkdirSync(d, { recursive: true });
    writeFileSync(join(legacy, 'a.jsonl'), smallSession(1));
    writeFileSync(join(xdg, 'b.jsonl'), smallSession(2));
    writeFileSync(join(comma, 'c.jsonl'), smallSession(3));
    // Folders a comma-separated reading would list: Claude Code never writes there for this value.
    writeFileSync(join(base, 'one', 'projects', 'x.jsonl'), smallSession(4));
    writeFileSync(join(base, 'two', 'projects', 'y.jsonl'), smallSession(5));
    const listed = async (env: Record<string, string>): Promise<string[]> => {
      const roots = defaultRoots({ env, home, cwd: base, platform: 'linux' }).filter((r) => r.agent === 'claude-code');
      const pool = indexPool({ threads: 1 });
      try {
        const listing = await listLibrary({ roots, pool, heads: true });
        return listing.sessions.map((e) => e.path).sort();
      } finally {
        pool.close();
      }
    };
    expect(await listed({})).toEqual([join(legacy, 'a.jsonl'), join(xdg, 'b.jsonl')]);
    // XDG_CONFIG_HOME moves the second one, as it moved where those builds wrote.
    expect(defaultRoots({ env: { XDG_CONFIG_HOME: '/cfg' }, home, cwd: base, platform: 'linux' }).filter((r) => r.agent === 'claude-code').map((r) => r.path)).toEqual([join(home, '.claude', 'projects'), '/cfg/claude/projects']);
    // An override replaces both defaults, and is one folder even with a comma in its name.
    expect(await listed({ CLAUDE_CONFIG_DIR: join(base, 'one,two') })).toEqual([join(comma, 'c.jsonl')]);
  });
});

describe('walking a root', () => {
  it('never yields a path outside the root, nor one reached through a link', () => {
    const session = smallSession(1);
    // A tree of folders and files, and links pointing inside and outside the root.
    const tree = fc.array(fc.record({ depth: fc.integer({ min: 0, max: 10 }), kind: fc.constantFrom('file', 'link-out-file', 'link-out-dir', 'link-in-dir', 'not-session') }), { maxLength: 12 });
    let n = 0;
    fc.assert(
      fc.property(tree, (items) => {
        const top = join(base, `walk-${n++}`);
        const root = join(top, 'root');
        const outside = join(top, 'outside');
        mkdirSync(outside, { recursive: true });
        writeFileSync(join(outside, 'out.jsonl'), session);
        const expected: string[] = [];
        items.forEach((item, k) => {
          const dir = join(root, ...Array.from({ length: item.depth }, (_, d) => `d${d}`));
          mkdirSync(dir, { recursive: true });
          const p = join(dir, `f${k}.jsonl`);
          if (item.kind === 'file') {
            writeFileSync(p, session);
            if (item.depth < 8) expected.push(p);
          } else if (item.kind === 'not-session') writeFileSync(p, 'hello\n');
          else if (item.kind === 'link-out-file') symlinkSync(join(outside, 'out.jsonl'), p);
          else if (item.kind === 'link-out-dir') symlinkSync(outside, join(dir, `l${k}`));
          else symlinkSync(root, join(dir, `l${k}`));
        });
        mkdirSync(root, { recursive: true });
        const count: WalkCount = { entries: 0, truncated: false, links: 0 };
        const found = [...walkRoot(root, count)].map((f) => f.path);
        const real = realpathSync(root);
        for (const p of found) expect(realpathSync(p).startsWith(real + sep)).toBe(true);
        expect(found.sort()).toEqual(expected.sort());
      }),
      { numRuns: 30 },
    );
  });

  it('stops at its cap of entries and says so', () => {
    const root = join(base, 'capped');
    writeSmallSessions(root, 60);
    const count: WalkCount = { entries: 0, truncated: false, links: 0 };
    const found = [...walkRoot(root, count, 20)];
    expect(count).toMatchObject({ entries: 20, truncated: true });
    expect(found.length).toBeLessThan(20);
  });
});

describe('heads', () => {
  it('decode each file once: the sniff hands its text to the head fields (docs/library.md "Scale")', async () => {
    const root = join(base, 'decoded-once');
    mkdirSync(root);
    const paths = writeSmallSessions(root, 12);
    const sizes = new Set(paths.map((p) => readFileSync(p).length));
    const proto = Buffer.prototype as unknown as { toString: (this: Buffer, ...args: unknown[]) => string };
    const real = proto.toString;
    let decodes = 0;
    // Every decode of a buffer as long as a listed file: these files are smaller than a head, so each is one.
    proto.toString = function (this: Buffer, ...args: unknown[]): string {
      if ((args[0] === 'utf8' || args[0] === undefined) && sizes.has(this.length)) decodes++;
      return real.apply(this, args);
    };
    let listed: LibraryListing;
    try {
      listed = await list(root, undefined, { heads: true });
    } finally {
      proto.toString = real;
    }
    expect(listed.sessions.map((s) => s.title).sort()).toEqual(paths.map((_, k) => `prompt 0 of session ${k}: list the files`).sort());
    expect(decodes).toBe(paths.length);
  });
});

describe('titles', () => {
  const REAL = join(import.meta.dirname, '..', '..', 'e2e', 'fixtures', 'real');
  const name = (e: { path: string }) => e.path.split(sep).pop() as string;

  it("of every real session, once indexed, are the agent's own or its first prompt; those whose first prompt lies past the head are filled by the index", async () => {
    const [indexed, heads] = [await list(REAL, undefined), await list(REAL, undefined, { heads: true })];
    expect(indexed.sessions.length).toBeGreaterThan(20);
    expect(indexed.sessions.filter((e) => e.title === null).map(name)).toEqual([]);
    const late = heads.sessions.filter((e) => e.title === null).map(name).sort();
    // A SWE-agent .traj writes its trajectory before its history, Codex desktop its instructions before the first prompt, OpenHands V1 keeps messages in event files;
    // an .eval archive not named `{created}_{task}_{id}.eval` has its task in its header.json, read by the index.
    expect(late).toEqual(['base_state.json', 'log_message_deduplication.eval', 'marshmallow-1867-function-calling-replace-from-source.traj', 'rollout-0.126-desktop-websearch-customtool-ENTIRE.jsonl']);
    const titleOf = (file: string) => indexed.sessions.find((e) => name(e) === file)?.title;
    const traj = JSON.parse(readFileSync(join(REAL, 'swe-agent', late[2] as string), 'utf8')) as { history: { role: string; content: string }[] };
    expect(titleOf(late[2] as string)).toBe(oneLine(traj.history.find((m) => m.role === 'user')?.content ?? ''));
    // The Codex desktop prompt, filled from the view, reads as the head's rule reads it from the `user_message` event (Codex's image tags left out).
    const rollout = readFileSync(join(REAL, 'codex', late[3] as string));
    expect(titleOf(late[3] as string)).toBe(headInfo('codex-rollout', late[3] as string, rollout.length, rollout).title);
    expect(titleOf(late[3] as string)).toBe('can you add this image to the top of the repo please then create a branch and make a commit');
    expect(titleOf('log_message_deduplication.eval')).toBe('inspect_test_utils/guess_number');
    // Where the head found a title, the index keeps it.
    for (const h of heads.sessions.filter((e) => e.title !== null)) expect(indexed.sessions.find((e) => e.path === h.path)?.title).toBe(h.title);
  }, 120_000);
});
