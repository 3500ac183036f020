/**
 * The library while a page is open (docs/library.md "In the app"): the roots are watched, a file
 * that appeared or grew is indexed again alone and pushed to every page as `libraryChanged` on the
 * session's event stream; a file gone is removed; a link that appears is never followed; where the
 * roots cannot be watched, they are walked again now and then and the same changes are pushed.
 */
import { appendFileSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HostEvent, ResultOf } from '../../shared/index';
import { indexPool } from '../library/pool';
import type { IndexPool } from '../library/pool';
import { smallSession } from '../library/testing/generated';
import type { LibraryChange } from './library';
import { serveLibrary } from './library';
import { createSessionHost } from './sessionHost';
import { createFakeResolverClient } from './testing/fakeClient';

let base: string;
beforeAll(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'library-live-')));
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

/** A root of `count` small sessions in one project folder, and a folder outside it holding one more. */
function makeRoot(name: string, count: number): { root: string; project: string; outside: string } {
  const root = join(base, name, 'root');
  const project = join(root, '-work-a');
  const outside = join(base, name, 'outside');
  mkdirSync(project, { recursive: true });
  mkdirSync(outside, { recursive: true });
  for (let k = 0; k < count; k++) writeFileSync(join(project, `s${k}.jsonl`), smallSession(k));
  writeFileSync(join(outside, 'escaped.jsonl'), smallSession(99));
  return { root, project, outside };
}

/** The engine's pool, counting the files it is asked to index. */
function countingPool(indexed: string[]): () => IndexPool {
  return () => {
    const pool = indexPool({ threads: 1 });
    return { index: (job) => (indexed.push(job.path), pool.index(job)), close: () => pool.close(), help: () => pool.help() };
  };
}

function served(root: string, extra: Partial<Parameters<typeof serveLibrary>[0]> & { indexed: string[] }) {
  const { indexed, ...rest } = extra;
  const library = serveLibrary({ roots: [{ path: root, agent: 'given' }], cacheDir: join(root, '..', 'cache'), pool: countingPool(indexed), ...rest });
  const client = createFakeResolverClient();
  const host = createSessionHost({ host: 'http', client, files: [], library });
  const events: HostEvent[] = [];
  host.onEvent((e) => events.push(e));
  const changes = (): LibraryChange[] => events.flatMap((e) => (e.name === 'libraryChanged' ? [e.payload] : []));
  const rowNow = (file: string) => changes().flatMap((c) => c.sessions).filter((r) => r.file === file).at(-1);
  return { library, host, changes, rowNow, dispose: async () => (library.dispose(), await host.dispose(), await client.dispose()) };
}

describe('the library while a page is open', () => {
  it('pushes a new session and a grown one, indexing only those two; a link that appears is not followed; a file gone is removed', async () => {
    const { root, project, outside } = makeRoot('watched', 20);
    const indexed: string[] = [];
    const page = served(root, { indexed });
    await page.host.handle('library', {});
    await page.library.settled();
    expect(indexed).toHaveLength(20);
    indexed.length = 0;

    // Grown: a third exchange appended to s3 (2 calls → 3). New: a session in a folder that did not exist.
    appendFileSync(join(project, 's3.jsonl'), smallSession(3, 3).split('\n').slice(4).join('\n'));
    mkdirSync(join(root, '-work-b'));
    writeFileSync(join(root, '-work-b', 'new.jsonl'), smallSession(50));
    symlinkSync(join(outside, 'escaped.jsonl'), join(project, 'link.jsonl'));
    symlinkSync(outside, join(root, 'linked-folder'));

    await expect.poll(() => page.rowNow('-work-a/s3.jsonl'), { timeout: 20_000 }).toMatchObject({ calls: 3, messages: 6, live: true, indexed: true });
    await expect.poll(() => page.rowNow('-work-b/new.jsonl'), { timeout: 20_000 }).toMatchObject({ calls: 2, live: true, indexed: true });
    expect([...new Set(indexed)].sort()).toEqual([join(project, 's3.jsonl'), join(root, '-work-b', 'new.jsonl')]);
    const files = page.changes().flatMap((c) => c.sessions.map((r) => r.file));
    expect(files.some((f) => f.includes('link') || f.includes('escaped'))).toBe(false);
    // The host's own listing says the same.
    const reply = await page.host.handle('library', {});
    if (!reply.ok) throw new Error(reply.error.message);
    expect((reply.value as ResultOf<'library'>).sessions.map((r) => r.file).sort()).toEqual([...Array.from({ length: 20 }, (_, k) => `-work-a/s${k}.jsonl`), '-work-b/new.jsonl'].sort());

    unlinkSync(join(project, 's7.jsonl'));
    await expect.poll(() => page.changes().flatMap((c) => c.removed), { timeout: 20_000 }).toEqual([{ file: '-work-a/s7.jsonl', root: '0' }]);
    await page.dispose();
  }, 60_000);

  it('where the roots are not watched, walks them again and pushes the same changes', async () => {
    const { root, project } = makeRoot('rewalked', 5);
    const indexed: string[] = [];
    const page = served(root, { indexed, watch: false, rewalkMs: 200 });
    await page.host.handle('library', {});
    await page.library.settled();
    appendFileSync(join(project, 's1.jsonl'), smallSession(1, 3).split('\n').slice(4).join('\n'));
    await expect.poll(() => page.rowNow('-work-a/s1.jsonl'), { timeout: 20_000 }).toMatchObject({ calls: 3, live: true });
    await page.dispose();
  }, 60_000);
});
