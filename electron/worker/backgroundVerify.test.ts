import fc from 'fast-check';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import type { ChatMessage, Reduction } from '../../shared/index';
import { MAX_MATCHES, MAX_RESULT_BYTES, SNIPPET_MAX_BYTES, methods } from '../../shared/index';
import { makeReduction, tool, user } from '../../shared/testing/builders';
import { makeHeader, messageRecord, reductionRecord, tempDir, writeSidecar } from '../../tools/testing/files';
import { backgroundThreads } from '../loader/content/backgroundVerify';
import type { ContentEvents } from '../loader/content/contentServices';
import { createContentServices } from '../loader/content/contentServices';
import { SessionService } from './service';
import { WARM_UP_QUERY, WARM_UP_SEARCHES, commonWarmUpWord, warmUpQueries } from './handlers/background';
import { SEARCH_PAGE_SIZE } from '../../shared/search/searchPage';
import { searchOptions } from './handlers/search';
import type { SearchSignal, WarmUpBound } from './state';
import { SearchPool } from './searchPool';
import { loadSession } from '../loader/session';
import { SidecarReader } from '../loader/native/sidecarReader';

const tmp = tempDir('session-inspector-bgverify-');
afterAll(() => tmp.cleanup());

const services: SessionService[] = [];
/** What the contents of the services `opened` makes report: each test sets the listeners it counts with. */
const events: ContentEvents = {};
afterEach(() => {
  delete events.hashComputed;
  delete events.keptBoundaryDecoded;
  for (const s of services.splice(0)) s.close();
});

/**
 * Tool outputs long enough to be read from the file (not parsed with their record) and short enough
 * not to be hashed while indexing; escapes of every kind the fast loop decodes, and one it leaves to
 * the general decoder (a lone surrogate).
 */
function output(k: number): string {
  const line = `\u001b[31merror\u001b[0m TS${2300 + k}: "needle-${k}"\tat src/file${k}.ts\\`;
  return Array.from({ length: 200 }, () => line).join('\n') + (k === 3 ? '\ud800' : '');
}

const CONTENTS = 6;

/** A sidecar whose outputs are all truncated to 10 bytes; `tamper` gives that one a wrong hash. */
function sidecar(name: string, tamper?: number): string {
  const view: ChatMessage[] = [user('go')];
  for (let k = 0; k < CONTENTS; k++) view.push(tool(output(k), `c${k}`));
  const log: Reduction[] = [];
  for (let k = 0; k < CONTENTS; k++) {
    const r = makeReduction(view, { id: `r${k}`, kind: 'tool_output_truncated', index: k + 1, kept_bytes: 10 });
    log.push(k === tamper ? { ...r, ptr: { ...r.ptr, hash: `sha256:${'0'.repeat(64)}` } } : r);
  }
  return writeSidecar(tmp.path(name), [makeHeader(), ...view.map((m, i) => messageRecord(i, m)), ...log.map(reductionRecord)]);
}

async function opened(path: string, minBytes = 0): Promise<SessionService> {
  const s = new SessionService({ services: createContentServices({ events }) }, undefined, {}, undefined, { minBytes });
  services.push(s);
  const reply = await s.open({ paths: [path], generation: 1, follow: false });
  if (!reply.ok) throw new Error(`open failed: ${reply.error.code}: ${reply.error.message}`);
  return s;
}

function search(s: SessionService, query: string) {
  const reply = s.searchAtOnce(methods.search.params.parse({ searchId: 's', query }));
  if (!reply.ok) throw new Error(`search failed: ${reply.error.code}`);
  return reply.value;
}

describe('hashes verified in the background after the open', () => {
  it('then the first search\'s own work is done in idle time: that search reads no record of a hidden content, and finds the same', async () => {
    const path = sidecar('prepared.sidecar.jsonl');
    const records = vi.spyOn(SidecarReader.prototype, 'message');
    try {
      // A search sent at once resolves every content itself.
      const fresh = await opened(path);
      records.mockClear();
      const expected = search(fresh, 'needle-');
      const readAtOnce = records.mock.calls.length;
      fresh.close();

      const s = await opened(path);
      await s.whenPrepared();
      records.mockClear();
      const found = search(s, 'needle-');
      expect(found).toEqual(expected);
      // Only the rows the matches are placed in are read: one record per content fewer.
      expect(records.mock.calls.length).toBeLessThanOrEqual(readAtOnce - CONTENTS);
    } finally {
      records.mockRestore();
    }
  });

  it('a search after the background verification computes no hash itself and finds what it finds without it', async () => {
    const path = sidecar('bg.sidecar.jsonl');
    // Without the background work: a fresh service whose search runs before the verification starts.
    const before = await opened(path);
    let computed = 0;
    events.hashComputed = () => computed++;
    const expected = search(before, 'needle-');
    expect(computed).toBe(CONTENTS);
    before.close();

    const s = await opened(path);
    const verified = await s.whenVerified();
    // Every hidden content but the one with a lone surrogate (left to the general decoder, here).
    expect(verified).toEqual({ contents: CONTENTS, hashed: CONTENTS - 1, located: CONTENTS });
    computed = 0;
    const found = search(s, 'needle-');
    expect(computed).toBe(1);
    expect(found).toEqual(expected);
    expect(found.total_matches).toBe(CONTENTS * 200);
    // Hashes are remembered: a second search computes none either.
    computed = 0;
    search(s, 'needle-');
    expect(computed).toBe(0);
  });

  it('a search after the background pass decodes no kept boundary itself, with the same result as a search that decoded them', async () => {
    const path = sidecar('bounds.sidecar.jsonl');
    let decoded = 0;
    events.keptBoundaryDecoded = () => decoded++;
    const before = await opened(path);
    const expected = search(before, 'needle-');
    const decodedBefore = decoded;
    before.close();

    const s = await opened(path);
    expect(await s.whenVerified()).toMatchObject({ located: CONTENTS });
    decoded = 0;
    expect(search(s, 'needle-')).toEqual(expected);
    // Saved: each truncation's floor of kept_bytes and the raw offset of that floor; what is
    // left are the snippets' own boundaries, as before.
    expect(decodedBefore - decoded).toBe(2 * CONTENTS);
    const snippets = decoded;
    decoded = 0;
    search(s, 'needle-');
    expect(decoded).toBe(snippets);
  });

  it('starts no thread below its least work, and searches the same', async () => {
    const path = sidecar('small.sidecar.jsonl');
    const expected = search(await opened(path), 'needle-');
    const s = await opened(path, 1024 * 1024);
    expect(await s.whenVerified()).toBeNull();
    let computed = 0;
    events.hashComputed = () => computed++;
    expect(search(s, 'needle-')).toEqual(expected);
    expect(computed).toBe(CONTENTS);
    // The default: 32 MiB of work.
    const d = new SessionService();
    services.push(d);
    expect((await d.open({ paths: [path], generation: 1, follow: false })).ok).toBe(true);
    expect(await d.whenVerified()).toBeNull();
  });

  it('without a thread, the first search\'s own work is still done in idle time, and no warm-up runs: that search hashes nothing, reads no record of a hidden content, and finds the same', async () => {
    const path = sidecar('unthreaded.sidecar.jsonl');
    const records = vi.spyOn(SidecarReader.prototype, 'message');
    let computed = 0;
    events.hashComputed = () => computed++;
    const pool = new SearchPool({ threads: 1, minBytes: 1, split: () => true });
    try {
      // A search sent at once resolves and hashes every content itself.
      const fresh = await opened(path, 1 << 30);
      records.mockClear();
      computed = 0;
      const expected = search(fresh, 'needle-');
      const readAtOnce = records.mock.calls.length;
      expect(computed).toBe(CONTENTS);
      fresh.close();
      computed = 0;

      const signals: SearchSignal[] = [];
      const s = new SessionService({ services: createContentServices({ events }) }, undefined, {}, pool, { minBytes: 1 << 30, warmUp: { budgetMs: 1e9 } }, () => {
        const signal = { aborted: false };
        signals.push(signal);
        return signal;
      });
      services.push(s);
      const reply = await s.open({ paths: [path], generation: 1, follow: false });
      if (!reply.ok) throw new Error(`open failed: ${reply.error.code}`);
      expect(await s.whenVerified()).toBeNull();
      await s.whenPrepared();
      // Hashed in idle time, not by the search.
      expect(computed).toBe(CONTENTS);
      // No warm-up search was sent, and the pool scanned nothing.
      expect(signals).toHaveLength(0);
      expect(pool.windowsRead()).toBe(0);
      records.mockClear();
      computed = 0;
      expect(search(s, 'needle-')).toEqual(expected);
      expect(computed).toBe(0);
      expect(records.mock.calls.length).toBeLessThanOrEqual(readAtOnce - CONTENTS);
    } finally {
      records.mockRestore();
      await pool.close();
    }
  });

  it('starts the thread while the files are indexed; an open that fails, is superseded or leaves it nothing to do ends it', async () => {
    const path = sidecar('early.sidecar.jsonl');
    const s = await opened(path);
    // Handed its work after the reply: it verifies as a thread started after the reply did.
    expect(await s.whenVerified()).toEqual({ contents: CONTENTS, hashed: CONTENTS - 1, located: CONTENTS });
    await expect.poll(backgroundThreads).toBe(0);
    const failed = await s.open({ paths: [tmp.path('missing.sidecar.jsonl')], generation: 2, follow: false });
    expect(failed.ok).toBe(false);
    await expect.poll(backgroundThreads).toBe(0);
    // Superseded by a close while indexing.
    const open = s.open({ paths: [path], generation: 3, follow: false });
    s.close();
    expect((await open).ok).toBe(false);
    expect(await s.whenVerified()).toBeNull();
    await expect.poll(backgroundThreads).toBe(0);
    // Nothing read from the file to verify: outputs too short to be kept there.
    const small = writeSidecar(tmp.path('short.sidecar.jsonl'), [makeHeader(), messageRecord(0, user('go')), messageRecord(1, tool('short', 'c0')), reductionRecord(makeReduction([user('go'), tool('short', 'c0')], { id: 'r0', kind: 'tool_output_truncated', index: 1, kept_bytes: 2 }))]);
    expect((await s.open({ paths: [small], generation: 4, follow: false })).ok).toBe(true);
    expect(await s.whenVerified()).toBeNull();
    await expect.poll(backgroundThreads).toBe(0);
  });

  it('counts each kept boundary as 16 KiB of work: contents all hashed while indexing still get their boundaries found', async () => {
    // Two outputs over HASH_AT_INDEX_BYTES (hashed while indexing): only their kept boundaries are left.
    const big = (k: number) => `${'\u001b[2m'}${`output ${k} line\n`.repeat(80_000)}`;
    const view: ChatMessage[] = [user('go'), tool(big(0), 'c0'), tool(big(1), 'c1')];
    const log = [1, 2].map((index) => makeReduction(view, { id: `r${index}`, kind: 'tool_output_truncated', index, kept_bytes: 100 }));
    const path = writeSidecar(tmp.path('hashed.sidecar.jsonl'), [makeHeader(), ...view.map((m, i) => messageRecord(i, m)), ...log.map(reductionRecord)]);
    const below = await opened(path, 2 * 16 * 1024 + 1);
    expect(await below.whenVerified()).toBeNull();
    const s = await opened(path, 2 * 16 * 1024);
    expect(await s.whenVerified()).toEqual({ contents: 2, hashed: 0, located: 2 });
  });

  it('a search while the thread runs hashes each content once between them, with the same result', async () => {
    const path = sidecar('racing.sidecar.jsonl');
    const expected = search(await opened(path), 'needle-');
    const s = await opened(path);
    let computed = 0;
    events.hashComputed = () => computed++;
    // The verification has started (after the reply); the thread may have done none, some or all.
    await new Promise<void>((resolve) => setImmediate(resolve));
    const found = search(s, 'needle-');
    const verified = await s.whenVerified();
    expect(found).toEqual(expected);
    expect(verified?.contents).toBe(CONTENTS);
    expect(computed + (verified?.hashed ?? 0)).toBe(CONTENTS);
  });

  it('a tampered content is still refused: not searched, and expand and verify say hash_mismatch', async () => {
    const path = sidecar('tampered.sidecar.jsonl', 2);
    const s = await opened(path);
    expect(await s.whenVerified()).toMatchObject({ contents: CONTENTS });
    let computed = 0;
    events.hashComputed = () => computed++;
    const found = search(s, 'needle-');
    expect(computed).toBe(1);
    expect(found.total_matches).toBe((CONTENTS - 1) * 200);
    expect(found.matches.every((m) => m.reduction_id !== 'r2')).toBe(true);
    const expand = s.handle('expand', methods.expand.params.parse({ id: 'r2' }));
    expect(expand.ok ? 'ok' : expand.error.code).toBe('hash_mismatch');
    const verify = s.handle('verify', methods.verify.params.parse({ ids: ['r1', 'r2'] }));
    if (!verify.ok) throw new Error(verify.error.code);
    expect(verify.value.statuses.map((r) => r.status)).toEqual(['verified', 'hash_mismatch']);
  });

  it('close stops the thread: nothing is verified after it, and a new open verifies its own session', async () => {
    const path = sidecar('closed.sidecar.jsonl');
    const s = await opened(path);
    const verifying = s.whenVerified();
    s.close();
    const ended = await verifying;
    // Stopped after at most the content in hand (it may have finished before the stop was seen).
    expect(ended === null || ended.hashed <= CONTENTS).toBe(true);
    expect(await s.whenVerified()).toBeNull();
    const again = await s.open({ paths: [path], generation: 2, follow: false });
    expect(again.ok).toBe(true);
    expect(await s.whenVerified()).toEqual({ contents: CONTENTS, hashed: CONTENTS - 1, located: CONTENTS });
  });
});

describe('warm-up searches after the open', () => {
  async function withPool(body: (pool: SearchPool) => Promise<void>): Promise<void> {
    const pool = new SearchPool({ threads: 1, minBytes: 1, split: () => true });
    try {
      await body(pool);
    } finally {
      await pool.close();
    }
  }

  async function openedWith(path: string, pool: SearchPool, idleSignal?: () => SearchSignal, warmUp?: WarmUpBound): Promise<SessionService> {
    const s = new SessionService({}, undefined, {}, pool, { minBytes: 0, ...(warmUp ? { warmUp } : {}) }, idleSignal);
    services.push(s);
    const reply = await s.open({ paths: [path], generation: 1, follow: false });
    if (!reply.ok) throw new Error(`open failed: ${reply.error.code}: ${reply.error.message}`);
    return s;
  }

  it('search for words of the hidden text, each other than the last and found by a search, over the pool, before any search is sent', async () => {
    const path = sidecar('warm.sidecar.jsonl');
    const loaded = await loadSession([path]);
    if (!loaded.ok) throw new Error(loaded.error.message);
    try {
      const words = warmUpQueries(loaded.session, 3);
      expect(words.length).toBeGreaterThan(1);
      expect(new Set(words).size).toBe(words.length);
      for (const word of words) {
        expect(word).toMatch(/^[A-Za-z0-9_-]{6,24}$/);
        const found = loaded.session.search(word);
        expect(found.ok && found.value.total_matches).toBeGreaterThan(0);
      }
    } finally {
      loaded.session.close();
    }
    await withPool(async (pool) => {
      const s = await openedWith(path, pool);
      await s.whenPrepared();
      // The pool scanned the file with no search sent: the warm-ups did.
      expect(pool.windowsRead()).toBeGreaterThan(0);
      expect(search(s, 'needle-')).toEqual(search(await opened(path), 'needle-'));
    });
  });

  it('are sent as searches are: each with a signal of its own, as a search sent then would get', async () => {
    const path = sidecar('warm-each.sidecar.jsonl');
    await withPool(async (pool) => {
      const signals: SearchSignal[] = [];
      const s = await openedWith(
        path,
        pool,
        () => {
          const signal = { aborted: false };
          signals.push(signal);
          return signal;
        },
        // A budget no loaded machine spends: every warm-up runs.
        { budgetMs: 1e9 },
      );
      await s.whenPrepared();
      expect(signals).toHaveLength(WARM_UP_SEARCHES);
      expect(new Set(signals).size).toBe(WARM_UP_SEARCHES);
      expect(pool.windowsRead()).toBeGreaterThan(0);
    });
  });

  it('every search request gets options of one shape: its bounds as numbers (an absent one its default), the mode as a literal', () => {
    const bare = searchOptions(methods.search.params.parse({ searchId: 'a', query: 'x' }), undefined, undefined);
    const signal = { aborted: false };
    const full = searchOptions(
      methods.search.params.parse({ searchId: 'b', query: 'x', mode: 'regex', case_sensitive: false, max_matches: 7, snippet_max_bytes: 9, max_result_bytes: 1000 }),
      signal,
      () => undefined,
    );
    expect(Object.keys(full)).toEqual(Object.keys(bare));
    expect(bare).toMatchObject({ mode: 'substring', case_sensitive: true, max_matches: MAX_MATCHES, snippet_max_bytes: SNIPPET_MAX_BYTES, max_result_bytes: MAX_RESULT_BYTES });
    expect(full).toMatchObject({ mode: 'regex', case_sensitive: false, max_matches: 7, snippet_max_bytes: 9, max_result_bytes: 1000, signal });
  });

  it('end, with nothing scanned, when a search was sent before they began (the idle signal is raised)', async () => {
    const path = sidecar('warm-signal.sidecar.jsonl');
    await withPool(async (pool) => {
      const s = await openedWith(path, pool, () => ({ aborted: true }));
      await s.whenPrepared();
      expect(pool.windowsRead()).toBe(0);
    });
  });

  it('give way to a search that begins meanwhile, which finds what it finds without them', async () => {
    const path = sidecar('warm-race.sidecar.jsonl');
    const expected = search(await opened(path), 'needle-');
    await withPool(async (pool) => {
      const s = await openedWith(path, pool);
      await s.whenVerified();
      // The preparation and the warm-ups run in idle slices from here: the search begins first.
      const found = await s.handle('search', methods.search.params.parse({ searchId: 's', query: 'needle-' }));
      await s.whenPrepared();
      expect(found.ok ? found.value : found.error).toEqual(expected);
    });
  });

  it('stop at their time bound: none starts once the budget is spent', async () => {
    const path = sidecar('warm-bound.sidecar.jsonl');
    await withPool(async (pool) => {
      // A clock that moves 400 ms each time a warm-up starts (when it takes its signal), and not otherwise.
      let clock = 0;
      let started = 0;
      const s = await openedWith(
        path,
        pool,
        () => {
          started++;
          clock += 400;
          return { aborted: false };
        },
        { budgetMs: 1000, now: () => clock },
      );
      await s.whenPrepared();
      // Started at 0, 400 and 800 ms; at 1,200 ms the budget is spent.
      expect(started).toBe(3);
      expect(WARM_UP_SEARCHES).toBeGreaterThan(3);
    });
  });

  it('give way for good to any request: one arriving during a warm-up is answered before the warm-ups end, and none starts after it', async () => {
    const path = sidecar('warm-request.sidecar.jsonl');
    await withPool(async (pool) => {
      let started = 0;
      let prepared = false;
      let answered: { ok: boolean; whilePreparing: boolean } | undefined;
      const service: { s?: SessionService } = {};
      const s = await openedWith(
        path,
        pool,
        () => {
          started++;
          // The first warm-up has begun (it takes its signal): a request arrives now.
          if (started === 1) {
            const reply = service.s?.handle('log', methods.log.params.parse({}));
            answered = { ok: reply?.ok === true, whilePreparing: !prepared };
          }
          return { aborted: false };
        },
        { budgetMs: 1e9 },
      );
      service.s = s;
      await s.whenVerified();
      await s.whenPrepared();
      prepared = true;
      expect(answered).toEqual({ ok: true, whilePreparing: true });
      expect(started).toBe(1);
    });
  });

  it('search first for a word the hidden text repeats, which finds a page of matches, then for each content\'s longest word', async () => {
    // Each output repeats a word shorter than its one long word: the longest words find one match each.
    const view: ChatMessage[] = [user('go')];
    for (let k = 0; k < 8; k++) view.push(tool(`${'status: ok\n'.repeat(30)}token_only_here_${k}x\n`, `c${k}`));
    const log = view.slice(1).map((_, k) => makeReduction(view, { id: `r${k}`, kind: 'tool_output_elided', index: k + 1 }));
    const path = writeSidecar(tmp.path('common.sidecar.jsonl'), [makeHeader(), ...view.map((m, i) => messageRecord(i, m)), ...log.map(reductionRecord)]);
    const loaded = await loadSession([path]);
    if (!loaded.ok) throw new Error(loaded.error.message);
    try {
      const words = warmUpQueries(loaded.session, 3);
      expect(words[0]).toBe('status');
      const found = loaded.session.search('status');
      expect(found.ok && found.value.total_matches).toBeGreaterThanOrEqual(SEARCH_PAGE_SIZE);
      // The rest as before: the longest word of each content from the middle of the log on.
      expect(words.slice(1)).toEqual(['token_only_here_4x', 'token_only_here_5x']);
    } finally {
      loaded.session.close();
    }
  });

  it('take as the common word the one in the most samples (then found most often, then longest), and none when no word is in two', () => {
    const word = fc.constantFrom<string>('alpha1', 'beta22', 'gamma333', 'delta4', 'eps55555');
    fc.assert(
      fc.property(fc.array(fc.array(word, { maxLength: 6 }), { maxLength: 6 }), (samples) => {
        const inSamples = (w: string): number => samples.filter((words) => words.includes(w)).length;
        const times = (w: string): number => samples.flat().filter((x) => x === w).length;
        const all = [...new Set(samples.flat())];
        const common = commonWarmUpWord(samples);
        if (common === null) {
          expect(all.every((w) => inSamples(w) < 2)).toBe(true);
          return;
        }
        expect(inSamples(common)).toBeGreaterThanOrEqual(2);
        for (const w of all) {
          expect(inSamples(w)).toBeLessThanOrEqual(inSamples(common));
          if (inSamples(w) === inSamples(common)) {
            expect(times(w)).toBeLessThanOrEqual(times(common));
            if (times(w) === times(common)) expect(w.length).toBeLessThanOrEqual(common.length);
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it('take a word from none of the hidden text when it has none: the fixed query', async () => {
    const view: ChatMessage[] = [user('go'), tool('1234567 ... 89012345 --- '.repeat(40), 'c0')];
    const log: Reduction[] = [makeReduction(view, { id: 'r0', kind: 'tool_output_elided', index: 1 })];
    const path = writeSidecar(tmp.path('wordless.sidecar.jsonl'), [makeHeader(), ...view.map((m, i) => messageRecord(i, m)), ...log.map(reductionRecord)]);
    const loaded = await loadSession([path]);
    if (!loaded.ok) throw new Error(loaded.error.message);
    try {
      expect(warmUpQueries(loaded.session)).toEqual([WARM_UP_QUERY]);
    } finally {
      loaded.session.close();
    }
  });
});
