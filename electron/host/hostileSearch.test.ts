/**
 * A hostile regex through the hosts: the SessionHost over the real resolver worker (dist/worker.cjs,
 * with the bounds both hosts use), reached over HTTP as the browser reaches it. Nothing sleeps:
 * each step waits on a reply or an event.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { HostEvent, Method, ParsedParams, Reply, ResultOf, WorkerSessionMethod } from '../../shared/index';
import { MAX_REGEX_PROGRAM_SIZE } from '../../shared/index';
import { tempDir, writeElidedOutputs, writeVisibleOutput } from '../../tools/testing/files';
import type { WorkerResolverClient } from '../worker/client';
import { DEFAULT_REQUEST_TIMEOUTS, createResolverClient } from '../worker/client';
import { DEFAULT_SEARCH_TIME_LIMIT_MS } from '../worker/handlers/search';
import { DEFAULT_HOST_TIMEOUTS, createSessionHost } from './sessionHost';
import { startTestHost } from './testing/apiClient';
import type { ResolverClient } from './types';

/** A hostile pattern: a program of 10,003 instructions; over HTTP, rows waited 132 s behind it. */
const ATTACK = '[\\s\\S]{1000}'.repeat(10) + '[QZ]';
/** Below the program limit, about as slow per byte as a pattern may be, and never matching here. */
const HEAVY = '[\\s\\S]{0,1000}[QZ]+';

const tmp = tempDir('session-inspector-hostile-');
let hostile: string;
let visible: string;
/** How long a cancelled search may take to answer: generous for a loaded two-core machine (a step of engine work is a quarter to half a second at most). */
const CANCEL_BOUND_MS = 5000;
beforeAll(() => {
  mkdirSync(tmp.path('renderer'));
  writeFileSync(tmp.path('renderer/index.html'), '<!doctype html><title>app</title>');
  // 12 outputs of 30 kB: seconds of engine work per output for HEAVY.
  hostile = writeElidedOutputs(tmp.path('hostile.sidecar.jsonl'), 12, 30_000);
  // One visible output of about 100 kB with an x every 49 bytes, for a pattern quadratic in it.
  visible = writeVisibleOutput(tmp.path('visible.sidecar.jsonl'), 'fix step 17: alpha beta gamma delta log line ok\n'.repeat(2100));
});
afterAll(() => tmp.cleanup());

const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(stops.splice(0).map((stop) => stop()));
});

/** The HTTP host over a SessionHost over the real worker, as `serve` builds them. */
async function serve(files = [hostile]) {
  const client = createResolverClient({ requestTimeoutMs: DEFAULT_REQUEST_TIMEOUTS });
  const { host, api, stop } = await startTestHost(client, { files }, { rendererDir: tmp.path('renderer') });
  stops.push(stop);
  const events: HostEvent[] = [];
  host.onEvent((e) => events.push(e));
  return { host, api, events, client };
}

function value<M extends Method>(reply: Reply<M>): ResultOf<M> {
  if (!reply.ok) throw new Error(`expected ok, got ${reply.error.code}: ${reply.error.message}`);
  return reply.value;
}

/** Resolves once `client` has sent search `searchId` (from now on) to its worker and the worker has begun it. */
function searchBegun(client: WorkerResolverClient, searchId: string): Promise<boolean> {
  const request = client.request.bind(client);
  return new Promise((resolve) => {
    client.request = (method, params) => {
      const reply = request(method, params);
      if ((params as { searchId?: unknown }).searchId === searchId) {
        client.request = request;
        resolve(client.searchStarted(searchId));
      }
      return reply;
    };
  });
}

/** Resolves with the first event `accept` takes, from now on. */
function nextEvent(host: { onEvent(l: (e: HostEvent) => void): () => void }, accept: (e: HostEvent) => boolean): Promise<HostEvent> {
  return new Promise((resolve) => {
    const off = host.onEvent((e) => {
      if (!accept(e)) return;
      off();
      resolve(e);
    });
  });
}

describe('a hostile regex over HTTP, real worker', () => {
  it('the attack is refused up front as invalid_query naming the limit, and rows answer after it', async () => {
    const { api } = await serve();
    value(await api('openFile', { id: 'file-1' }));
    const reply = await api('search', { searchId: 'attack', query: ATTACK, mode: 'regex' });
    expect(reply).toMatchObject({ ok: false, error: { code: 'invalid_query', message: expect.stringContaining(`limit of ${MAX_REGEX_PROGRAM_SIZE}`) as unknown } });
    expect(value(await api('rows', { start: 0, end: 3 })).rows).toHaveLength(3);
  });

  it('rows answer while a heavy regex search runs; cancelSearch ends it: cancelled, the worker not restarted', async () => {
    const { host, api, events } = await serve();
    value(await api('openFile', { id: 'file-1' }));
    // The search is under way once it reports progress (after its first output).
    const progressed = nextEvent(host, (e) => e.name === 'searchProgress' && e.payload.searchId === 'heavy');
    let searchAnswered = false;
    const searching = api('search', { searchId: 'heavy', query: HEAVY, mode: 'regex' }).finally(() => (searchAnswered = true));
    await progressed;
    expect(value(await api('rows', { start: 0, end: 3 })).rows).toHaveLength(3);
    expect(value(await api('expand', { id: 'r5', range: [0, 5] })).content).toBe('alpha');
    expect(searchAnswered).toBe(false);
    expect(value(await api('cancelSearch', { searchId: 'heavy' }))).toEqual({ cancelled: true });
    expect(await searching).toMatchObject({ ok: false, error: { code: 'cancelled' } });
    expect(value(await api('rows', { start: 0, end: 1 })).rows).toHaveLength(1);
    expect(events.filter((e) => e.name === 'workerRestarted')).toEqual([]);
  });
});

describe('a hostile regex over what the model saw (scope "view"), over HTTP, real worker', () => {
  it('a pattern over the program limit is refused up front as invalid_query naming the limit', async () => {
    const { api } = await serve([visible]);
    value(await api('openFile', { id: 'file-1' }));
    const reply = await api('searchPage', { searchId: 'attack', query: ATTACK, mode: 'regex', page: 0, scope: 'view' });
    expect(reply).toMatchObject({ ok: false, error: { code: 'invalid_query', message: expect.stringContaining(`limit of ${MAX_REGEX_PROGRAM_SIZE}`) as unknown } });
    expect(value(await api('rows', { start: 0, end: 3 })).rows).toHaveLength(3);
  });

  it('rows answer while a quadratic regex searches one long row; cancelSearch ends it: cancelled, the worker not restarted', async () => {
    const { api, events, client } = await serve([visible]);
    value(await api('openFile', { id: 'file-1' }));
    const begun = searchBegun(client, 'quadratic');
    let searchAnswered = false;
    const searching = api('searchPage', { searchId: 'quadratic', query: 'x[\\s\\S]*Q|x', mode: 'regex', page: 0, scope: 'view' }).finally(() => (searchAnswered = true));
    // The worker says when it has begun the search (the view search reports no hidden-span progress).
    expect(await begun).toBe(true);
    expect(value(await api('rows', { start: 0, end: 3 })).rows).toHaveLength(3);
    expect(searchAnswered).toBe(false);
    // Ended at the search's next look at its signal, a fraction of a second of engine work away
    // (SEARCH_STEP_WORK); unbounded, one row's search went on for seconds after the cancel.
    const cancelledAt = performance.now();
    expect(value(await api('cancelSearch', { searchId: 'quadratic' }))).toEqual({ cancelled: true });
    expect(await searching).toMatchObject({ ok: false, error: { code: 'cancelled' } });
    expect(performance.now() - cancelledAt).toBeLessThan(CANCEL_BOUND_MS);
    expect(value(await api('rows', { start: 0, end: 1 })).rows).toHaveLength(1);
    expect(events.filter((e) => e.name === 'workerRestarted')).toEqual([]);
  });
});

describe('the session host bounds every request', () => {
  /** A client that never answers a session request: a stuck worker without the client's own bound. */
  function stuckClient(): ResolverClient & { cancelled: string[] } {
    const cancelled: string[] = [];
    return {
      cancelled,
      open: (_paths, generation) =>
        Promise.resolve({
          ok: true,
          value: {
            generation,
            files: [],
            session_id: 's',
            model: null,
            gate: null,
            policy: null,
            messages: 0,
            rows: 0,
            reductions: 0,
            reductions_by_kind: { tool_output_truncated: 0, tool_output_elided: 0, duplicate_output: 0, turns_cleared: 0, summarized: 0 },
            load_findings: 0,
            stopped: false,
            format: 'supercode',
            session: '',
            sessions: [{ id: 's', messages: 0 }],
          },
        }),
      close: () => Promise.resolve(),
      request: <M extends WorkerSessionMethod>(_method: M, _params: ParsedParams<M>) => new Promise<Reply<M>>(() => undefined),
      cancelSearch: (searchId) => (cancelled.push(searchId), true),
      cancelBundle: () => false,
      onEvent: () => () => undefined,
      dispose: () => Promise.resolve(),
    };
  }

  it('a request its client never answers gets timeout; a search given up on is cancelled in the worker', async () => {
    const client = stuckClient();
    const host = createSessionHost({ host: 'http', client, files: [hostile], requestTimeoutMs: { default: 50, search: 80 } });
    stops.push(() => host.dispose());
    value(await host.handle('openFile', { id: 'file-1' }));
    expect(await host.handle('rows', { start: 0, end: 1 })).toMatchObject({ ok: false, error: { code: 'timeout', message: expect.stringContaining('rows') as unknown } });
    expect(await host.handle('search', { searchId: 'lost', query: 'x' })).toMatchObject({ ok: false, error: { code: 'timeout' } });
    expect(client.cancelled).toEqual(['lost']);
    // What the host answers itself is not held up.
    expect(await host.handle('state', {})).toMatchObject({ ok: true, value: { session: { session_id: 's' } } });
  });

  it('the default bounds nest: the worker stops a search before the client gives up on it, and the client before the host', () => {
    expect(DEFAULT_SEARCH_TIME_LIMIT_MS).toBeLessThan(DEFAULT_REQUEST_TIMEOUTS.search as number);
    expect(DEFAULT_REQUEST_TIMEOUTS.search as number).toBeLessThan(DEFAULT_HOST_TIMEOUTS.search as number);
    // Every method the client bounds (a trace, a call's tokens, a bundle…) is bounded longer by the host, under its own name or the default.
    for (const [method, ms] of Object.entries(DEFAULT_REQUEST_TIMEOUTS)) {
      const hostMethod = method === 'open' ? 'openFile' : method;
      expect(ms, method).toBeLessThan(DEFAULT_HOST_TIMEOUTS[hostMethod] ?? DEFAULT_HOST_TIMEOUTS.default);
    }
    expect(DEFAULT_HOST_TIMEOUTS.openDialog).toBe(Infinity);
  });
});
