/**
 * The open reduction's windows inside a 200 MB output — what `Load more`, `Show
 * earlier`, a jump and a long range ask the host for, and what stays shown.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Reply } from '../../shared/contract';
import type { OpenReduction } from './reductionsSlice';
import { EXPAND_WINDOW_BYTES, MAX_SHOWN_BYTES, MAX_WINDOW_BYTES, shownOutcomes, shownRange } from './reductionsSlice';
import { linkOfState } from './linkSlice';
import { createAppStore } from './store';
import type { AppStoreOptions } from './store';
import { deferred, fakeHost, settle } from './testing/fakeHost';

const NO_DELAY: AppStoreOptions['timing'] = { searchDebounceMs: 0, rangeDebounceMs: 0, verifyBatchMs: 0 };
const TOTAL = 200_000_000;
const ALPHABET = 'abcdefghijklmnopqrstuvwxyz';

/** The bytes [s, e) of a 200 MB output of a repeated alphabet (ASCII: a byte is a character). */
function bytesOf(s: number, e: number): string {
  const from = s % 26;
  return (ALPHABET.slice(from) + ALPHABET.repeat(Math.ceil((e - s) / 26) + 1)).slice(0, e - s);
}

async function hugeOutput() {
  const host = fakeHost();
  host.answer('expand', ({ id, range }) => {
    const [s, e] = range ?? [0, TOTAL];
    const end = Math.min(e, TOTAL, s + 4 * 1024 * 1024);
    if (s > end) return { ok: false, error: { code: 'invalid_byte_range', message: `total_bytes is ${TOTAL}` } };
    return { ok: true, value: { reduction_id: id, kind: 'tool_output_elided', index: 0, role: 'tool', content: bytesOf(s, end), range: [s, end], total_bytes: TOTAL, source: 'minted' } };
  });
  const store = createAppStore(host.api, { timing: NO_DELAY });
  store.getState().start();
  await settle();
  return { store, host };
}

type Store = Awaited<ReturnType<typeof hugeOutput>>['store'];

function open(store: Store): OpenReduction {
  const o = store.getState().openReduction;
  if (!o) throw new Error('no open reduction');
  return o;
}

function shown(store: Store): [number, number] | null {
  return shownRange(shownOutcomes(open(store), store.getState().expansions));
}

function shownText(store: Store): string {
  return shownOutcomes(open(store), store.getState().expansions)
    .map((o) => o.content)
    .join('');
}

describe('windows that grow with the output', () => {
  it('Load more appends as much again as is shown, up to 1 MiB; past 4 MiB the earliest windows go', async () => {
    const { store, host } = await hugeOutput();
    store.getState().expand('r0');
    await settle();
    for (let k = 0; k < 10; k++) {
      store.getState().loadMore();
      await settle();
    }
    const sizes = host.callsOf('expand').map((c) => (c.range ? c.range[1] - c.range[0] : -1));
    const KiB = 1024;
    expect(sizes).toEqual([64, 64, 128, 256, 512, 1024, 1024, 1024, 1024, 1024, 1024].map((k) => k * KiB));
    // 64 KiB + … + 1 MiB × 6 = 7 MiB asked: the first 3 MiB left, 4 MiB shown, contiguous.
    expect(shown(store)).toEqual([3 * 1024 * KiB, 7 * 1024 * KiB]);
    expect(shownText(store)).toBe(bytesOf(3 * 1024 * KiB, 7 * 1024 * KiB));
    // Load more moved the range: not one the user chose, so the link names none.
    expect(linkOfState(store.getState()).range).toBeUndefined();
  });

  it('Show earlier prepends the window before, and drops the latest past 4 MiB', async () => {
    const { store, host } = await hugeOutput();
    store.getState().expand('r0');
    await settle();
    store.getState().jumpTo(100_000_000);
    await settle();
    for (let k = 0; k < 3; k++) {
      store.getState().loadMore();
      await settle();
    }
    expect(shown(store)).toEqual([100_000_000, 100_000_000 + MAX_SHOWN_BYTES]);
    const before = host.callsOf('expand').length;
    store.getState().showEarlier();
    await settle();
    expect(host.callsOf('expand').slice(before)).toEqual([{ id: 'r0', range: [100_000_000 - MAX_WINDOW_BYTES, 100_000_000] }]);
    expect(shown(store)).toEqual([100_000_000 - MAX_WINDOW_BYTES, 100_000_000 + MAX_SHOWN_BYTES - MAX_WINDOW_BYTES]);
    expect(shownText(store)).toBe(bytesOf(100_000_000 - MAX_WINDOW_BYTES, 100_000_000 + MAX_SHOWN_BYTES - MAX_WINDOW_BYTES));
  });

  it('a jump reads only the 1 MiB window at its offset, at once, as a range the user chose', async () => {
    const { store, host } = await hugeOutput();
    store.getState().expand('r0');
    await settle();
    const before = host.callsOf('expand').length;
    store.getState().jumpTo(123_456_789);
    // No quiet moment: asked in the same tick.
    expect(host.callsOf('expand').slice(before)).toEqual([{ id: 'r0', range: [123_456_789, 123_456_789 + MAX_WINDOW_BYTES] }]);
    await settle();
    expect(host.callsOf('expand')).toHaveLength(before + 1);
    expect(shown(store)).toEqual([123_456_789, 123_456_789 + MAX_WINDOW_BYTES]);
    expect(linkOfState(store.getState()).range).toEqual([123_456_789, 123_456_789 + MAX_WINDOW_BYTES]);
    // Past the end: the window ends at the end.
    store.getState().jumpTo(TOTAL + 5);
    await settle();
    expect(host.callsOf('expand').at(-1)).toEqual({ id: 'r0', range: [TOTAL, TOTAL] });
  });

  it('a range longer than one window is read window by window from its start, up to 4 MiB', async () => {
    const { store, host } = await hugeOutput();
    store.getState().expand('r0', { range: [1000, 1000 + 10 * MAX_WINDOW_BYTES], pinRange: true });
    await settle();
    const ranges = host.callsOf('expand').map((c) => c.range);
    expect(ranges).toEqual([0, 1, 2, 3].map((k) => [1000 + k * MAX_WINDOW_BYTES, 1000 + (k + 1) * MAX_WINDOW_BYTES]));
    expect(shown(store)).toEqual([1000, 1000 + MAX_SHOWN_BYTES]);
    // The slider keeps what was asked.
    expect(open(store).requested).toEqual([1000, 1000 + 10 * MAX_WINDOW_BYTES]);
  });

  it('a window that lands after a jump is not shown', async () => {
    const { store, host } = await hugeOutput();
    store.getState().expand('r0');
    await settle();
    const held = deferred<Reply<'expand'>>();
    host.answer('expand', () => held.promise);
    store.getState().loadMore();
    expect(open(store).pending).not.toBeNull();
    host.answer('expand', ({ id, range }) => ({ ok: true, value: { reduction_id: id, kind: 'tool_output_elided', index: 0, content: bytesOf(range?.[0] ?? 0, range?.[1] ?? 0), range: range ?? [0, 0], total_bytes: TOTAL, source: 'minted' } }));
    store.getState().jumpTo(50_000_000);
    await settle();
    held.resolve({ ok: true, value: { reduction_id: 'r0', kind: 'tool_output_elided', index: 0, content: bytesOf(EXPAND_WINDOW_BYTES, 2 * EXPAND_WINDOW_BYTES), range: [EXPAND_WINDOW_BYTES, 2 * EXPAND_WINDOW_BYTES], total_bytes: TOTAL, source: 'minted' } });
    await settle();
    expect(shown(store)).toEqual([50_000_000, 50_000_000 + MAX_WINDOW_BYTES]);
    expect(open(store).chunks).toHaveLength(1);
  });

  it('any sequence of loads, earlier windows and jumps asks at most 1 MiB at a time and shows at most 4 MiB, contiguous and exact (fast-check)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.oneof(fc.constant('more' as const), fc.constant('earlier' as const), fc.integer({ min: 0, max: TOTAL })), { minLength: 1, maxLength: 12 }), async (steps) => {
        const { store, host } = await hugeOutput();
        store.getState().expand('r0');
        await settle();
        for (const step of steps) {
          if (step === 'more') store.getState().loadMore();
          else if (step === 'earlier') store.getState().showEarlier();
          else store.getState().jumpTo(step);
          await settle();
          const range = shown(store);
          expect(range).not.toBeNull();
          const [s, e] = range as [number, number];
          expect(e - s).toBeLessThanOrEqual(MAX_SHOWN_BYTES);
          expect(shownText(store)).toBe(bytesOf(s, e));
        }
        for (const c of host.callsOf('expand')) expect((c.range?.[1] ?? 0) - (c.range?.[0] ?? 0)).toBeLessThanOrEqual(MAX_WINDOW_BYTES);
      }),
      { numRuns: 25 },
    );
  });
});
