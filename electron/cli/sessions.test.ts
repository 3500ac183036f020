import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LibraryEntry } from '../library/library';
import type { LibraryHome } from '../library/testing/libraryHome';
import { makeLibraryHome, treeFingerprint } from '../library/testing/libraryHome';
import { rawClaudeCodeCalls, rawClaudeCodeUsage } from '../loader/testing/rawCalls';
import { main } from './main';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

const never = (): Promise<void> => new Promise<void>(() => undefined);

async function cli(argv: string[], untilStopped: () => Promise<void> = never): Promise<Run> {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s) }, {}, { untilStopped });
  return { code, stdout, stderr };
}

interface Listing {
  roots: { path: string; agent: string; exists: boolean; sessions: number }[];
  sessions: LibraryEntry[];
}

let lib: LibraryHome;
let before: string[][];

beforeAll(() => {
  lib = makeLibraryHome();
  before = lib.roots.map(treeFingerprint);
});
afterAll(() => lib.restore());

describe('sessions over a HOME holding four agents', () => {
  let listing: Listing;
  beforeAll(async () => {
    const run = await cli(['sessions']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    listing = JSON.parse(run.stdout) as Listing;
  }, 120_000);

  it('lists exactly the sessions: no subagent file, tool result, FIFO or anything behind a link', () => {
    expect(listing.sessions.map((e) => e.path).sort()).toEqual([...lib.sessions].sort());
    for (const p of lib.notSessions) expect(listing.sessions.map((e) => e.path)).not.toContain(p);
  });

  it('reports every root it considered, a missing one with exists false', () => {
    const byAgent = (agent: string) => listing.roots.filter((r) => r.agent === agent);
    expect(byAgent('claude-code')).toEqual([
      { path: join(lib.home, '.claude', 'projects'), agent: 'claude-code', exists: true, sessions: 2 },
      { path: join(lib.home, '.config', 'claude', 'projects'), agent: 'claude-code', exists: false, sessions: 0 },
    ]);
    expect(byAgent('codex').map((r) => [r.path, r.sessions])).toEqual([
      [join(lib.home, '.codex', 'sessions'), 1],
      [join(lib.home, '.codex', 'archived_sessions'), 2],
    ]);
    expect(byAgent('inspect')[0]?.sessions).toBe(2);
    expect(byAgent('swe-agent')[0]?.sessions).toBe(1);
    expect(byAgent('mini-swe-agent')[0]?.exists).toBe(false);
  });

  it('sorts newest updated first', () => {
    const times = listing.sessions.map((e) => e.updated);
    expect(times).toEqual([...times].sort().reverse());
  });

  it("gives each entry's counts as view, log and check give them on the same file", async () => {
    for (const e of listing.sessions) {
      expect(e.indexed, e.path).toBe(true);
      const view = JSON.parse((await cli(['view', e.path])).stdout) as { calls: number };
      const log = JSON.parse((await cli(['log', e.path])).stdout) as { reductions: { kind: string; group?: string }[] };
      const check = JSON.parse((await cli(['check', e.path])).stdout) as { summary: { messages: number; sessions: unknown[] } };
      expect(e.calls, e.path).toBe(view.calls);
      expect(e.reductions, e.path).toBe(log.reductions.length);
      expect(e.messages, e.path).toBe(check.summary.messages);
      expect(e.sessions ?? 1, e.path).toBe(check.summary.sessions.length);
      expect(e.bytes).toBe(statSync(e.path).size);
    }
  }, 240_000);

  it('takes the head metadata from the records: title, project, branch, models, times', () => {
    const cc = listing.sessions.find((e) => e.path === lib.compacted) as LibraryEntry;
    expect(cc).toMatchObject({ format: 'claude-code', id: '198393f2-22db-477b-ac77-1825bea883ae', project: '/Users/soph/Work/entire/devenv/cli', branch: 'soph/bugfix-for-inconsistent-session-state', started: '2026-01-07T11:47:31.774Z', updated: '2026-01-07T12:38:42.261Z', compactions: 1, tokens: lastRecordedContext(lib.compacted) });
    expect(cc.title).toMatch(/^for the change in cmd\/entire\/cli\/hooks_claudecode_handlers\.go/);
    expect(Array.from(cc.title ?? '').length).toBeLessThanOrEqual(120);
    expect(cc.models).toContain('claude-opus-4-5-20251101');
    const codex = listing.sessions.find((e) => e.format === 'codex' && e.project === '/Users/soph/Work/entire/devenv/git-sync') as LibraryEntry;
    expect(codex).toMatchObject({ id: '019ed628-d563-7e40-bbb1-93a6a302d688', models: ['gpt-5.5'] });
    expect(codex.title).toMatch(/^Review the code changes against the base branch 'main'/);
    const inspect = listing.sessions.find((e) => e.path.endsWith('security-guide.json')) as LibraryEntry;
    expect(inspect).toMatchObject({ title: 'security_guide', status: 'success', models: ['openai/gpt-4o-mini'] });
    // An .eval archive's header is read while it is indexed (its directory is at its end, not in its head).
    const archive = listing.sessions.find((e) => e.path.endsWith('.eval')) as LibraryEntry;
    expect(archive).toMatchObject({ title: 'popularity', status: 'success', id: expect.any(String) as string });
    expect(archive.started.startsWith('2025-02-11')).toBe(true);
  });

  it('writes nothing in the roots: every byte, mode and time as before', () => {
    expect(lib.roots.map(treeFingerprint)).toEqual(before);
  });

  it('keeps its cache in the cache folder, user-only', () => {
    expect(statSync(lib.cache).mode & 0o777).toBe(0o700);
    expect(statSync(join(lib.cache, 'index.json')).mode & 0o777).toBe(0o600);
  });
});

describe('sessions where none of the agents\' folders exists', () => {
  const ROOT = join(import.meta.dirname, '..', '..');
  const KEYS = ['HOME', 'INSPECT_LOG_DIR', 'SWE_AGENT_TRAJECTORY_DIR'] as const;
  let saved: (string | undefined)[];
  let empty: string;
  beforeAll(() => {
    saved = KEYS.map((k) => process.env[k]);
    empty = mkdtempSync(join(tmpdir(), 'no-agents-'));
    process.env.HOME = empty;
    process.env.INSPECT_LOG_DIR = join(empty, 'logs');
    process.env.SWE_AGENT_TRAJECTORY_DIR = join(empty, 'trajectories');
  });
  afterAll(() => {
    KEYS.forEach((k, i) => (saved[i] === undefined ? delete process.env[k] : (process.env[k] = saved[i])));
    rmSync(empty, { recursive: true, force: true });
  });
  const run = async (argv: string[]): Promise<Run> => {
    let stdout = '';
    let stderr = '';
    const code = await main(argv, { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s) }, {}, { untilStopped: never, packageRoot: ROOT });
    return { code, stdout, stderr };
  };

  it('lists the bundled samples, says so, and still names every folder it looked in', async () => {
    const out = JSON.parse((await run(['sessions', '--heads'])).stdout) as Listing & { samples?: boolean };
    const samples = join(ROOT, 'samples');
    expect(out.samples).toBe(true);
    expect(out.roots.at(-1)).toMatchObject({ path: samples, exists: true });
    expect(out.roots.slice(0, -1).every((r) => !r.exists && r.path.startsWith(empty))).toBe(true);
    expect(out.roots.slice(0, -1).map((r) => r.agent)).toEqual(expect.arrayContaining(['claude-code', 'codex', 'inspect', 'swe-agent', 'openhands']));
    expect(out.sessions.length).toBeGreaterThan(0);
    expect(out.sessions.every((e) => e.path.startsWith(samples + sep))).toBe(true);
    expect((await run(['sessions', '--heads', '--table'])).stdout).toContain('the bundled samples are listed');
  }, 120_000);

  it('lists nothing of the samples when a folder is named, or with --no-default-roots', async () => {
    const named = JSON.parse((await run(['sessions', '--heads', empty])).stdout) as Listing & { samples?: boolean };
    expect(named.samples).toBeUndefined();
    expect(named.sessions).toEqual([]);
    const none = JSON.parse((await run(['sessions', '--heads', '--no-default-roots'])).stdout) as Listing & { samples?: boolean };
    expect(none).toMatchObject({ roots: [], sessions: [] });
    expect(none.samples).toBeUndefined();
  }, 120_000);

  it('lists no samples where the install has none, and names only the folders it looked in', async () => {
    let stdout = '';
    await main(['sessions', '--heads'], { stdout: (s) => (stdout += s), stderr: () => undefined }, {}, { untilStopped: never, packageRoot: empty });
    const out = JSON.parse(stdout) as Listing & { samples?: boolean };
    expect(out.samples).toBeUndefined();
    expect(out.sessions).toEqual([]);
    expect(out.roots.every((r) => !r.exists)).toBe(true);
  }, 120_000);
});

describe('sessions --query', () => {
  it('finds text a compaction hid from the model, with a link that opens at it', async () => {
    const run = await cli(['sessions', '--query', 'fail to open the repository in that case']);
    expect(run.code).toBe(0);
    const out = JSON.parse(run.stdout) as Listing & { search: { max_matches_per_session: number; max_sessions: number; truncated: boolean } };
    expect(out.sessions.map((e) => e.path)).toEqual([lib.compacted]);
    const m = out.sessions[0]?.matches;
    expect(m?.hidden).toBeGreaterThanOrEqual(1);
    const hidden = m?.first.find((f) => f.reduction !== undefined);
    expect(hidden?.reduction).toBe('cc-compact-L31');
    expect(hidden?.snippet).toContain('fail to open the repository in that case');
    // Every snippet says where its match is: the UTF-8 bytes of its range are the query.
    for (const f of m?.first ?? []) expect(Buffer.from(f.snippet).subarray(...f.snippet_match).toString()).toBe('fail to open the repository in that case');
    // The link opens at the latest call: the number of calls `view` gives for the same file.
    const calls = (JSON.parse((await cli(['view', lib.compacted])).stdout) as { calls: number }).calls;
    expect(hidden?.link).toBe(`#file=-Users-x-app/cc-2.0.76-compact-boundary.jsonl&root=0&call=${calls}&reduction=cc-compact-L31&q=${encodeURIComponent('fail to open the repository in that case')}`);
    expect(out.search).toMatchObject({ truncated: false });
    expect(out.search.max_sessions).toBeGreaterThan(0);
  }, 120_000);

  it('--table gives each matching session its matches seen by the model and hidden from it, as the JSON counts them', async () => {
    const query = ['sessions', '--query', 'fail to open the repository in that case'];
    const json = JSON.parse((await cli(query)).stdout) as Listing;
    const [head, ...rows] = (await cli([...query, '--table'])).stdout.split('\n\n')[0]?.split('\n') ?? [];
    expect(head).toMatch(/ +SIZE +SEEN +HIDDEN$/);
    expect(rows.map((r) => r.split(/ +/).slice(-2).map(Number))).toEqual(json.sessions.map((e) => [e.matches?.visible, e.matches?.hidden]));
    expect(json.sessions.some((e) => (e.matches?.hidden ?? 0) > 0)).toBe(true);
  }, 120_000);

  it('lists none when nothing matches', async () => {
    const none = JSON.parse((await cli(['sessions', '--query', 'zq-no-such-text-zq'])).stdout) as Listing;
    expect(none.sessions).toEqual([]);
  }, 120_000);

  it('refuses an invalid pattern before reading any session', async () => {
    const run = await cli(['sessions', '--regex', '--query', '(unclosed']);
    expect(run.code).toBe(2);
    expect(JSON.parse(run.stdout)).toMatchObject({ error: { code: 'invalid_query' } });
  });
});

describe('sessions output modes', () => {
  it('--heads prints at once from the heads: counts null, indexed false', async () => {
    const out = JSON.parse((await cli(['sessions', '--heads'])).stdout) as Listing;
    expect(out.sessions).toHaveLength(lib.sessions.length);
    for (const e of out.sessions) expect(e).toMatchObject({ messages: null, calls: null, reductions: null, compactions: null, indexed: false });
  });

  it('--jsonl prints one entry a line, then the roots', async () => {
    const lines = (await cli(['sessions', '--jsonl'])).stdout.trimEnd().split('\n');
    const entries = lines.slice(0, -1).map((l) => JSON.parse(l) as LibraryEntry);
    expect(entries.map((e) => e.path).sort()).toEqual([...lib.sessions].sort());
    expect(JSON.parse(lines.at(-1) as string)).toHaveProperty('roots');
  }, 120_000);

  it('--table aligns its columns and lets no control character of a title reach the terminal', async () => {
    const hostile = join(lib.base, 'hostile');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(hostile);
    writeFileSync(join(hostile, 's.jsonl'), `${JSON.stringify({ type: 'user', sessionId: 's', cwd: '/w', timestamp: '2026-01-01T00:00:00Z', uuid: 'u1', parentUuid: null, message: { role: 'user', content: 'evil \u001b]52;c;SGVsbG8=\u0007 title' } })}\n`);
    const run = await cli(['sessions', hostile, '--no-default-roots', '--table']);
    expect(run.code).toBe(0);
    // eslint-disable-next-line no-control-regex -- the point: none of them is printed
    expect(run.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    const [head, row] = run.stdout.split('\n');
    expect(head).toMatch(/^AGENT +TITLE +PROJECT +UPDATED +CALLS +COMPACTIONS +TOKENS +SIZE$/);
    expect(row).toContain('evil ␛]52;c;SGVsbG8=␇ title');
    expect(row?.indexOf('/w')).toBe(head?.indexOf('PROJECT'));
  }, 120_000);

  it('--since and --format keep only what they name', async () => {
    const out = JSON.parse((await cli(['sessions', '--heads', '--format', 'codex', '--since', '2026-01-01'])).stdout) as Listing;
    // Two of the three Codex sessions were last updated in 2026; the archived vscode one in 2025.
    expect(out.sessions.map((e) => e.format)).toEqual(['codex', 'codex']);
    for (const e of out.sessions) expect(e.updated >= '2026-01-01').toBe(true);
    expect((await cli(['sessions', '--since', 'yesterday-ish'])).code).toBe(2);
    expect((await cli(['sessions', '--format', 'gemini'])).code).toBe(2);
  });

  it('a stop (SIGINT) ends the listing at once: exit 2, cancelled', async () => {
    const run = await cli(['sessions', '--query', 'x'], () => Promise.resolve());
    expect(run.code).toBe(2);
    expect(JSON.parse(run.stdout)).toEqual({ error: { code: 'cancelled', message: expect.any(String) as string } });
  }, 60_000);

  it('--help names the command', async () => {
    expect((await cli(['--help'])).stdout).toContain('sessions [DIR...] [--query Q]');
  });
});

/** SPEC §14 `tokens`: the last recorded context of the file, read from its raw usage records. */
function lastRecordedContext(path: string): number | null {
  const usage = rawClaudeCodeUsage(path);
  const contexts = rawClaudeCodeCalls(path).flatMap((c) => {
    const u = usage.get(c.line);
    return u ? [u.context] : [];
  });
  return contexts.at(-1) ?? null;
}
