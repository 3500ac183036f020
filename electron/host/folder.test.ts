/**
 * `serve DIR`: the folder listing (`folder`) and opening an entry by its id (`openFile`),
 * over the HTTP host and the SessionHost with the worker's own answers.
 */
import { appendFileSync, copyFileSync, mkdirSync, readFileSync, renameSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ResultOf } from '../../shared/index';
import { makeHeader, messageRecord, tempDir, writeSidecar } from '../../tools/testing/files';
import type { FolderScanner } from '../listing/thread';
import { threadScanner } from '../listing/thread';
import type { CompanionKind, Hostility } from '../loader/testing/foreignFiles';
import { OUTSIDE_SECRET, buildForeignCase, fifoWriter } from '../loader/testing/foreignFiles';
import { serveFolder } from './folder';
import { createSessionHost } from './sessionHost';
import { createFakeResolverClient } from './testing/fakeClient';
import { startTestHost } from './testing/apiClient';

const ROOT = join(import.meta.dirname, '../..');
const DEMO = join(ROOT, 'samples/demo.sidecar.jsonl');
const SNAPSHOT = join(ROOT, 'samples/session.session.json');
const CLAUDE = join(ROOT, 'e2e/fixtures/real/claude-code');

const tmp = tempDir('session-inspector-folder-test-');
let folder: string;
let outside: string;
beforeAll(() => {
  mkdirSync(tmp.path('renderer'));
  folder = tmp.path('sessions');
  outside = tmp.path('outside');
  mkdirSync(folder);
  mkdirSync(outside);
  copyFileSync(DEMO, join(folder, 'demo.sidecar.jsonl'));
  copyFileSync(SNAPSHOT, join(folder, 'b.session.json'));
  writeFileSync(join(folder, 'notes.txt'), 'not a session\n');
  writeFileSync(join(folder, 'data.json'), '{"a":1}\n');
  writeFileSync(join(folder, 'empty.jsonl'), '');
  // A session file one level down: not listed (the listing is not recursive).
  mkdirSync(join(folder, 'sub'));
  copyFileSync(DEMO, join(folder, 'sub/deeper.sidecar.jsonl'));
  // Symbolic links, to a session file inside and outside, to a folder inside and outside.
  copyFileSync(DEMO, join(outside, 'secret.sidecar.jsonl'));
  symlinkSync(join(folder, 'demo.sidecar.jsonl'), join(folder, 'link-inside.sidecar.jsonl'));
  symlinkSync(join(outside, 'secret.sidecar.jsonl'), join(folder, 'link-outside.sidecar.jsonl'));
  symlinkSync(join(folder, 'sub'), join(folder, 'link-dir-inside'));
  symlinkSync(outside, join(folder, 'link-dir-outside'));
});
afterAll(() => tmp.cleanup());

const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(stops.splice(0).map((stop) => stop()));
});

async function serve(dir: string, maxScanned?: number, beforeOpen?: (paths: string[]) => Promise<void>, scanner?: FolderScanner) {
  const { api, stop } = await startTestHost(
    createFakeResolverClient(beforeOpen ? { beforeOpen } : {}),
    { files: [], folder: serveFolder(dir, { ...(maxScanned !== undefined ? { maxScanned } : {}), ...(scanner ? { scanner } : {}) }) },
    { rendererDir: tmp.path('renderer') },
  );
  stops.push(stop);
  const list = async (): Promise<ResultOf<'folder'>> => {
    const reply = await api('folder');
    if (!reply.ok) throw new Error(reply.error.message);
    return reply.value;
  };
  return { api, list };
}

const byName = (listing: ResultOf<'folder'>, name: string) => listing.entries.find((e) => e.name === name);

describe('serve DIR: the folder listing', () => {
  it('lists the session files directly in the folder, with format and size, and nothing else', async () => {
    const { list } = await serve(folder);
    const listing = await list();
    const openable = listing.entries.filter((e) => e.refused === undefined);
    expect(openable.map((e) => [e.name, e.format, e.bytes])).toEqual([
      ['b.session.json', 'supercode', 237510],
      ['demo.sidecar.jsonl', 'supercode', 1120],
    ]);
    // Not a session (text, other JSON, empty), a folder, a file in a subfolder: not listed at all.
    for (const name of ['notes.txt', 'data.json', 'empty.jsonl', 'sub', 'deeper.sidecar.jsonl']) expect(byName(listing, name), name).toBeUndefined();
    expect(listing.name).toBe('sessions');
    expect(JSON.stringify(listing)).not.toContain(tmp.dir);
  });

  it('lists every symbolic link as refused (to a file or a folder, inside or outside) and never opens one', async () => {
    const { api, list } = await serve(folder);
    const listing = await list();
    const links = ['link-inside.sidecar.jsonl', 'link-outside.sidecar.jsonl', 'link-dir-inside', 'link-dir-outside'];
    for (const name of links) {
      const entry = byName(listing, name);
      expect(entry?.refused, name).toMatch(/symbolic link/);
      expect(entry?.format).toBeUndefined();
      const reply = await api('openFile', { id: entry?.id });
      expect(reply.ok || reply.error.code, name).toBe('invalid_request');
    }
    const state = await api('state');
    expect(state.ok && state.value.session).toBeNull();
  });

  it('opens an entry by its id, and refuses ids it did not list: paths, .., other hosts\' ids', async () => {
    const { api, list } = await serve(folder);
    const listing = await list();
    const demo = byName(listing, 'demo.sidecar.jsonl');
    const opened = await api('openFile', { id: demo?.id });
    expect(opened.ok && opened.value.files.map((f) => f.path)).toEqual([join(folder, 'demo.sidecar.jsonl')]);
    for (const id of ['entry-../../outside/secret.sidecar.jsonl', '../outside/secret.sidecar.jsonl', join(outside, 'secret.sidecar.jsonl'), 'entry-0', 'entry-999', 'entry-', 'file-9']) {
      const reply = await api('openFile', { id });
      expect(reply.ok || reply.error.code, id).toBe('invalid_request');
    }
  });

  it('offers a file that appears later after a refresh, keeps the ids it gave, and refuses a file replaced by a link', async () => {
    const dir = tmp.path('growing');
    mkdirSync(dir);
    copyFileSync(DEMO, join(dir, 'first.sidecar.jsonl'));
    const { api, list } = await serve(dir);
    const before = await list();
    expect(before.entries.map((e) => e.name)).toEqual(['first.sidecar.jsonl']);
    copyFileSync(DEMO, join(dir, 'later.sidecar.jsonl'));
    // Not listed yet: its id is unknown until the listing is read again.
    const after = await list();
    expect(after.entries.map((e) => e.name)).toEqual(['first.sidecar.jsonl', 'later.sidecar.jsonl']);
    expect(byName(after, 'first.sidecar.jsonl')?.id).toBe(before.entries[0]?.id);
    const later = await api('openFile', { id: byName(after, 'later.sidecar.jsonl')?.id });
    expect(later.ok).toBe(true);

    // Replaced by a link to a file outside after it was listed: refused at open.
    unlinkSync(join(dir, 'first.sidecar.jsonl'));
    symlinkSync(join(outside, 'secret.sidecar.jsonl'), join(dir, 'first.sidecar.jsonl'));
    const swapped = await api('openFile', { id: before.entries[0]?.id });
    expect(swapped.ok || swapped.error.message).toMatch(/symbolic link/);
    // Gone: refused.
    renameSync(join(dir, 'later.sidecar.jsonl'), join(outside, 'moved.sidecar.jsonl'));
    const gone = await api('openFile', { id: byName(after, 'later.sidecar.jsonl')?.id });
    expect(gone.ok || gone.error.code).toBe('invalid_request');
  });

  it('refuses a snapshot whose sibling sidecar (which it would bring along) is a symbolic link', async () => {
    const dir = tmp.path('sibling');
    mkdirSync(dir);
    copyFileSync(SNAPSHOT, join(dir, 'run.session.json'));
    symlinkSync(join(outside, 'secret.sidecar.jsonl'), join(dir, 'run.sidecar.jsonl'));
    const { api, list } = await serve(dir);
    const listing = await list();
    expect(byName(listing, 'run.sidecar.jsonl')?.refused).toMatch(/symbolic link/);
    const reply = await api('openFile', { id: byName(listing, 'run.session.json')?.id });
    expect(reply.ok || reply.error.message).toMatch(/run\.sidecar\.jsonl, is a symbolic link/);
  });

  it('reads at most maxScanned entries of the folder and says the listing was cut', async () => {
    const dir = tmp.path('many');
    mkdirSync(dir);
    for (let k = 0; k < 10; k++) copyFileSync(DEMO, join(dir, `s${k}.sidecar.jsonl`));
    const { list } = await serve(dir, 4);
    const listing = await list();
    expect(listing.scanned).toBe(4);
    expect(listing.truncated).toBe(true);
    expect(listing.entries).toHaveLength(4);
    const full = await (await serve(dir)).list();
    expect(full).toMatchObject({ scanned: 10, truncated: false });
    expect(full.entries).toHaveLength(10);
  });

  it('lists the agent formats it recognises by content', async () => {
    const { list } = await serve(CLAUDE);
    const listing = await list();
    expect(listing.entries.length).toBeGreaterThan(0);
    expect(new Set(listing.entries.map((e) => e.format))).toEqual(new Set(['claude-code']));
  });

  it('answers not_supported on a host that serves no folder', async () => {
    const client = createFakeResolverClient();
    const host = createSessionHost({ host: 'http', client, files: [DEMO] });
    const reply = await host.handle('folder', {});
    expect(reply.ok || reply.error.code).toBe('not_supported');
    await host.dispose();
    await client.dispose();
  });
});

/**
 * An Inspect AI `.json` log of about `mib` MiB (its samples make the size), as Inspect writes it:
 * `version`, `status` and `eval` first. `head` replaces that opening (a document that is not a log).
 */
function writeLargeJson(path: string, mib: number, head = '{\n  "version": 2,\n  "status": "success",\n  "eval": {"task": "large", "model": "m/large"},\n  "plan": {},\n  "results": {},\n  "stats": {},\n  "samples": [\n'): void {
  writeFileSync(path, head);
  const sample = (k: number): string => JSON.stringify({ id: `s${k}`, epoch: 1, input: 'x'.repeat(2000), target: 'y', messages: [{ role: 'user', content: 'z'.repeat(2000) }] });
  const perChunk = 256;
  const chunkBytes = perChunk * (sample(0).length + 2);
  for (let k = 0, written = 0; written < mib * 1024 * 1024; k += perChunk, written += chunkBytes) {
    appendFileSync(path, `${k === 0 ? '' : ',\n'}${Array.from({ length: perChunk }, (_, j) => sample(k + j)).join(',\n')}`);
  }
  appendFileSync(path, '\n  ]\n}\n');
}

describe('serve DIR: a listing reads heads, off the main thread', () => {
  let large: string;
  let largeDir: string;
  beforeAll(() => {
    largeDir = tmp.path('large');
    mkdirSync(largeDir);
    large = join(largeDir, 'big-log.json');
    writeLargeJson(large, 96);
    // Opens like a log (its first key is `version`) but is none: no `eval` object.
    writeLargeJson(join(largeDir, 'other.json'), 8, '{"version": 2, "rows": [\n');
    copyFileSync(DEMO, join(largeDir, 'demo.sidecar.jsonl'));
  }, 120_000);

  it('answers other requests while a listing runs, and lists a large Inspect .json by its head (a .json that is no log is not listed)', async () => {
    // The listing thread holds before each file until released: the listing is in flight meanwhile.
    const gate = new Int32Array(new SharedArrayBuffer(8));
    const { api } = await serve(largeDir, undefined, undefined, threadScanner({ gate: gate.buffer, timeoutMs: 120_000 }));
    let listed: ResultOf<'folder'> | undefined;
    const listing = api('folder').then((reply) => {
      if (!reply.ok) throw new Error(reply.error.message);
      listed = reply.value;
    });
    await expect.poll(() => Atomics.load(gate, 1), { timeout: 30_000 }).toBe(1);
    const asked = performance.now();
    const state = await api('state');
    const answeredInMs = performance.now() - asked;
    expect(state.ok).toBe(true);
    expect(listed).toBeUndefined();
    expect(answeredInMs).toBeLessThan(1000);
    Atomics.store(gate, 0, 1);
    Atomics.notify(gate, 0);
    await listing;
    expect(listed?.entries.map((e) => [e.name, e.format])).toEqual([
      ['big-log.json', 'inspect'],
      ['demo.sidecar.jsonl', 'supercode'],
    ]);
  }, 60_000);

  it('lists a large Inspect .json in less time than reading and parsing it once takes', async () => {
    const { list } = await serve(largeDir);
    // The thread is started by a first listing: the one measured is a refresh, as a page makes them.
    await list();
    const started = performance.now();
    const listing = await list();
    const listedInMs = performance.now() - started;
    expect(byName(listing, 'big-log.json')?.format).toBe('inspect');
    const parseStarted = performance.now();
    expect((JSON.parse(readFileSync(large, 'utf8')) as { samples: unknown[] }).samples.length).toBeGreaterThan(0);
    const parsedInMs = performance.now() - parseStarted;
    // Only heads are read: far less than one read and parse of the document (the bound is half of one).
    expect(listedInMs).toBeLessThan(parsedInMs / 2);
  }, 120_000);
});

describe('serve DIR: nothing outside the folder is read, whatever is swapped in', () => {
  it('an entry replaced by a link out between its check and its open is refused on the descriptor the loader opened', async () => {
    const dir = tmp.path('race');
    mkdirSync(dir);
    const entry = join(dir, 'race.sidecar.jsonl');
    writeSidecar(entry, [makeHeader({ session_id: 'inside' }), messageRecord(0, { role: 'user', content: 'inside' })]);
    const secret = writeSidecar(join(outside, 'race-secret.sidecar.jsonl'), [makeHeader({ session_id: OUTSIDE_SECRET }), messageRecord(0, { role: 'user', content: OUTSIDE_SECRET })]);
    // The swap lands after the host's lstat check and before the loader's open: the race, made certain.
    let swap = false;
    const { api, list } = await serve(dir, undefined, () => {
      if (swap) {
        unlinkSync(entry);
        symlinkSync(secret, entry);
      }
      return Promise.resolve();
    });
    const id = byName(await list(), 'race.sidecar.jsonl')?.id;
    swap = true;
    const reply = await api('openFile', { id });
    expect(reply.ok || reply.error.message).toMatch(/symbolic link: not followed/);
    expect(JSON.stringify(reply)).not.toContain(OUTSIDE_SECRET);
  });

  const hostile: [CompanionKind, Hostility, RegExp][] = [
    ['tool-result', 'fifo', /FIFO/],
    ['tool-result', 'dev-zero', /symbolic link: not followed/],
    ['tool-results-folder', 'link-out', /resolves outside/],
    ['subagent', 'link-out', /symbolic link: not followed/],
    ['subagents-folder', 'link-out', /resolves outside/],
    ['beside-agent', 'fifo', /FIFO/],
    ['event', 'link-out', /symbolic link: not followed/],
    ['events-folder', 'link-out', /resolves outside/],
  ];
  for (const [kind, hostility, why] of hostile) {
    it(`an entry whose ${kind} is ${hostility} opens without it, with a finding; nothing from outside is served`, async () => {
      const dir = tmp.path(`companion-${kind}-${hostility}`);
      const c = buildForeignCase(dir, tmp.path(`outside-${kind}-${hostility}`), kind, hostility);
      const writer = hostility === 'fifo' ? fifoWriter(c.companion) : undefined;
      try {
        const { api, list } = await serve(dir);
        const id = byName(await list(), c.main.slice(dir.length + 1))?.id;
        expect(id).toBeDefined();
        const opened = await api('openFile', { id });
        expect(opened.ok, JSON.stringify(opened)).toBe(true);
        const report = await api('check');
        expect(report.ok && report.value.findings.map((f) => f.message).join('\n')).toMatch(why);
        const found = await api('search', { searchId: 's', query: OUTSIDE_SECRET });
        expect(found.ok && found.value.total_matches).toBe(0);
      } finally {
        writer?.kill();
      }
    });
  }
});
