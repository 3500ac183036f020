/** Properties (fast-check) of `trace` (SPEC §16) over generated sidecar record streams. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { projectView } from '../resolver/project';
import type { Op } from '../testing/callRecords';
import { opArb, recordsOf } from '../testing/callRecords';
import { replay } from '../testing/replay';
import type { LoadedSession } from '../resolver/session';
import { utf8Encode } from '../format/utf8';
import { trace } from './trace';

/** The needle: a character no stub holds, so a row shows it at an offset only where the model saw it. */
const NEEDLE = '~';

/** Messages of `x` and `~` only (the generator's texts mapped), so matches are plentiful. */
const opsArb = fc.array(opArb, { maxLength: 40 }).map((ops) => ops.map((o): Op => (o.op === 'msg' ? { ...o, text: [...o.text].map((c) => (c.charCodeAt(0) % 3 === 0 ? NEEDLE : 'x')).join('') } : o)));

/** The oracle: does the input of `call` (null: the latest view) show the needle at `offset` of message `index`, as its own row? */
function shows(session: LoadedSession, call: number | null, index: number, offset: number): boolean {
  const input = session.callInput(call);
  if (!input || index >= input.minted.length) return false;
  const row = projectView(input.minted, input.log).find((r) => r.index === index && r.end === index + 1);
  if (!row) return false;
  const bytes = utf8Encode(row.text);
  return bytes[offset] === NEEDLE.charCodeAt(0);
}

describe('trace properties (§16)', () => {
  it('visible ranges are sorted, disjoint and apart, within first_call..C; each call agrees with the projected input; hidden_by follows the last range', () => {
    fc.assert(
      fc.property(opsArb, (ops) => {
        const { session } = replay(recordsOf(ops));
        const C = session.calls.length;
        const result = trace({ timeline: session.callTimeline, minted: session.minted, log: session.log }, NEEDLE, { max_occurrences: 1000 });
        expect(result.ok).toBe(true);
        if (!result.ok) return;
        expect(result.value.calls).toBe(C);
        for (const o of result.value.occurrences) {
          const firstHolding = session.calls.findIndex((c) => c.index > o.message_index);
          expect(o.first_call).toBe(firstHolding === -1 ? C + 1 : firstHolding + 1);
          let previous = o.first_call - 2;
          for (const [from, to] of o.visible_calls) {
            expect(from).toBeGreaterThan(previous + 1);
            expect(to).toBeGreaterThanOrEqual(from);
            expect(from).toBeGreaterThanOrEqual(Math.max(1, o.first_call));
            expect(to).toBeLessThanOrEqual(C);
            previous = to;
          }
          for (let call = o.first_call; call <= C; call++) {
            const inRange = o.visible_calls.some(([from, to]) => from <= call && call <= to);
            expect(inRange, `call ${call}, message ${o.message_index}`).toBe(shows(session, call, o.message_index, o.offset));
          }
          expect(o.visible_now).toBe(shows(session, null, o.message_index, o.offset));
          expect(o.hidden_by === null).toBe(o.visible_now);
          const last = o.visible_calls[o.visible_calls.length - 1];
          if (o.hidden_by) expect(o.hidden_by.call).toBe(last ? last[1] + 1 : o.first_call);
          // Each hiding starts a hidden stretch: the call before it saw the text (or held no message).
          for (const h of o.hidings) {
            expect(h.call === o.first_call || o.visible_calls.some(([, to]) => to === h.call - 1)).toBe(true);
          }
          // One hiding per hidden stretch that starts at a call or at the latest view.
          let stretches = 0;
          let seen = true;
          for (let call = o.first_call; call <= C + 1; call++) {
            if (call === C + 1 && o.message_index >= session.minted.length) break;
            const visible = shows(session, call === C + 1 ? null : call, o.message_index, o.offset);
            if (!visible && seen) stretches++;
            seen = visible;
          }
          expect(o.hidings.length).toBe(stretches);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('bounded: at most max_occurrences listed, every match counted, truncated says so; a raised signal cancels', () => {
    fc.assert(
      fc.property(opsArb, fc.integer({ min: 0, max: 5 }), (ops, max) => {
        const { session } = replay(recordsOf(ops));
        const s = { timeline: session.callTimeline, minted: session.minted, log: session.log };
        const all = trace(s, NEEDLE, { max_occurrences: 10_000 });
        const capped = trace(s, NEEDLE, { max_occurrences: max });
        if (!all.ok || !capped.ok) throw new Error('trace failed');
        expect(capped.value.occurrences).toEqual(all.value.occurrences.slice(0, max));
        expect(capped.value.total_matches).toBe(all.value.total_matches);
        expect(capped.value.truncated).toBe(all.value.total_matches > max);
        const cancelled = trace(s, NEEDLE, { signal: { aborted: true } });
        expect(cancelled.ok ? 'ok' : cancelled.error.code).toBe('cancelled');
      }),
      { numRuns: 100 },
    );
  });
});
