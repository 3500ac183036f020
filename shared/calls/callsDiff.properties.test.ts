/** Properties (fast-check) of the diff of any two calls (SPEC §16 `diff`) over generated sidecar record streams. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addressedRange } from '../resolver/original';
import type { LoadedSession } from '../resolver/session';
import { opArb, recordsOf } from '../testing/callRecords';
import { replay } from '../testing/replay';
import type { CallInput } from './calls';
import type { CallsDiff } from './callsDiff';

/** An input at the message identity level: how many messages, and the reductions addressing each (ids, sorted). */
function stateOf(input: CallInput): string[][] {
  const ids: string[][] = Array.from({ length: input.minted.length }, () => []);
  for (const r of input.log) {
    const [s, e] = addressedRange(r);
    for (let i = Math.max(0, s); i < Math.min(e, ids.length); i++) ids[i]?.push(r.id);
  }
  return ids.map((list) => list.sort());
}

/** `diff` applied to the state of its `from` input. */
function apply(state: readonly string[][], d: CallsDiff): string[][] {
  const dropped = new Set(d.dropped.map((m) => m.index));
  const next = state.filter((_, i) => !dropped.has(i)).map((ids) => [...ids]);
  for (const run of d.changed) {
    for (let i = run.index; i < run.end; i++) {
      const ids = next[i];
      if (!ids) throw new Error(`run past the input at ${i}`);
      next[i] = [...ids.filter((id) => !run.restored.includes(id)), ...run.reduced].sort();
    }
  }
  for (const m of d.added) {
    expect(m.index).toBe(next.length);
    next.push([...m.reductions].sort());
  }
  return next;
}

const sessionArb = fc.array(opArb, { maxLength: 40 }).map((ops) => replay(recordsOf(ops)).session);
const withCalls = (s: LoadedSession): boolean => s.calls.length > 0;
const pick = (s: LoadedSession, k: number): number | null => (k % (s.calls.length + 1)) + 1 > s.calls.length ? null : (k % (s.calls.length + 1)) + 1;

describe('diff of any two calls (properties)', () => {
  it('diff(N, N) is empty: nothing added, dropped, changed or between, the same bytes each way', () => {
    fc.assert(
      fc.property(sessionArb.filter(withCalls), fc.nat(), (s, k) => {
        const n = pick(s, k);
        const d = s.callsDiff(n, n)!;
        expect(d).toMatchObject({ added: [], dropped: [], changed: [], changed_count: 0, reduced: [], restored: [], between: [], compactions: [] });
        expect(d.bytes.from).toBe(d.bytes.to);
      }),
      { numRuns: 200 },
    );
  });

  it('diff(N, M) applied to the input of N gives the input of M, message by message', () => {
    fc.assert(
      fc.property(sessionArb.filter(withCalls), fc.nat(), fc.nat(), (s, j, k) => {
        const n = pick(s, j);
        const m = pick(s, k);
        const d = s.callsDiff(n, m)!;
        expect(apply(stateOf(s.callInput(n)!), d)).toEqual(stateOf(s.callInput(m)!));
        // Every run changes something and names only reductions of its ends.
        for (const run of d.changed) expect(run.reduced.length + run.restored.length).toBeGreaterThan(0);
      }),
      { numRuns: 300 },
    );
  });

  it('diff(M, N) mirrors diff(N, M): added and dropped, reduced and restored swap; the same runs and events between', () => {
    fc.assert(
      fc.property(sessionArb.filter(withCalls), fc.nat(), fc.nat(), (s, j, k) => {
        const n = pick(s, j);
        const m = pick(s, k);
        const there = s.callsDiff(n, m)!;
        const back = s.callsDiff(m, n)!;
        expect(back.added.map((x) => x.index)).toEqual(there.dropped.map((x) => x.index));
        expect(back.dropped.map((x) => x.index)).toEqual(there.added.map((x) => x.index));
        expect(back.changed.map((r) => [r.index, r.end, r.restored, r.reduced])).toEqual(there.changed.map((r) => [r.index, r.end, r.reduced, r.restored]));
        expect(back.changed.filter((r) => r.reduced.length > 0)).toHaveLength(there.changed.filter((r) => r.restored.length > 0).length);
        expect(back.reduced.map((r) => r.reduction_id)).toEqual(there.restored.map((r) => r.reduction_id));
        expect(back.between).toEqual(there.between);
        expect(back.bytes).toEqual({ from: there.bytes.to, to: there.bytes.from });
        // A line diff read backwards: each hunk's '-' lines are the other way's '+' lines.
        back.changed.forEach((r, i) => {
          const flip = (l: string): string => (l.startsWith('+') ? `-${l.slice(1)}` : l.startsWith('-') ? `+${l.slice(1)}` : l);
          const other = there.changed[i]!.text.hunks;
          if (r.text.hunks && other) expect(r.text.hunks.flatMap((h) => h.lines.filter((l) => !l.startsWith(' ')).map(flip)).sort()).toEqual(other.flatMap((h) => h.lines.filter((l) => !l.startsWith(' '))).sort());
        });
      }),
      { numRuns: 300 },
    );
  });
});
