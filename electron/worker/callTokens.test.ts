/**
 * A call's tokens counted in slices (docs/tokens.md "The breakdown in slices"): `callTokens` counts
 * the messages of the call's view a step at a time, out of the worker's queue, giving way to a
 * search; its reply is the one counted in one go.
 */
import { appendFileSync, copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { parseReply } from '../../shared/index';
import { messageRecord, writeElidedOutputs } from '../../tools/testing/files';
import { loadSession } from '../loader/session';
import { SessionEstimates, recordedContextOf } from '../tokens/sessionEstimates';
import { createResolverClient } from './client';
import { SessionService } from './service';
import { params, serviceFixture, value } from './testing/serviceTests';
import { callTokensReply, callTokensSteps, tokenCache } from './tokenMap';

const REAL = join(import.meta.dirname, '../../e2e/fixtures/real');

/** Calls of the per-message estimator (the tokenizer's counts, electron/tokens/counter.ts) in this file. */
const counted = vi.hoisted(() => ({ calls: 0 }));
vi.mock('../tokens/counter', async (importOriginal) => (await import('../tokens/testing/countedCounter')).countedCounter(await importOriginal(), counted));
const { tmp, opened } = serviceFixture('session-inspector-call-tokens-');

/**
 * A session whose last call saw 39 tool outputs of 125 KB whole (its reductions come after every
 * message): counting that call's view is some 5 MB for the tokenizer, many slices on any machine.
 */
const heavyLastCall = (): string => writeElidedOutputs(tmp.path('heavy-last-call.sidecar.jsonl'), 40, 125_000);

describe('callTokens in slices', () => {
  it("counted a step a message, to the reply counted in one go (real files of every format that has calls, and a generated one)", async () => {
    const files = [
      join(REAL, 'claude-code/cc-2.1.20-persisted-redacted.jsonl'),
      join(REAL, 'codex/rollout-0.118-exec-parallel-calls-ENTIRE.jsonl'),
      join(REAL, 'swe-agent/sweagenttestrepo-1c2844.traj'),
      heavyLastCall(),
    ];
    for (const file of files) {
      const loaded = await loadSession([file]);
      if (!loaded.ok) throw new Error(loaded.error.message);
      const session = loaded.session;
      try {
        const fresh = () => tokenCache(session, new SessionEstimates(session, recordedContextOf(session)));
        const calls = session.calls.length;
        expect(calls, file).toBeGreaterThan(0);
        for (const call of new Set([1, Math.ceil(calls / 2), calls])) {
          const oneGo = callTokensReply(session, call, fresh());
          const steps = callTokensSteps(session, call, fresh());
          let yielded = 0;
          let step = steps.next();
          for (; !step.done; step = steps.next()) yielded++;
          expect(step.value, `${file} call ${call}`).toEqual(oneGo);
          // At least a step for each message of the view: no message's count is split, none is done with another.
          expect(yielded).toBeGreaterThanOrEqual(oneGo?.messages_total ?? Number.POSITIVE_INFINITY);
        }
        expect(callTokensSteps(session, calls + 1, fresh()).next()).toEqual({ done: true, value: undefined });
      } finally {
        session.close();
      }
    }
  });

  it('the real worker answers rows and a search sent after callTokens before it, and callTokens with the figures counted in one go', async () => {
    const file = heavyLastCall();
    const c = createResolverClient();
    try {
      value(await c.open([file], 1));
      const calls = value(await c.request('calls', {})).calls;
      const order: string[] = [];
      // Sent at once, in this order: the breakdown of the last call, then what a user does meanwhile.
      const counting = c.request('callTokens', { call: calls }).then((reply) => (order.push('callTokens'), reply));
      const rows = c.request('rows', params('rows', { start: 0, end: 20, call: 2 })).then((reply) => (order.push('rows'), reply));
      const search = c.request('search', params('search', { searchId: 's', query: 'no such text' })).then((reply) => (order.push('search'), reply));
      const [tokens] = await Promise.all([counting, rows, search]);
      expect(order).toEqual(['rows', 'search', 'callTokens']);
      const loaded = await loadSession([file]);
      if (!loaded.ok) throw new Error(loaded.error.message);
      try {
        const session = loaded.session;
        expect(value(parseReply('callTokens', tokens))).toEqual(callTokensReply(session, calls, tokenCache(session, new SessionEstimates(session, recordedContextOf(session)))));
      } finally {
        loaded.session.close();
      }
      // Another call, and a call that is none: answered as before.
      expect(value(await c.request('callTokens', { call: 1 })).call).toBe(1);
      expect(await c.request('callTokens', { call: calls + 1 })).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
    } finally {
      await c.dispose();
    }
  });

  it('a session closed while a call is counted answers cancelled; one followed and updated meanwhile is counted on, to the figures of the view it began with', async () => {
    const file = heavyLastCall();
    const closed = await opened([file]);
    const calls = value(closed.handle('calls', {})).calls;
    const closing = closed.handle('callTokens', params('callTokens', { call: calls }));
    // Its first slice runs before the event loop turns: closed after it, while there is more to count.
    await new Promise<void>((resolve) => setImmediate(resolve));
    closed.close();
    expect(await closing).toMatchObject({ ok: false, error: { code: 'cancelled' } });

    // The file as the count began, to compare with; then the followed copy grows while it counts.
    const before = tmp.path('before-growth.sidecar.jsonl');
    copyFileSync(file, before);
    let updated = false;
    const followed = new SessionService({}, undefined, { onUpdated: () => (updated = true), loop: { pollMs: 600_000 } });
    try {
      value(await followed.open({ paths: [file], generation: 1 }));
      const counting = followed.handle('callTokens', params('callTokens', { call: calls })).then((reply) => ({ reply, updatedFirst: updated }));
      appendFileSync(file, `${JSON.stringify(messageRecord(81, { role: 'user', content: 'and the next log' }))}\n`);
      await followed.followNow();
      expect(updated).toBe(true);
      const { reply, updatedFirst } = await counting;
      // The update came while the call was counted, and the count went on.
      expect(updatedFirst).toBe(true);
      const loaded = await loadSession([before]);
      if (!loaded.ok) throw new Error(loaded.error.message);
      try {
        const session = loaded.session;
        expect(value(reply)).toEqual(callTokensReply(session, calls, tokenCache(session, new SessionEstimates(session, recordedContextOf(session)))));
      } finally {
        loaded.session.close();
      }
    } finally {
      followed.close();
    }
  });

  it('counts nothing while a search runs, and goes on once it is over', async () => {
    const s = await opened([heavyLastCall()]);
    const calls = value(s.handle('calls', {})).calls;
    // What the tokenizer had counted at each look of the search at its signal, once the count was asked.
    let asked = false;
    const seen: number[] = [];
    // Until the count is asked, each look of the search at its signal takes 5 ms of the worker's
    // clock: its first slice ends after a few looks, on a machine of any speed.
    const now = performance.now.bind(performance);
    let lent = 0;
    const clock = vi.spyOn(performance, 'now').mockImplementation(() => now() + lent);
    const signal = {
      get aborted() {
        if (asked) seen.push(counted.calls);
        else lent += 5;
        return false;
      },
    };
    // A regex every word begins to match: its pass over the 5 MB hidden looks at its signal often.
    const searching = s.handle('search', params('search', { searchId: 's', query: '[a-z]+ such text', mode: 'regex' }), { signal });
    const before = counted.calls;
    const tokens = s.handle('callTokens', params('callTokens', { call: calls }));
    asked = true;
    try {
      value(await searching);
    } finally {
      clock.mockRestore();
    }
    // The search ran on after the count was asked, and nothing was counted meanwhile.
    expect(seen.length).toBeGreaterThan(1);
    expect(new Set(seen)).toEqual(new Set([before]));
    expect(value(await tokens).messages_total).toBeGreaterThan(40);
    expect(counted.calls).toBeGreaterThan(before);
  });
});
