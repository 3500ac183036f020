/**
 * The map's pass in slices (docs/tokens.md "How the pass runs"): a `tokenMap` request counts for
 * one bounded slice and answers what is known with `progress`, so the worker answers a request
 * sent meanwhile before the pass ends; the sliced map equals the one-pass map; a pass nobody asks
 * for any more counts nothing, and what it counted stays cached.
 */
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import type { ContextMapInfo, ResultOf, TokenMapFigures } from '../../shared/index';
import { TOKEN_MAP_SLICE_CALLS, knownOf, mergeTokenMap, parseReply } from '../../shared/index';
import { writeElidedOutputs } from '../../tools/testing/files';
import type { LoadedSession } from '../loader/session';
import { loadSession } from '../loader/session';
import { SessionEstimates, recordedContextOf } from '../tokens/sessionEstimates';
import { createResolverClient } from './client';
import type { SessionService } from './service';
import { params, serviceFixture, value } from './testing/serviceTests';
import type { SliceBound, TokenCache } from './tokenMap';
import { WHOLE_PASS, tokenCache, tokenMapReply } from './tokenMap';

const ROOT = join(import.meta.dirname, '../..');
const REAL = join(ROOT, 'e2e/fixtures/real');
const { tmp, opened } = serviceFixture('session-inspector-token-slices-');

/** What the app holds after each reply: every call known so far (mergeTokenMap), its pass left out (each cache has its own). */
type TokenMap = Omit<TokenMapFigures, 'pass'>;

/** The figures a reply adds to those held, as the app merges them; fails where a reply does not follow what was held. */
function merged(held: TokenMapFigures | null, reply: ResultOf<'tokenMap'>): TokenMapFigures {
  const known = knownOf(held);
  // Only what the asker lacked: the calls after those it holds, and no windows once it has them.
  expect(reply.from).toBe(known && known.pass === reply.pass ? known.calls : 0);
  if (known?.pass === reply.pass) expect(reply.window).toBeNull();
  const figures = mergeTokenMap(held, reply);
  if (!figures) throw new Error(`a reply from call ${reply.from + 1} does not follow the ${held?.estimated.length ?? 0} calls held`);
  return figures;
}

/** The map of one reply asked with nothing held (the whole map so far). */
function whole(reply: ResultOf<'tokenMap'>): TokenMap {
  const { pass: _pass, ...figures } = merged(null, reply);
  return figures;
}

/** Enough calls that the pass needs several slices whatever the machine's speed (the calls bound alone splits it). */
const MANY_CALLS = 4 * TOKEN_MAP_SLICE_CALLS + 7;

/** Calls of the per-message estimator (the tokenizer's counts, electron/tokens/counter.ts) in this file. */
const counted = vi.hoisted(() => ({ calls: 0 }));
vi.mock('../tokens/counter', async (importOriginal) => (await import('../tokens/testing/countedCounter')).countedCounter(await importOriginal(), counted));

/** A map cache on an estimator of its own: nothing counted before (the worker's share one per session). */
const freshCache = (session: LoadedSession) => tokenCache(session, new SessionEstimates(session, recordedContextOf(session)));

/** The pass in slices of `bound` over one cache, asked as the app asks (with what it holds): the figures after every reply until the complete one. */
function slicedPass(session: LoadedSession, map: ContextMapInfo, cache: TokenCache, bound: SliceBound): TokenMap[] {
  const out: TokenMap[] = [];
  let held: TokenMapFigures | null = null;
  while (held?.progress !== null) {
    expect(out.length).toBeLessThan(10_000);
    held = merged(held, tokenMapReply(session, map, cache, bound, knownOf(held)));
    const { pass: _pass, ...figures } = held;
    out.push(figures);
  }
  return out;
}

/** `body` over `file`'s map (the worker's `calls` reply) and the same file loaded in this process, closed after. */
async function withLoaded<T>(file: string, body: (session: LoadedSession, map: ContextMapInfo) => T): Promise<T> {
  const map = value((await opened([file])).handle('calls', {}));
  const loaded = await loadSession([file]);
  if (!loaded.ok) throw new Error(loaded.error.message);
  try {
    return body(loaded.session, map);
  } finally {
    loaded.session.close();
  }
}

/** Asks until the pass is complete, as the renderer does; every reply valid under the contract. */
async function askAll(s: SessionService): Promise<TokenMap[]> {
  const out: TokenMap[] = [];
  let held: TokenMapFigures | null = null;
  for (;;) {
    expect(out.length).toBeLessThan(10_000);
    const known = knownOf(held);
    held = merged(held, value(parseReply('tokenMap', await s.handle('tokenMap', known ? { known } : {}))));
    const { pass: _pass, ...figures } = held;
    out.push(figures);
    if (held.progress === null) return out;
  }
}

describe('tokenMap in slices', () => {
  it('the real worker answers a slider move (rows of a call) and a go-to (rowOfIndex) sent after tokenMap before the pass ends', async () => {
    const path = writeElidedOutputs(tmp.path('many-calls.sidecar.jsonl'), MANY_CALLS, 4_000);
    const c = createResolverClient();
    try {
      value(await c.open([path], 1));
      const calls = value(await c.request('calls', {})).calls;
      expect(calls).toBe(MANY_CALLS);
      const order: string[] = [];
      const say = (what: string) => (reply: { ok: boolean; value?: unknown }) => {
        const progress = reply.ok ? (reply.value as TokenMap).progress : undefined;
        order.push(what === 'tokenMap' ? `tokenMap ${progress === null || progress === undefined ? 'complete' : 'pending'}` : what);
      };
      // Sent at once, in this order: the pass first, then what a user does meanwhile.
      const first = c.request('tokenMap', {}).then(say('tokenMap'));
      const rows = c.request('rows', params('rows', { start: 0, end: 20, call: 5 })).then(say('rows'));
      const expand = c.request('rowOfIndex', params('rowOfIndex', { index: 3 })).then(say('rowOfIndex'));
      await Promise.all([first, rows, expand]);
      for (let turn = 0; order.at(-1) !== 'tokenMap complete'; turn++) {
        expect(turn).toBeLessThan(10_000);
        say('tokenMap')(await c.request('tokenMap', {}));
      }
      // The first slice answered first (it was sent first), then the user's requests, long before the pass ended.
      expect(order.slice(0, 3)).toEqual(['tokenMap pending', 'rows', 'rowOfIndex']);
      expect(order.filter((o) => o === 'tokenMap pending').length).toBeGreaterThanOrEqual(Math.floor(MANY_CALLS / TOKEN_MAP_SLICE_CALLS));
    } finally {
      await c.dispose();
    }
  });

  it('the sliced map equals the one-pass map, whatever the slice (real files of every format that has calls, and a generated one)', async () => {
    const files = [
      join(REAL, 'claude-code/cc-2.1.20-persisted-redacted.jsonl'),
      join(REAL, 'claude-code/cc-2.1.17-persisted-bash.jsonl'),
      join(REAL, 'codex/rollout-0.118-exec-parallel-calls-ENTIRE.jsonl'),
      join(REAL, 'swe-agent/sweagenttestrepo-1c2844.traj'),
      writeElidedOutputs(tmp.path('sliced.sidecar.jsonl'), 90, 500),
    ];
    for (const file of files) {
      await withLoaded(file, (session, map) => {
        const onePass = whole(tokenMapReply(session, map, freshCache(session), WHOLE_PASS));
        expect(onePass.progress, file).toBeNull();
        expect(onePass.estimated.length, file).toBe(map.calls);
        fc.assert(
          fc.property(fc.integer({ min: 1, max: 9 }), fc.constantFrom(0, Infinity), (calls, ms) => {
            const replies = slicedPass(session, map, freshCache(session), { calls, ms });
            expect(replies.at(-1), file).toEqual(onePass);
            // Sliced as bounded: never more than `calls` calls estimated in one reply (a call the file records the context of is not estimated), and it took several.
            const estimatedIn = (r: TokenMap | undefined) => (r?.estimated ?? []).filter((e) => e !== null).length;
            expect(replies.length, file).toBeGreaterThanOrEqual(Math.ceil(estimatedIn(onePass) / calls));
            for (let k = 1; k < replies.length; k++) expect(estimatedIn(replies[k]) - estimatedIn(replies[k - 1])).toBeLessThanOrEqual(calls);
            // What each pending reply shows is a prefix of the complete map.
            for (const r of replies) expect([r.estimated, r.hidden]).toEqual([onePass.estimated.slice(0, r.estimated.length), onePass.hidden.slice(0, r.hidden.length)]);
          }),
          { numRuns: 4 },
        );
      });
    }
  });

  it('an original of several 1 MiB texts is counted across slices, one text a slice after the first, to the one-pass figures and counts', async () => {
    const OUTPUTS = 3;
    const BYTES = 2_500_000;
    const file = writeElidedOutputs(tmp.path('large-originals.sidecar.jsonl'), OUTPUTS, BYTES, { live: true });
    await withLoaded(file, (session, map) => {
      const before = counted.calls;
      const onePassMap = whole(tokenMapReply(session, map, freshCache(session), WHOLE_PASS));
      const onePass = counted.calls - before;
      const from = counted.calls;
      const replies = slicedPass(session, map, freshCache(session), { calls: Infinity, ms: 0 });
      expect(replies.at(-1)).toEqual(onePassMap);
      expect(onePassMap.hidden.some((h) => (h ?? 0) > 0)).toBe(true);
      // Nothing counted twice, nothing left out.
      expect(counted.calls - from).toBe(onePass);
      // Each original is counted in ceil(BYTES / 1 MiB) texts, each in a slice of its own: the calls waited over several slices each.
      const texts = OUTPUTS * Math.ceil(BYTES / (1024 * 1024));
      const estimating = replies.filter((r) => r.progress?.stage === 'estimating');
      expect(estimating.length).toBeGreaterThanOrEqual(texts - OUTPUTS);
      const stalled = estimating.filter((r, k) => k > 0 && r.estimated.length === estimating[k - 1]?.estimated.length);
      expect(stalled.length).toBeGreaterThanOrEqual(OUTPUTS);
    });
  });

  it('one estimator per open: the reductions the map counted are not counted again for their own figures (chips, log rows)', async () => {
    const file = writeElidedOutputs(tmp.path('shared-originals.sidecar.jsonl'), 3, 20_000, { live: true });
    const s = await opened([file]);
    const replies = await askAll(s);
    expect(replies.at(-1)?.hidden.some((h) => (h ?? 0) > 0)).toBe(true);
    const ids = ['r0', 'r1', 'r2'];
    const before = counted.calls;
    const figures = value(parseReply('hiddenTokens', s.handle('hiddenTokens', { ids })));
    expect(figures.pending).toEqual([]);
    expect(figures.reductions.map((r) => r.id)).toEqual(ids);
    expect(figures.reductions.every((r) => (r.original?.tokens ?? 0) > 0)).toBe(true);
    // Only what the model was shown in each one's place is counted: each original was counted by the map.
    expect(counted.calls - before).toBe(ids.length);
  });

  it('a pass nobody asks for any more counts nothing: the per-message estimator is not called after the last ask, and what was counted stays cached', async () => {
    const path = writeElidedOutputs(tmp.path('stopped.sidecar.jsonl'), MANY_CALLS, 2_000);
    // The one-pass count of the same session: what the sliced pass must not exceed (nothing counted twice).
    const reference = await opened([path]);
    const start = counted.calls;
    await askAll(reference);
    const onePass = counted.calls - start;
    reference.close();

    const s = await opened([path]);
    const before = counted.calls;
    const first = value(parseReply('tokenMap', await s.handle('tokenMap', {})));
    expect(first.progress).not.toBeNull();
    const afterFirst = counted.calls;
    expect(afterFirst).toBeGreaterThan(before);
    // The map in tokens is gone (the unit switched to bytes): the app goes on with other requests, and the event loop turns.
    value(s.handle('rows', params('rows', { start: 0, end: 50, call: 3 })));
    value(s.handle('calls', {}));
    value(s.handle('log', {}));
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(counted.calls).toBe(afterFirst);
    // Asked again, it goes on where it stopped: no message is counted twice, the map is complete.
    const complete = (await askAll(s)).at(-1);
    expect(complete?.estimated).toHaveLength(MANY_CALLS);
    expect(counted.calls - before).toBe(onePass);
    // A second request is answered from the kept map: nothing is counted.
    const done = counted.calls;
    expect(whole(value(parseReply('tokenMap', await s.handle('tokenMap', {}))))).toEqual(complete);
    expect(counted.calls).toBe(done);
  });

  it('a closed session, or another one opened, ends the pass: what the old open counted is not counted on', async () => {
    const s = await opened([writeElidedOutputs(tmp.path('closed.sidecar.jsonl'), MANY_CALLS, 2_000)]);
    const old = value(parseReply('tokenMap', await s.handle('tokenMap', {})));
    expect(old.progress).not.toBeNull();
    const before = counted.calls;
    value(await s.open({ paths: [join(ROOT, 'samples/demo.sidecar.jsonl')], generation: 2 }));
    // The new session's map starts from nothing; nothing of the old pass runs meanwhile. An ask
    // holding the old pass's figures (sent before the new open was heard of) is answered whole.
    const fresh = value(parseReply('tokenMap', await s.handle('tokenMap', { known: { pass: old.pass, calls: old.estimated.length } })));
    expect(fresh.pass).not.toBe(old.pass);
    expect([fresh.from, fresh.window?.length]).toEqual([0, value(s.handle('calls', {})).calls]);
    expect(fresh.estimated.length).toBeLessThanOrEqual(TOKEN_MAP_SLICE_CALLS);
    const demoCalls = value(s.handle('calls', {})).calls;
    expect(fresh.progress === null ? fresh.estimated.length : fresh.progress.calls).toBe(demoCalls);
    expect(counted.calls).toBeGreaterThan(before);
    s.close();
    const after = counted.calls;
    const closed = await s.handle('tokenMap', {});
    expect(closed.ok ? 'answered' : closed.error.code).toBe('no_session');
    expect(counted.calls).toBe(after);
  });
});
