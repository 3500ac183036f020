/**
 * The real resolver worker (dist/worker.cjs, built by buildWorker.setup.ts) driven through its real
 * message channel by createResolverClient. No test sleeps: each waits on a reply, an event, or the
 * worker saying a search has begun.
 */
import { createHash } from 'node:crypto';
import { createWriteStream, existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ChatMessage, EventPayload, HostEvent, ParsedParams, Reduction } from '../../shared/index';
import { MAX_REGEX_PROGRAM_SIZE, methods, ptrHash, stubText } from '../../shared/index';
import { makeHeader, messageRecord, reductionRecord, tempDir, writeElidedOutputs, writeVisibleOutput } from '../../tools/testing/files';
import type { ResolverClientOptions, WorkerResolverClient } from './client';
import { createResolverClient, defaultWorkerPath } from './client';

const SAMPLES = join(import.meta.dirname, '../../samples');
const DEMO = join(SAMPLES, 'demo.sidecar.jsonl');
const GENERATED = join(SAMPLES, 'session.sidecar.jsonl');

const tmp = tempDir('session-inspector-worker-');
afterAll(() => tmp.cleanup());

const clients: WorkerResolverClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.dispose()));
});

function client(options: ResolverClientOptions = {}): WorkerResolverClient {
  const c = createResolverClient(options);
  clients.push(c);
  return c;
}

function value<T>(reply: { ok: true; value: T } | { ok: false; error: { code: string; message: string } }): T {
  if (!reply.ok) throw new Error(`expected ok, got ${reply.error.code}: ${reply.error.message}`);
  return reply.value;
}

function params<M extends keyof typeof methods>(method: M, raw: unknown): ParsedParams<M> {
  return methods[method].params.parse(raw) as ParsedParams<M>;
}

/** A client with the session `path` open, and the workerRestarted events it emits from then on. */
async function openWatched(path: string, options: ResolverClientOptions = {}): Promise<{ c: WorkerResolverClient; restarts: HostEvent[] }> {
  const c = client(options);
  value(await c.open([path], 1));
  const restarts: HostEvent[] = [];
  c.onEvent((e) => {
    if (e.name === 'workerRestarted') restarts.push(e);
  });
  return { c, restarts };
}

/** Resolves with the first event named `name` the client emits from now on. */
function nextEvent<N extends HostEvent['name']>(c: WorkerResolverClient, name: N): Promise<EventPayload<N>> {
  return new Promise((resolve) => {
    const off = c.onEvent((event) => {
      if (event.name !== name) return;
      off();
      resolve(event.payload as EventPayload<N>);
    });
  });
}

/**
 * A session with `outputs` tool outputs of `outputBytes` lowercase bytes each, every one elided:
 * outputs × outputBytes bytes of hidden content, no nine capitals in a row anywhere.
 */
async function writeLargeSession(path: string, outputs: number, outputBytes: number): Promise<string> {
  const out = createWriteStream(path);
  const write = (record: object) => new Promise<void>((resolve, reject) => out.write(JSON.stringify(record) + '\n', (e) => (e ? reject(e) : resolve())));
  await write(makeHeader({ session_id: 's-large' }));
  await write(messageRecord(0, { role: 'user', content: 'read every log' }));
  const words = ['alpha ', 'beta ', 'gamma ', 'delta ', 'log line ', 'step 17 ', 'ok\n'];
  const reductions: Reduction[] = [];
  for (let k = 0; k < outputs; k++) {
    let content = '';
    for (let w = k; content.length < outputBytes; w++) content += words[w % words.length] as string;
    content = content.slice(0, outputBytes);
    const call: ChatMessage = { role: 'assistant', content: '', tool_calls: [{ id: `call_${k}`, name: 'shell', arguments: '{"cmd":"cat log"}' }] };
    const output: ChatMessage = { role: 'tool', tool_call_id: `call_${k}`, content };
    const index = 2 + 2 * k;
    await write(messageRecord(index - 1, call));
    await write(messageRecord(index, output));
    const id = `r${k}`;
    reductions.push({
      id,
      kind: 'tool_output_elided',
      ptr: { index, hash: ptrHash(createHash('sha256').update(content).digest('hex')), bytes: outputBytes },
      stub: stubText(id, 'tool_output_elided', outputBytes),
      minted_at: index + 1,
    });
  }
  for (const r of reductions) await write(reductionRecord(r));
  await new Promise<void>((resolve) => out.end(resolve));
  return path;
}

describe('the worker bundle', () => {
  it('is built where the client looks for it', () => {
    expect(defaultWorkerPath()).toBe(join(import.meta.dirname, '../../dist/worker.cjs'));
    expect(existsSync(defaultWorkerPath())).toBe(true);
  });
});

describe('the resolver worker over its message channel', () => {
  it('opens the demo with progress events, then answers rows, expand, search, log, verify and check', async () => {
    const c = client();
    const progress: EventPayload<'loadProgress'>[] = [];
    c.onEvent((e) => {
      if (e.name === 'loadProgress') progress.push(e.payload);
    });
    const info = value(await c.open([DEMO], 3));
    expect(info).toMatchObject({ generation: 3, session_id: 's-demo', messages: 4, rows: 4, reductions: 1, stopped: false });
    const size = statSync(DEMO).size;
    expect(progress.length).toBeGreaterThan(0);
    expect(progress.at(-1)).toEqual({ generation: 3, bytesRead: size, totalBytes: size });

    const rows = value(await c.request('rows', params('rows', { start: 0, end: 10 })));
    expect(rows.rowCount).toBe(4);
    expect(rows.rows[2]).toMatchObject({ row: 2, index: 2, role: 'tool', applied: 'r1', reductions: [{ id: 'r1', kind: 'tool_output_truncated' }] });
    expect(rows.rows[2]?.text.startsWith('PASS a.test.ts\n⟦reduced⟧ id=r1')).toBe(true);
    expect(value(await c.request('rowOfIndex', { index: 2 }))).toEqual({ row: 2 });

    expect(value(await c.request('expand', { id: 'r1', range: [31, 41] }))).toMatchObject({ content: '— expecte', range: [30, 41], total_bytes: 67, source: 'minted' });
    expect(await c.request('expand', { id: 'r9' })).toMatchObject({ ok: false, error: { code: 'unknown_reduction' } });

    const found = value(await c.request('search', params('search', { searchId: 'q1', query: 'FAIL' })));
    expect(found).toMatchObject({ total_matches: 1, matches: [{ reduction_id: 'r1', offset: 15, length: 4, snippet_match: [0, 4] }] });
    expect(value(await c.request('log', {})).entries).toMatchObject([{ reduction: { id: 'r1' }, line: 7 }]);
    expect(value(await c.request('verify', { ids: ['r1'] })).statuses).toEqual([{ id: 'r1', status: 'verified', source: 'minted', total_bytes: 67, hidden_bytes: 52, provenance: 'recorded', hash_origin: 'recorded' }]);
    expect(value(await c.request('check', {})).findings).toEqual([]);

    await c.close();
    expect(await c.request('rows', params('rows', { start: 0, end: 1 }))).toMatchObject({ ok: false, error: { code: 'no_session' } });
  });

  it('validates params in the worker and answers errors as values', async () => {
    const c = client();
    expect(await c.request('rows', params('rows', { start: 0, end: 1 }))).toMatchObject({ ok: false, error: { code: 'no_session' } });
    // Params the host should have validated are checked again on arrival.
    expect(await c.request('rows', { start: 5, end: 1 })).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
    expect(await c.open([join(SAMPLES, 'does-not-exist.sidecar.jsonl')], 1)).toMatchObject({ ok: false, error: { code: 'unreadable_file' } });
    expect(await c.open([], 1)).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
    expect(c.cancelSearch('nothing-in-flight')).toBe(false);
    // Without testHooks the fault hooks are refused.
    expect(await c.injectFault('crash')).toMatchObject({ ok: false, error: { code: 'not_supported' } });
  });

  it.runIf(existsSync(GENERATED))('opens the generated sample session', async () => {
    const c = client();
    const info = value(await c.open([GENERATED], 1));
    expect(info.stopped).toBe(false);
    const rows = value(await c.request('rows', params('rows', { start: 0, end: Math.min(info.rows, 500) })));
    expect(rows.rowCount).toBe(info.rows);
    expect(rows.rows).toHaveLength(Math.min(info.rows, 500));
    const { entries } = value(await c.request('log', {}));
    expect(entries).toHaveLength(info.reductions);
    const first = entries[0];
    if (first) {
      const slice = value(await c.request('expand', { id: first.reduction.id, range: [0, 100] }));
      expect(slice.range[1]).toBeLessThanOrEqual(100);
    }
    expect(value(await c.request('check', {})).summary.reductions).toBe(info.reductions);
  });
});

describe('cancelling a search', () => {
  let large: string;
  const OUTPUTS = 400;
  const OUTPUT_BYTES = 100_000; // 40 MB hidden, searched one 100 kB output at a time

  beforeAll(async () => {
    large = await writeLargeSession(tmp.path('large.sidecar.jsonl'), OUTPUTS, OUTPUT_BYTES);
  });

  // No nine capitals in a row anywhere, and no literal for the engine to skip ahead with: the
  // regex scans every byte, for seconds.
  const SLOW = { query: '[A-Z]{9}', mode: 'regex' } as const;

  it('shows the first rows of a large sidecar before its open resolves; search waits for the whole session', async () => {
    const c = client();
    const preview = nextEvent(c, 'sessionPreview');
    const opening = c.open([large], 3);
    const info = await preview;
    expect(info).toMatchObject({ generation: 3, provisional: true });
    // Answered over the records read so far, or over the whole file when the open got there first
    // (indexed on two cores, the 40 MB file can finish between the event and the request): the
    // rows of one of the two, never a mix.
    const rows = value(await c.request('rows', params('rows', { start: 0, end: 3 })));
    expect(rows.rows[0]?.text).toBe('read every log');
    const searching = c.request('search', params('search', { searchId: 'during', query: 'log line zz' }));
    const whole = value(await opening);
    expect(whole.provisional).toBeUndefined();
    expect(whole.rows).toBeGreaterThan(info.rows);
    expect([info.rows, whole.rows]).toContain(rows.rowCount);
    expect(value(await searching)).toMatchObject({ total_matches: 0, reductions_searched: OUTPUTS });
  });

  it('a long search reports its progress, named by its searchId, rising until it answers', async () => {
    const c = client();
    value(await c.open([large], 1));
    const progress: EventPayload<'searchProgress'>[] = [];
    const off = c.onEvent((e) => {
      if (e.name === 'searchProgress') progress.push(e.payload);
    });
    const result = value(await c.request('search', params('search', { searchId: 'long', ...SLOW })));
    off();
    expect(progress.length).toBeGreaterThan(0);
    for (const [k, p] of progress.entries()) {
      expect(p).toMatchObject({ searchId: 'long', spans: OUTPUTS });
      expect(p.spans_searched).toBeLessThanOrEqual(OUTPUTS);
      if (k > 0) expect(p.spans_searched).toBeGreaterThanOrEqual((progress[k - 1] as EventPayload<'searchProgress'>).spans_searched);
    }
    expect(result.hidden_bytes_searched).toBe(OUTPUTS * OUTPUT_BYTES);
  });

  it('a new search cancels the one in flight, which answers cancelled; the new one answers', async () => {
    const c = client();
    value(await c.open([large], 1));
    const first = c.request('search', params('search', { searchId: 'slow', ...SLOW }));
    expect(await c.searchStarted('slow')).toBe(true);
    const second = c.request('search', params('search', { searchId: 'next', query: 'log line zz' }));
    expect(await first).toMatchObject({ ok: false, error: { code: 'cancelled' } });
    expect(value(await second)).toMatchObject({ total_matches: 0, reductions_searched: OUTPUTS, hidden_bytes_searched: OUTPUTS * OUTPUT_BYTES });
  });

  it('cancelSearch stops the search in flight, and only that one', async () => {
    const c = client();
    value(await c.open([large], 1));
    const slow = c.request('search', params('search', { searchId: 'slow', ...SLOW }));
    expect(await c.searchStarted('slow')).toBe(true);
    expect(c.cancelSearch('other')).toBe(false);
    expect(c.cancelSearch('slow')).toBe(true);
    expect(await slow).toMatchObject({ ok: false, error: { code: 'cancelled' } });
    expect(c.cancelSearch('slow')).toBe(false);
    // The worker is free again.
    expect(value(await c.request('rowOfIndex', { index: 2 }))).toEqual({ row: 2 });
  });
});

describe('a hostile regex', () => {
  /** A hostile pattern: a program of 10,003 instructions. It held the worker 23 s over 123 KB. */
  const ATTACK = '[\\s\\S]{1000}'.repeat(10) + '[QZ]';
  /** Below the program limit, about as slow per byte as a pattern may be, and never matching here (no capital letter). */
  const HEAVY = { query: '[\\s\\S]{0,1000}[QZ]+', mode: 'regex' } as const;
  let hostile: string;
  beforeAll(() => {
    // 12 outputs of 30 kB: seconds of engine work per output, 360 kB in all.
    hostile = writeElidedOutputs(tmp.path('hostile.sidecar.jsonl'), 12, 30_000);
  });

  it('refuses the attack up front: invalid_query naming the program limit', async () => {
    const c = client();
    value(await c.open([hostile], 1));
    const reply = await c.request('search', params('search', { searchId: 'attack', query: ATTACK, mode: 'regex' }));
    expect(reply).toMatchObject({ ok: false, error: { code: 'invalid_query', message: expect.stringContaining(`limit of ${MAX_REGEX_PROGRAM_SIZE}`) as unknown } });
  });

  it('answers rows and expand while a long regex search runs; cancelSearch ends it (cancelled) without a restart', async () => {
    const { c, restarts } = await openWatched(hostile);
    let searchAnswered = false;
    const searching = c.request('search', params('search', { searchId: 'heavy', ...HEAVY })).finally(() => (searchAnswered = true));
    expect(await c.searchStarted('heavy')).toBe(true);
    // Not queued behind the search: answered while it still runs.
    expect(value(await c.request('rows', params('rows', { start: 0, end: 3 }))).rows).toHaveLength(3);
    expect(value(await c.request('expand', { id: 'r3', range: [0, 5] })).content).toBe('alpha');
    expect(searchAnswered).toBe(false);
    expect(c.cancelSearch('heavy')).toBe(true);
    // The search itself answers when it sees the cancel: it has ended, not been left running.
    expect(await searching).toMatchObject({ ok: false, error: { code: 'cancelled' } });
    expect(value(await c.request('rowOfIndex', { index: 2 }))).toEqual({ row: 2 });
    expect(restarts).toEqual([]);
  });

  it('a search still running at its time limit stops and answers timeout, the worker untouched', async () => {
    const { c, restarts } = await openWatched(hostile, { searchTimeLimitMs: 300 });
    const reply = await c.request('search', params('search', { searchId: 'slow', ...HEAVY }));
    expect(reply).toMatchObject({ ok: false, error: { code: 'timeout', message: expect.stringContaining('time limit') as unknown } });
    // The same worker answers on, its session still open.
    expect(value(await c.request('rowOfIndex', { index: 2 }))).toEqual({ row: 2 });
    expect(restarts).toEqual([]);
  });

  it('collects garbage in the worker only with testHooks, where this process exposes gc (the follow bench)', async () => {
    expect(await client().collectGarbage()).toBe(false);
    const c = client({ testHooks: true });
    // The worker is a thread of this process: it has gc exactly when this process has.
    expect(await c.collectGarbage()).toBe(typeof (globalThis as { gc?: unknown }).gc === 'function');
    value(await c.open([DEMO], 2));
    expect(value(await c.request('rowOfIndex', { index: 3 }))).toEqual({ row: 3 });
  });

  it('answers when the open\'s background work has ended only with testHooks (the search bench waits on it)', async () => {
    expect(await client().whenPrepared()).toBe(false);
    const c = client({ testHooks: true });
    value(await c.open([DEMO], 2));
    // The demo is below the background thread's least work: nothing runs, and it answers at once.
    expect(await c.whenPrepared()).toBe(true);
    expect(value(await c.request('rowOfIndex', { index: 3 }))).toEqual({ row: 3 });
  });

  it('takes request timeouts by method, with a default', async () => {
    const c = client({ testHooks: true, requestTimeoutMs: { default: 600_000, __hang: 1500 } });
    value(await c.open([DEMO], 2));
    const hang = await c.injectFault('hang');
    expect(hang.error).toMatchObject({ code: 'worker_crashed', message: expect.stringContaining('did not answer __hang within 1500 ms') as unknown });
    expect(value(await c.request('rowOfIndex', { index: 3 }))).toEqual({ row: 3 });
  });
});

describe('a hostile regex over what the model saw (scope "view")', () => {
  /** Each `x` costs a look to the end of the row for a `Q` that never comes: quadratic in the row. */
  const QUADRATIC = { query: 'x[\\s\\S]*Q|x', mode: 'regex', scope: 'view' } as const;
  /** Generous for a loaded two-core machine: a step of engine work is a quarter to half a second at most. */
  const CANCEL_BOUND_MS = 5000;
  let visible: string;
  beforeAll(() => {
    // One visible output of about 100 kB with an x every 49 bytes: seconds of engine work in one row.
    visible = writeVisibleOutput(tmp.path('visible.sidecar.jsonl'), 'fix step 17: alpha beta gamma delta log line ok\n'.repeat(2100));
  });

  it('refuses a pattern over the program limit up front, as the hidden search does', async () => {
    const c = client();
    value(await c.open([visible], 1));
    const reply = await c.request('searchPage', params('searchPage', { searchId: 'attack', query: '[\\s\\S]{1000}'.repeat(10) + '[QZ]', mode: 'regex', page: 0, scope: 'view' }));
    expect(reply).toMatchObject({ ok: false, error: { code: 'invalid_query', message: expect.stringContaining(`limit of ${MAX_REGEX_PROGRAM_SIZE}`) as unknown } });
  });

  it('answers rows while a quadratic regex searches one long row; cancelSearch ends it (cancelled) without a restart', async () => {
    const { c, restarts } = await openWatched(visible);
    let searchAnswered = false;
    const searching = c.request('searchPage', params('searchPage', { searchId: 'quadratic', page: 0, ...QUADRATIC })).finally(() => (searchAnswered = true));
    expect(await c.searchStarted('quadratic')).toBe(true);
    expect(value(await c.request('rows', params('rows', { start: 0, end: 3 }))).rows).toHaveLength(3);
    expect(searchAnswered).toBe(false);
    // Ended at the search's next look at its signal, a fraction of a second of engine work away
    // (SEARCH_STEP_WORK); unbounded, one row's search went on for seconds after the cancel.
    const cancelledAt = performance.now();
    expect(c.cancelSearch('quadratic')).toBe(true);
    expect(await searching).toMatchObject({ ok: false, error: { code: 'cancelled' } });
    expect(performance.now() - cancelledAt).toBeLessThan(CANCEL_BOUND_MS);
    expect(value(await c.request('rowOfIndex', { index: 2 }))).toEqual({ row: 2 });
    expect(restarts).toEqual([]);
  });

  it('a view search still running at its time limit stops and answers timeout, the worker untouched', async () => {
    const { c, restarts } = await openWatched(visible, { searchTimeLimitMs: 300 });
    const reply = await c.request('searchPage', params('searchPage', { searchId: 'slow', page: 0, ...QUADRATIC }));
    expect(reply).toMatchObject({ ok: false, error: { code: 'timeout', message: expect.stringContaining('time limit') as unknown } });
    expect(value(await c.request('rowOfIndex', { index: 2 }))).toEqual({ row: 2 });
    expect(restarts).toEqual([]);
  });
});

describe('a crashed or hung worker', () => {
  it('answers pending requests worker_crashed, restarts, and reopens the session', async () => {
    const c = client({ testHooks: true });
    value(await c.open([DEMO], 5));
    const restarted = nextEvent(c, 'workerRestarted');
    const reopened = nextEvent(c, 'loadProgress');
    const crash = c.injectFault('crash');
    const queued = c.request('rows', params('rows', { start: 0, end: 4 }));
    const crashReply = await crash;
    expect(crashReply.error.code).toBe('worker_crashed');
    expect(crashReply.error.message).toContain('__crash');
    expect(await queued).toMatchObject({ ok: false, error: { code: 'worker_crashed' } });
    expect((await restarted).reason).toContain('threw an uncaught error');
    // The same generation: replies about the reopened session are not mistaken for an older one.
    expect((await reopened).generation).toBe(5);
    const rows = value(await c.request('rows', params('rows', { start: 0, end: 4 })));
    expect(rows.rowCount).toBe(4);
    expect(value(await c.request('expand', { id: 'r1', range: [31, 41] })).content).toBe('— expecte');
  });

  it('reopens the session that was open, not the main one, in a fresh worker (and the format forced)', async () => {
    const file = join(import.meta.dirname, '../../e2e/fixtures/real/claude-code/cc-2.1.17-subagent/29ccd257-68b1-427f-ae5f-6524b7cb6f20.jsonl');
    const c = client({ testHooks: true });
    const main = value(await c.open([file], 1));
    const sub = main.sessions[1];
    if (!sub) throw new Error('the fixture holds a subagent');
    const opened = value(await c.open([file], 2, { session: sub.id, format: 'claude-code' }));
    expect(opened.rows).not.toBe(main.rows);
    const restarted = nextEvent(c, 'workerRestarted');
    await c.injectFault('crash');
    await restarted;
    expect(value(await c.request('rows', params('rows', { start: 0, end: 1 }))).rowCount).toBe(opened.rows);
  });

  it('takes a request past requestTimeoutMs as a hung worker: stopped, restarted, reopened', async () => {
    const c = client({ testHooks: true, requestTimeoutMs: 2000 });
    value(await c.open([DEMO], 9));
    const restarted = nextEvent(c, 'workerRestarted');
    const hang = await c.injectFault('hang');
    expect(hang.error).toMatchObject({ code: 'worker_crashed', message: expect.stringContaining('did not answer __hang within 2000 ms') as unknown });
    expect((await restarted).reason).toContain('did not answer __hang');
    expect(value(await c.request('rowOfIndex', { index: 3 }))).toEqual({ row: 3 });
  });

  it('a worker that cannot start answers worker_crashed without a restart loop', async () => {
    const c = client({ workerPath: join(tmp.dir, 'no-such-worker.cjs') });
    const events: HostEvent[] = [];
    c.onEvent((e) => events.push(e));
    const reply = await c.open([DEMO], 1);
    expect(reply).toMatchObject({ ok: false, error: { code: 'worker_crashed', message: expect.stringContaining('no-such-worker.cjs') as unknown } });
    // The next request tries a fresh worker, which fails the same way.
    expect(await c.request('log', {})).toMatchObject({ ok: false, error: { code: 'worker_crashed' } });
    expect(events.filter((e) => e.name === 'workerRestarted')).toEqual([]);
  });

  it('dispose answers what is pending and refuses what comes after', async () => {
    const c = client();
    const opening = c.open([DEMO], 1);
    await c.dispose();
    expect(await opening).toMatchObject({ ok: false, error: { code: 'worker_crashed', message: expect.stringContaining('disposed') as unknown } });
    expect(await c.request('log', {})).toMatchObject({ ok: false, error: { code: 'worker_crashed' } });
  });
});

describe('searchPage through the real worker', () => {
  const HEAVY = { query: '[\\s\\S]{0,1000}[QZ]+', mode: 'regex' } as const;
  let elided: string;
  beforeAll(() => {
    // 12 outputs of 30 kB, each line holding "log" once: 698 lines of 43 bytes per output, the last one cut.
    elided = writeElidedOutputs(tmp.path('paging.sidecar.jsonl'), 12, 30_000);
  });

  it('pages every match in order, as a search of them all finds them', async () => {
    const c = client();
    value(await c.open([elided], 1));
    const all = value(await c.request('search', params('search', { searchId: 'all', query: 'log', max_matches: 100_000, max_result_bytes: 64 * 1024 * 1024 })));
    const page = value(await c.request('searchPage', params('searchPage', { searchId: 'p', query: 'log', page: 3, page_size: 100 })));
    expect(page).toMatchObject({ total_matches: all.total_matches, pageable: all.total_matches, first: 300 });
    expect(page.matches).toEqual(all.matches.slice(300, 400));
  });

  it('holds the time limit of a search: answers timeout, the worker untouched', async () => {
    const c = client({ searchTimeLimitMs: 300 });
    value(await c.open([elided], 1));
    const reply = await c.request('searchPage', params('searchPage', { searchId: 'slow', page: 0, ...HEAVY }));
    expect(reply).toMatchObject({ ok: false, error: { code: 'timeout', message: expect.stringContaining('time limit') as unknown } });
    expect(value(await c.request('rowOfIndex', { index: 2 }))).toEqual({ row: 2 });
  });

  it('is cancelled like a search: by cancelSearch, and by the next search', async () => {
    const c = client();
    value(await c.open([elided], 1));
    const slow = c.request('searchPage', params('searchPage', { searchId: 'slow', page: 0, ...HEAVY }));
    expect(await c.searchStarted('slow')).toBe(true);
    expect(c.cancelSearch('slow')).toBe(true);
    expect(await slow).toMatchObject({ ok: false, error: { code: 'cancelled' } });
    const again = c.request('searchPage', params('searchPage', { searchId: 'again', page: 0, ...HEAVY }));
    expect(await c.searchStarted('again')).toBe(true);
    const next = c.request('search', params('search', { searchId: 'next', query: 'log' }));
    expect(await again).toMatchObject({ ok: false, error: { code: 'cancelled' } });
    expect(value(await next).total_matches).toBeGreaterThan(0);
  });
});
