/**
 * The library streamed to the pages as a listing runs (docs/library.md "Scale"): head rows reach a
 * page before any file is indexed, counts follow as each is indexed, and whatever order the
 * indexing threads answer in, the rows merged from the pushes are the table the one-shot listing
 * (`sessions`) gives, in the same order.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventPayload } from '../../shared/index';
import { mergeLibraryChange } from '../../shared/libraryOrder';
import type { IndexJob, IndexReply } from '../library/index';
import { listLibrary } from '../library/library';
import type { IndexPool } from '../library/pool';
import { indexPool } from '../library/pool';
import { MIXED_LIBRARY_SOURCES, writeMixedLibrary } from '../library/testing/generated';
import { serveLibrary } from './library';

const REPO = join(import.meta.dirname, '../..');
/** Every source twice: copies of one file share their times, so the order's tie-break is exercised. */
const FILES = MIXED_LIBRARY_SOURCES.length * 2;
/** A day after the files were written: no row is `live`, however long the test takes. */
const NOW = Date.now() + 86_400_000;
const now = (): number => NOW;

type Row = EventPayload<'libraryChanged'>['sessions'][number];

/** A pool that answers each job only when told to (its replies made beforehand, by the real engine). */
function heldPool(replies: ReadonlyMap<string, IndexReply>) {
  const waiting: { job: IndexJob; answer: (reply: IndexReply) => void }[] = [];
  let onJob = (): void => undefined;
  const pool: IndexPool = {
    index: (job) =>
      new Promise<IndexReply>((answer) => {
        waiting.push({ job, answer });
        onJob();
      }),
    close: () => undefined,
    help: () => Promise.resolve(0),
  };
  return {
    pool,
    /** Resolves once `n` jobs wait. */
    jobs: (n: number): Promise<void> =>
      new Promise<void>((resolve) => {
        const check = (): void => {
          if (waiting.length >= n) resolve();
        };
        onJob = check;
        check();
      }),
    /** Answers the waiting jobs in the order `order` gives (indices into the jobs in the order they came). */
    release(order: readonly number[]): void {
      const jobs = [...waiting];
      for (const k of order) {
        const w = jobs[k] as (typeof jobs)[number];
        w.answer(replies.get(w.job.path) ?? { ok: false, message: 'no reply made' });
      }
    },
  };
}

describe('the host streams a listing to the pages as it runs', () => {
  let base: string;
  let root: string;
  /** The one-shot listing's table (what `sessions` prints), as the page's rows. */
  let oneShot: Row[];
  const replies = new Map<string, IndexReply>();

  beforeAll(async () => {
    base = mkdtempSync(join(tmpdir(), 'library-stream-'));
    root = join(base, 'root');
    writeMixedLibrary(root, FILES, REPO);
    const pool = indexPool({ script: null });
    const recording: IndexPool = { index: async (job) => { const reply = await pool.index(job); replies.set(job.path, reply); return reply; }, close: () => pool.close(), help: () => pool.help() };
    const listing = await listLibrary({ roots: [{ path: root, agent: 'given' }], pool: recording, now });
    oneShot = listing.sessions.map((e) => ({
      file: relative(e.root, e.path).split(sep).join('/'),
      root: '0',
      format: e.format,
      title: e.title,
      project: e.project,
      started: e.started,
      updated: e.updated,
      bytes: e.bytes,
      messages: e.messages,
      calls: e.calls,
      reductions: e.reductions,
      compactions: e.compactions,
      tokens: e.tokens,
      live: e.live,
      indexed: e.indexed,
      ...(e.error !== undefined ? { error: e.error } : {}),
    }));
  }, 120_000);
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  /** Lists through the host with `held`, hearing every push; `release` answers the jobs once all wait. */
  async function streamed(release: (held: ReturnType<typeof heldPool>) => void) {
    const held = heldPool(replies);
    const library = serveLibrary({ roots: [{ path: root, agent: 'given' }], pool: () => held.pool, watch: false, now });
    const pushes: EventPayload<'libraryChanged'>[] = [];
    let ended: () => void = () => undefined;
    const complete = new Promise<void>((resolve) => (ended = resolve));
    let firstRows: (change: EventPayload<'libraryChanged'>) => void = () => undefined;
    const first = new Promise<EventPayload<'libraryChanged'>>((resolve) => (firstRows = resolve));
    library.subscribe((change) => {
      pushes.push(change);
      if (change.sessions.length > 0) firstRows(change);
      if (change.complete === true) ended();
    });
    try {
      expect(library.snapshot().complete).toBe(false);
      await held.jobs(FILES);
      const early = await first;
      release(held);
      await complete;
      let rows: Row[] = [];
      for (const change of pushes) rows = mergeLibraryChange(rows, change);
      return { early, rows, pushes, snapshot: library.snapshot() };
    } finally {
      library.dispose();
    }
  }

  it('pushes head rows before any file is indexed, then their counts; the rows merged are the one-shot listing, in its order', async () => {
    const { early, rows, pushes, snapshot } = await streamed((held) => held.release(Array.from({ length: FILES }, (_, k) => k)));
    // The first rows arrived while no job had been answered: heads only, the listing not complete.
    expect(early.complete).toBe(false);
    expect(early.sessions.length).toBeGreaterThan(0);
    expect(early.sessions.every((r) => !r.indexed && r.calls === null)).toBe(true);
    expect(early.progress?.indexed).toBe(0);
    // The last push says the listing ended, with every file found and indexed.
    expect(pushes.at(-1)).toMatchObject({ complete: true, progress: { found: FILES, indexed: FILES } });
    expect(oneShot).toHaveLength(FILES);
    expect(oneShot.every((r) => r.indexed && r.error === undefined)).toBe(true);
    expect(rows).toEqual(oneShot);
    expect(snapshot.sessions).toEqual(oneShot);
    expect(snapshot.complete).toBe(true);
  }, 120_000);

  it('any order the threads answer in gives the same table', async () => {
    await fc.assert(
      fc.asyncProperty(fc.shuffledSubarray(Array.from({ length: FILES }, (_, k) => k), { minLength: FILES, maxLength: FILES }), async (order) => {
        const { rows } = await streamed((held) => held.release(order));
        expect(rows).toEqual(oneShot);
      }),
      { numRuns: 8 },
    );
  }, 300_000);
});
