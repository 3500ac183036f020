/** The library's indexing threads (docs/library.md "Scale"): cores minus one, at least one; many jobs queued answer each; close cancels what waits. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { indexPool, libraryBundle, libraryThreads } from './pool';
import { writeSmallSessions } from './testing/generated';

describe('the library pool', () => {
  let base: string;
  let paths: string[];
  beforeAll(() => {
    base = mkdtempSync(join(tmpdir(), 'library-pool-'));
    paths = writeSmallSessions(base, 12);
  });
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  it('leaves one core to the caller, and has at least one thread', () => {
    expect([1, 2, 3, 8].map((cores) => libraryThreads(cores))).toEqual([1, 1, 2, 7]);
  });

  it('answers every job queued beyond its threads, each with its own counts; close answers what waits `cancelled`', async () => {
    expect(libraryBundle()).toBeDefined();
    const pool = indexPool({ threads: 1 });
    try {
      const replies = await Promise.all(paths.map((path) => pool.index({ path, root: base, place: { rel: path.slice(base.length + 1), rootId: '0' } })));
      expect(replies.map((r) => (r.ok ? [r.counts.messages, r.counts.calls] : r.message))).toEqual(paths.map(() => [4, 2]));
      const waiting = paths.map((path) => pool.index({ path, root: base, place: { rel: path.slice(base.length + 1), rootId: '0' } }));
      pool.close();
      expect(await Promise.all(waiting)).toEqual(paths.map(() => ({ ok: false, message: 'cancelled' })));
    } finally {
      pool.close();
    }
  });
});
