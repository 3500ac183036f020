/** The library's indexing threads (docs/library.md "Scale"): cores minus one, at least one; many jobs queued answer each; close cancels what waits. */
import { copyFileSync, existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IndexJob } from './index';
import { indexFile } from './index';
import { FormatRuns, HELP_MAX_BYTES, indexPool, libraryBundle, libraryThreads } from './pool';
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

  describe('helped by the calling thread (docs/library.md "The caller indexes too")', () => {
    // Three rounds of the sessions: more jobs than a thread is sent ahead, so some wait to be helped with.
    const jobs = (bytes: (path: string) => number | undefined): IndexJob[] =>
      [0, 1, 2].flatMap(() =>
        paths.map((path) => {
          const b = bytes(path);
          return { path, root: base, place: { rel: path.slice(base.length + 1), rootId: '0' }, ...(b !== undefined ? { bytes: b } : {}) };
        }),
      );

    it('indexes waiting jobs of small files itself, with the replies indexing gives', async () => {
      const pool = indexPool({ threads: 1 });
      try {
        const all = jobs((path) => statSync(path).size);
        const replies = all.map((job) => pool.index(job));
        const helped = await pool.help();
        expect(helped).toBeGreaterThan(0);
        expect(helped).toBeLessThan(all.length);
        expect(await Promise.all(replies)).toEqual(await Promise.all(all.map((job) => indexFile(job))));
      } finally {
        pool.close();
      }
    });

    it('hands a job of a file over HELP_MAX_BYTES, or of unknown size, to a thread', async () => {
      const pool = indexPool({ threads: 1 });
      try {
        const all = jobs((path) => (path.endsWith('0.jsonl') ? undefined : HELP_MAX_BYTES + 1));
        const replies = all.map((job) => pool.index(job));
        expect(await pool.help()).toBe(0);
        expect((await Promise.all(replies)).map((r) => (r.ok ? [r.counts.messages, r.counts.calls] : r.message))).toEqual(all.map(() => [4, 2]));
      } finally {
        pool.close();
      }
    });

    it('stops when the pool is closed: every job not yet answered, its own included, answers `cancelled`', async () => {
      const pool = indexPool({ threads: 1 });
      const replies = jobs((path) => statSync(path).size).map((job) => pool.index(job));
      const helping = pool.help();
      pool.close();
      expect(await helping).toBe(1);
      expect(await Promise.all(replies)).toEqual(replies.map(() => ({ ok: false, message: 'cancelled' })));
    });

    it('has nothing to do without threads: each job ran as it was asked', async () => {
      const pool = indexPool({ script: null });
      try {
        const reply = pool.index(jobs(() => 1)[0] as IndexJob);
        expect(await pool.help()).toBe(0);
        expect((await reply).ok).toBe(true);
      } finally {
        pool.close();
      }
    });
  });
});

const ROOT = resolve(__dirname, '../..');

describe.skipIf(!existsSync(join(ROOT, 'dist/library.cjs')))('the built thread requires the packages only some files need from their own chunks (scripts/build.mjs)', () => {
  it('holds none of their code, and answers what the sources answer on an archive, a zstd archive, an invalid record and a regex query', async () => {
    // The pool below runs this bundle.
    expect(dirname(libraryBundle() ?? '')).toBe(join(ROOT, 'dist'));
    const text = readFileSync(join(ROOT, 'dist/library.cjs'), 'utf8');
    // re2js's engine class and zod's error class are in their chunks, not in the thread's bundle.
    expect(readFileSync(join(ROOT, 'dist/cli-lib-re2js.cjs'), 'utf8')).toContain('class RE2JS');
    expect(text).not.toContain('class RE2JS');
    expect(text).not.toContain('ZodError');
    const base = realpathSync(mkdtempSync(join(tmpdir(), 'library-lazy-')));
    try {
      const demo = join(ROOT, 'samples/demo.sidecar.jsonl');
      const invalid = join(base, 'invalid.sidecar.jsonl');
      // A reduction record without the kept bytes its kind needs: zod words the finding.
      writeFileSync(invalid, readFileSync(demo, 'utf8').replace('"kept_bytes":15,', ''));
      for (const name of ['zstd.eval', 'stored.eval', 'bad-crc.eval']) copyFileSync(join(ROOT, 'e2e/fixtures/synthetic/inspect', name), join(base, name));
      copyFileSync(demo, join(base, 'demo.sidecar.jsonl'));
      const job = (name: string, query?: IndexJob['query']): IndexJob => ({ path: join(base, name), root: base, place: { rel: name, rootId: '0' }, ...(query ? { query } : {}) });
      const jobs = [job('zstd.eval'), job('stored.eval'), job('bad-crc.eval'), job('invalid.sidecar.jsonl'), job('demo.sidecar.jsonl', { query: 'got \\d', regex: true, ignoreCase: false })];
      const pool = indexPool({ threads: 1 });
      try {
        const threaded = await Promise.all(jobs.map((j) => pool.index(j)));
        const here = await Promise.all(jobs.map((j) => indexFile(j)));
        expect(threaded).toEqual(here);
        // Each answered something real: counts of the archives' samples, the query's matches.
        expect(threaded.filter((r) => r.ok && r.counts.messages > 0).length).toBeGreaterThanOrEqual(3);
        const searched = threaded[4];
        expect(searched?.ok === true ? (searched.matches?.hidden ?? 0) + (searched.matches?.visible ?? 0) : 0).toBeGreaterThan(0);
      } finally {
        pool.close();
      }
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });
});

describe('FormatRuns (the pool\'s waiting jobs, in runs of one format)', () => {
  it('hands out each job once: the oldest of the format handed out last, else the oldest of all; drain gives the rest oldest first (fast-check)', () => {
    const formats = [undefined, 'claude-code', 'codex-rollout', 'inspect-eval'] as const;
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.constantFrom(...formats).map((format) => ({ push: format })), fc.constant({ take: true })), { maxLength: 80 }), (steps) => {
        const queue = new FormatRuns<{ job: { format?: string }; n: number }>();
        // The model: every waiting item in push order, and the format of the last one taken.
        let waiting: { job: { format?: string }; n: number }[] = [];
        let current: string | undefined;
        let pushed = 0;
        for (const step of steps) {
          if ('push' in step) {
            const item = { job: step.push === undefined ? {} : { format: step.push }, n: pushed++ };
            queue.push(item);
            waiting.push(item);
          } else {
            const got = queue.take();
            const same = waiting.find((w) => w.job.format === current);
            const expected = same ?? waiting[0];
            expect(got).toBe(expected);
            if (expected) {
              current = expected.job.format;
              waiting = waiting.filter((w) => w !== expected);
            }
          }
          expect(queue.size).toBe(waiting.length);
        }
        expect(queue.drain()).toEqual(waiting);
        expect(queue.size).toBe(0);
        expect(queue.take()).toBeUndefined();
      }),
      { numRuns: 1000 },
    );
  });
});
