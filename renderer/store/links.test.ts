/**
 * Links in the store — going to the place a link names (call, reduction at its range,
 * search with its flags), and the place the app is at read back as the same link.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ContextMapInfo } from '../../shared/contract';
import type { Link } from '../../shared/links/link';
import { formatLink, parseLink } from '../../shared/links/link';
import { RAW_INVISIBLE } from '../../shared/testing/invisible';
import { linkOfState } from './linkSlice';
import { createAppStore } from './store';
import { fakeHost, settle } from './testing/fakeHost';

const CALLS = 5;
const MAP: ContextMapInfo = {
  calls: CALLS,
  index: [1, 3, 5, 7, 9],
  given: [0, 0, 0, 0, 0],
  hidden: [0, 0, 0, 0, 0],
  minted: [0, 0, 0, 0, 0],
  rewinds: [],
  model_switches: [],
  minted_after_last: 0,
  unplaced: 0,
  ended: 0,
};

async function started() {
  const host = fakeHost();
  host.answer('calls', () => ({ ok: true, value: MAP }));
  const store = createAppStore(host.api, { timing: { searchDebounceMs: 0, rangeDebounceMs: 0, verifyBatchMs: 0 } });
  store.getState().start();
  await settle();
  return { store, host };
}

describe('goToLink', () => {
  it('opens the call, expands the reduction at the range, runs the search with its flags; the state reads back as the same link', async () => {
    const { store, host } = await started();
    const link: Link = { call: 3, reduction: 'r40', range: [100, 300], q: 'a.c', regex: true, caseSensitive: false };
    await store.getState().goToLink(link);
    await settle();
    const s = store.getState();
    expect(s.shownCall).toBe(3);
    expect(s.openReduction).toMatchObject({ id: 'r40', requested: [100, 300], userRange: true });
    expect(host.callsOf('expand').at(-1)).toEqual({ id: 'r40', range: [100, 300], call: 3 });
    expect(host.callsOf('search').at(-1)).toMatchObject({ query: 'a.c', mode: 'regex', case_sensitive: false });
    expect(s.activeTab).toBe('search');
    expect(linkOfState(s)).toEqual(link);
  });

  it('a link naming less goes back: the latest view, nothing open, no search', async () => {
    const { store } = await started();
    await store.getState().goToLink({ call: 2, reduction: 'r10', q: 'x' });
    await store.getState().goToLink({});
    await settle();
    const s = store.getState();
    expect([s.shownCall, s.openReduction, s.searchQuery, s.searchResult]).toEqual([null, null, '', null]);
    expect(linkOfState(s)).toEqual({});
  });

  it('a range the user moves to is part of the link; the first window of an expansion is not', async () => {
    const { store } = await started();
    store.getState().expand('r20');
    await settle();
    expect(linkOfState(store.getState())).toEqual({ reduction: 'r20' });
    store.getState().setShownRange([5, 70]);
    await settle();
    expect(linkOfState(store.getState())).toEqual({ reduction: 'r20', range: [5, 70] });
  });

  it('says what it cannot reach, naming the session file shown and what to do, and still goes to the rest', async () => {
    const { store } = await started();
    const parsed = parseLink('#call=99&reduction=nope&range=x&q=abc');
    await store.getState().goToLink(parsed.link, parsed.problems);
    await settle();
    const messages = store.getState().alerts.map((a) => a.message);
    expect(messages).toEqual([
      'The link\'s range must be S:E in bytes, not "x"; the reduction is shown from its start.',
      'The link names model call 99, but demo.sidecar.jsonl has 5 model calls; the view stays where it is.',
      'The link names reduction "nope", which is not in the live log of demo.sidecar.jsonl.',
    ]);
    const next = "The link may be of another session: open the file it was copied from at it, npx session-inspector serve FILE --link '#call=99&reduction=nope&q=abc'.";
    expect(store.getState().alerts.map((a) => a.hint)).toEqual([undefined, next, next]);
    expect(store.getState().searchQuery).toBe('abc');
    expect(store.getState().shownCall).toBeNull();
  });

  it('an alert quotes the link visibly: a bidi override, an escape or a zero-width space in an id or a bad value is a symbol, never raw (fast-check)', async () => {
    const { store } = await started();
    const parsed = parseLink('#reduction=r%E2%80%AE1-gnp&regex=%E2%80%AEyes');
    await store.getState().goToLink(parsed.link, parsed.problems);
    await settle();
    expect(store.getState().alerts.map((a) => a.message)).toEqual([
      'The link\'s regex must be 1 or 0, not "\u27e8U+202E\u27e9yes"; a substring search is run.',
      'The link names reduction "r\u27e8U+202E\u27e91-gnp", which is not in the live log of demo.sidecar.jsonl.',
    ]);
    const hostile = fc.string({ unit: fc.constantFrom('r', '\u202e', '\u2066', '\u200b', '\u2028', '\u001b', '\u009b', '\n', '"'), minLength: 1 });
    await fc.assert(
      fc.asyncProperty(hostile, hostile, async (id, value) => {
        const link = parseLink(`#reduction=${encodeURIComponent(`x${id}`)}&case=${encodeURIComponent(value)}`);
        await store.getState().goToLink(link.link, link.problems);
        await settle();
        for (const a of store.getState().alerts) expect(`${a.message} ${a.hint ?? ''}`).not.toMatch(RAW_INVISIBLE);
      }),
      { numRuns: 100 },
    );
  });

  it('any link of a reachable place reads back as itself once gone to (fast-check)', async () => {
    const { store } = await started();
    await fc.assert(
      fc.asyncProperty(
        fc.record(
          {
            call: fc.integer({ min: 1, max: CALLS }),
            reduction: fc.integer({ min: 0, max: 99 }).map((k) => `r${k * 10}`),
            range: fc.tuple(fc.nat(1000), fc.nat(1000)).map(([a, b]) => [Math.min(a, b), Math.max(a, b)] as const),
            q: fc.string({ minLength: 1, maxLength: 8 }),
            regex: fc.constant(true),
            caseSensitive: fc.constant(false),
          },
          { requiredKeys: [] },
        ),
        async (raw) => {
          // The parser's reading of the link: a range without a reduction or flags without a query say nothing.
          const link: Link = parseLink(formatLink(raw)).link;
          await store.getState().goToLink(link);
          await settle();
          const expected: Link = { ...link };
          if (expected.reduction === undefined) delete expected.range;
          if (expected.q === undefined) {
            delete expected.regex;
            delete expected.caseSensitive;
          }
          expect(linkOfState(store.getState())).toEqual(expected);
        },
      ),
      { numRuns: 40 },
    );
  });
});
