import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResultOf } from '../../shared/index';
import { libraryRoots, processRootsContext } from '../library/roots';
import type { LibraryHome } from '../library/testing/libraryHome';
import { makeLibraryHome, treeFingerprint } from '../library/testing/libraryHome';
import { serveLibrary } from './library';
import { createSessionHost } from './sessionHost';
import { createFakeResolverClient } from './testing/fakeClient';

const SAMPLES = join(import.meta.dirname, '../../samples');

/** The host's `library` answer once its listing has finished. */
async function listed(host: ReturnType<typeof createSessionHost>, library: ReturnType<typeof serveLibrary>): Promise<ResultOf<'library'>> {
  const first = await host.handle('library', {});
  expect(first.ok).toBe(true);
  await library.settled();
  const reply = await host.handle('library', {});
  if (!reply.ok) throw new Error(reply.error.message);
  return reply.value as ResultOf<'library'>;
}

describe('the HTTP host serves the session library (serve with no FILE)', () => {
  let home: LibraryHome;
  beforeAll(() => {
    home = makeLibraryHome();
  });
  afterAll(() => home.restore());

  function hostOverHome() {
    const library = serveLibrary({ roots: libraryRoots([], false, processRootsContext(home.home)), fallback: SAMPLES, cacheDir: home.cache });
    const client = createFakeResolverClient();
    const host = createSessionHost({ host: 'http', client, files: [], library });
    return { library, client, host, dispose: async () => (library.dispose(), await host.dispose(), await client.dispose()) };
  }

  it('lists every session of the agents folders with its place and counts, and nothing a walk must skip', async () => {
    const before = home.roots.map(treeFingerprint);
    const { host, library, dispose } = hostOverHome();
    const reply = await listed(host, library);
    expect(reply.complete).toBe(true);
    expect(reply.samples).toBe(false);
    const places = reply.sessions.map((s) => join(reply.roots[Number(s.root)]?.path as string, s.file));
    expect(places.sort()).toEqual([...home.sessions].sort());
    for (const p of home.notSessions) expect(places).not.toContain(p);
    // Counts are filled by indexing (the engine's own tests hold them to the loader's).
    const compacted = reply.sessions.find((s) => join(reply.roots[Number(s.root)]?.path as string, s.file) === home.compacted);
    expect(compacted?.indexed).toBe(true);
    expect(compacted?.compactions).toBeGreaterThan(0);
    // Newest first.
    const updated = reply.sessions.map((s) => s.updated);
    expect(updated).toEqual([...updated].sort().reverse());
    expect(home.roots.map(treeFingerprint)).toEqual(before);
    await dispose();
  });

  it('opens a listed place by its root id and relative path, inside that root only', async () => {
    const { host, library, client, dispose } = hostOverHome();
    const reply = await listed(host, library);
    const entry = reply.sessions.find((s) => join(reply.roots[Number(s.root)]?.path as string, s.file) === home.compacted);
    if (!entry) throw new Error('the compacted session is not listed');
    const opened = await host.handle('openLink', { file: entry.file, root: entry.root });
    // The session names its place, so the page's link (and a reload) opens it again.
    expect(opened).toMatchObject({ ok: true, value: { link_file: { path: entry.file, root: entry.root } } });
    expect(client.calls).toContain(`open:${home.compacted}`);
    await dispose();
  });

  it('librarySearch finds text a compaction hid, with a link that opens the session at it; a later search of the same tab cancels it, a search of another tab does not', async () => {
    const { host, library, dispose } = hostOverHome();
    await listed(host, library);
    const hiddenText = 'fail to open the repository in that case';
    const first = host.handle('librarySearch', { query: 'the', searchId: 'a' });
    const second = host.handle('librarySearch', { query: hiddenText.toUpperCase(), searchId: 'b' });
    expect(await first).toMatchObject({ ok: false, error: { code: 'cancelled' } });
    const found = await second;
    if (!found.ok) throw new Error(found.error.message);
    const { sessions } = found.value as ResultOf<'librarySearch'>;
    expect(sessions.map((s) => s.file)).toEqual(['-Users-x-app/cc-2.0.76-compact-boundary.jsonl']);
    expect(sessions[0]?.hidden).toBeGreaterThanOrEqual(1);
    const hidden = sessions[0]?.first.find((m) => m.hidden);
    expect(hidden?.snippet.toLowerCase()).toContain(hiddenText);
    // Each snippet's match range holds the match (case ignored, as the search was).
    for (const m of sessions[0]?.first ?? []) expect(Buffer.from(m.snippet).subarray(...m.snippet_match).toString().toLowerCase()).toBe(hiddenText);
    expect(hidden?.link).toMatch(/^#file=-Users-x-app\/cc-2\.0\.76-compact-boundary\.jsonl&root=0&call=\d+&reduction=cc-compact-L31&q=/);
    // Another tab's search is its own: a search here does not stop it.
    const otherClient = createFakeResolverClient();
    const otherTab = createSessionHost({ host: 'http', client: otherClient, files: [], library });
    const theirs = otherTab.handle('librarySearch', { query: hiddenText, searchId: 'b' });
    const mine = host.handle('librarySearch', { query: 'zq-nothing-zq', searchId: 'c' });
    expect(await theirs).toMatchObject({ ok: true, value: { sessions: [{ file: '-Users-x-app/cc-2.0.76-compact-boundary.jsonl' }] } });
    expect(await mine).toMatchObject({ ok: true, value: { sessions: [] } });
    await otherTab.dispose();
    await otherClient.dispose();
    // The link's file and root open that session.
    const opened = await host.handle('openLink', { file: sessions[0]?.file, root: sessions[0]?.root });
    expect(opened.ok).toBe(true);
    await dispose();
  }, 120_000);

  it('refuses a place the listing did not name: a link, a path out of the root, a FIFO, another root', async () => {
    const { host, library, client, dispose } = hostOverHome();
    const reply = await listed(host, library);
    const claude = reply.roots.findIndex((r) => r.agent === 'claude-code');
    const projects = reply.roots[claude]?.path as string;
    const asked = [
      { file: relative(projects, home.notSessions[3] as string), root: String(claude) },
      { file: 'link-out/escaped.jsonl', root: String(claude) },
      { file: relative(projects, home.notSessions[2] as string), root: String(claude) },
      { file: relative(projects, home.compacted), root: String(claude + 1) },
      { file: relative(projects, home.compacted), root: '99' },
    ];
    for (const place of asked) {
      const answer = await host.handle('openLink', place);
      expect(answer.ok, JSON.stringify(place)).toBe(false);
    }
    expect(client.calls.filter((c) => c.startsWith('open:'))).toEqual([]);
    await dispose();
  });
});

describe('the library where no agent folder exists', () => {
  let base: string;
  beforeAll(() => {
    base = mkdtempSync(join(tmpdir(), 'library-empty-'));
    mkdirSync(join(base, 'home'));
  });
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  it('is the bundled samples, and the reply names every folder it looked in', async () => {
    const context = { env: {}, home: join(base, 'home'), cwd: base, platform: process.platform };
    const roots = libraryRoots([], false, context);
    const library = serveLibrary({ roots, fallback: SAMPLES, cacheDir: join(base, 'cache') });
    const client = createFakeResolverClient();
    const host = createSessionHost({ host: 'http', client, files: [], library });
    const reply = await listed(host, library);
    expect(reply.samples).toBe(true);
    expect(reply.roots.map((r) => r.path)).toEqual([...roots.map((r) => r.path), SAMPLES]);
    expect(reply.roots.slice(0, -1).every((r) => !r.exists)).toBe(true);
    expect(reply.sessions.length).toBeGreaterThan(0);
    expect(reply.sessions.every((s) => s.root === String(roots.length))).toBe(true);
    const first = reply.sessions[0];
    if (!first) throw new Error('no sample listed');
    expect(await host.handle('openLink', { file: first.file, root: first.root })).toMatchObject({ ok: true });
    expect(client.calls).toContain(`open:${join(realpathSync(SAMPLES), first.file)}`);
    library.dispose();
    await host.dispose();
    await client.dispose();
  });

  it('a host without a library answers not_supported', async () => {
    const client = createFakeResolverClient();
    const host = createSessionHost({ host: 'http', client, files: [] });
    expect(await host.handle('library', {})).toMatchObject({ ok: false, error: { code: 'not_supported' } });
    await host.dispose();
    await client.dispose();
  });
});
