/** Properties (fast-check) of the model calls (§11) over generated sidecar record streams. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { callInput, callLog, diffCallInputs, diffOfCalls, liveAt, logChanges, type CallTimeline, type ReductionSpan } from './calls';
import { projectView } from '../resolver/project';
import { hasReasoningArtifacts } from '../resolver/reasoning';
import type { Op } from '../testing/callRecords';
import { opArb, recordsOf } from '../testing/callRecords';
import { replay } from '../testing/replay';
import { TimelineBuilder } from './timeline';
import type { ChatMessage, MessageList, Reduction, ReductionKind } from '../format/types';

describe('model call properties (§11)', () => {
  it('replaying the records up to call N gives exactly its input: the same messages and the live log then, nothing minted after it', () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 40 }), (ops) => {
        const records = recordsOf(ops);
        const { session, lineOf } = replay(records);
        for (const call of session.calls) {
          // The oracle: a fresh replay of every record before the call's line.
          const b = new TimelineBuilder<ChatMessage>(hasReasoningArtifacts);
          records.forEach((record, k) => {
            if (lineOf(k) < call.line) b.add(record, lineOf(k));
          });
          const then = b.finish();
          const input = session.callInput(call.call);
          expect(input).toBeDefined();
          expect(then.view.length).toBe(call.index);
          expect(input!.minted.length).toBe(call.index);
          for (let i = 0; i < call.index; i++) expect(input!.minted.at(i)).toBe(then.view[i]?.value);
          expect(input!.log).toEqual(then.log);
          input!.log.forEach((r, k) => expect(r).toBe(then.log[k]));
          // Never a reduction logged at or after the call.
          for (const line of then.logLines) expect(line).toBeLessThan(call.line);
          expect(session.minted.at(call.index)?.role).toBe('assistant');
        }
      }),
      { numRuns: 300 },
    );
  });

  it('the latest input equals projectView of the session, and its reductions are the spans still open', () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 40 }), (ops) => {
        const { session } = replay(recordsOf(ops));
        const latest = session.callInput(null)!;
        expect(projectView(latest.minted, latest.log)).toEqual(projectView(session.minted, session.log));
        // The live log is the reductions live after the last line.
        const open = liveAt(replaySpans(ops), Number.POSITIVE_INFINITY);
        expect(open.map((r) => r.id)).toEqual(session.log.map((r) => r.id));
      }),
      { numRuns: 200 },
    );
  });

  it('the diff of consecutive calls accounts for both logs and every added message', () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 40 }), (ops) => {
        const { session } = replay(recordsOf(ops));
        for (let n = 1; n <= session.calls.length; n++) {
          const a = session.callInput(n)!;
          const b = n < session.calls.length ? session.callInput(n + 1)! : session.callInput(null)!;
          const d = diffCallInputs(a, b);
          const restored = new Set(d.restored.map((x) => x.reduction_id));
          const kept = a.log.filter((r) => !restored.has(r.id) || b.log.includes(r));
          expect(new Set([...kept.map((r) => r.id), ...d.reduced.map((x) => x.reduction_id)])).toEqual(new Set(b.log.map((r) => r.id)));
          // Exactly the records one log holds and the other does not (the diff compares only what follows their shared start).
          const ids = (rs: readonly { id: string }[]): string[] => rs.map((r) => r.id).sort();
          expect(d.reduced.map((x) => x.reduction_id).sort()).toEqual(ids(b.log.filter((r) => !a.log.includes(r))));
          expect(d.restored.map((x) => x.reduction_id).sort()).toEqual(ids(a.log.filter((r) => !b.log.includes(r))));
          expect(d.added.map((m) => m.index)).toEqual(Array.from({ length: Math.max(0, b.minted.length - a.minted.length) }, (_, k) => a.minted.length + k));
        }
      }),
      { numRuns: 200 },
    );
  });
});

describe('a call\'s log (callLog)', () => {
  const spanArb = fc.record({
    from: fc.oneof(fc.integer({ min: 0, max: 30 }), fc.constant(Number.NEGATIVE_INFINITY)),
    index: fc.integer({ min: 0, max: 30 }),
    to: fc.oneof({ weight: 5, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.integer({ min: 0, max: 40 }) }),
    kind: fc.constantFrom<ReductionKind>('tool_output_elided', 'tool_output_elided', 'duplicate_output', 'summarized'),
    other: fc.integer({ min: 0, max: 30 }),
  });
  const callArb = fc.record({ index: fc.integer({ min: 0, max: 32 }), line: fc.integer({ min: -1, max: 42 }) });
  // Spans in runs of line order, or shuffled; with ends, or none (an importer's): the index's cases and not.
  const spansArb = fc.tuple(fc.array(spanArb, { maxLength: 25 }), fc.boolean(), fc.boolean()).map(([raw, sorted, ends]): ReductionSpan[] =>
    (sorted ? [...raw].sort((a, b) => a.from - b.from) : raw).map((s, k) => {
      const range = s.kind === 'summarized' ? { end: s.index + 1 + (s.other % 3) } : {};
      const canonical = s.kind === 'duplicate_output' ? { canonical: { index: s.other, hash: 'h' } } : {};
      return {
        reduction: { id: `r${k}`, kind: s.kind, ptr: { index: s.index, hash: null, bytes: 10 + k }, stub: '', minted_at: 0, ...range, ...canonical },
        from: s.from,
        ...(ends && s.to !== undefined ? { to: s.to } : {}),
      };
    }),
  );
  const timelines = (spans: ReductionSpan[]): CallTimeline[] => [
    { calls: [], spans: Object.freeze([...spans]) },
    { calls: [], spans },
  ];
  const minted: MessageList = { length: 40, at: (i) => (i < 40 ? { role: i % 2 ? 'assistant' : 'user', content: 'x'.repeat(i) } : undefined) };

  it('is the reductions live at the call\'s line that address a message before it, in log order, whether the spans are indexed (frozen) or not', () => {
    fc.assert(
      fc.property(spansArb, fc.array(callArb, { minLength: 1, maxLength: 12 }), (spans, calls) => {
        calls.forEach(({ index, line }, k) => {
          const call = { call: k + 1, index, line };
          const expected = liveAt(spans, line).filter((r) => r.ptr.index < index);
          for (const timeline of timelines(spans)) expect(callLog(timeline, call)).toEqual(expected);
        });
      }),
      { numRuns: 500 },
    );
  });

  it('two calls\' log changes are the set differences of their logs in log order, and their diff is diffCallInputs\'s of their inputs', () => {
    fc.assert(
      fc.property(spansArb, callArb, callArb, (spans, ca, cb) => {
        const a = { call: 1, ...ca };
        const b = { call: 2, ...cb };
        const logA = liveAt(spans, a.line).filter((r) => r.ptr.index < a.index);
        const logB = liveAt(spans, b.line).filter((r) => r.ptr.index < b.index);
        for (const timeline of timelines(spans)) {
          const changes = logChanges(timeline, a, b);
          expect(changes.reduced).toEqual(logB.filter((r) => !logA.includes(r)));
          expect(changes.restored).toEqual(logA.filter((r) => !logB.includes(r)));
          const ended = (r: Reduction) => (r.id.endsWith('1') ? ('inverted' as const) : undefined);
          expect(diffOfCalls(timeline, minted, a, b, ended)).toEqual(diffCallInputs(callInput(timeline, minted, a), callInput(timeline, minted, b), ended));
        }
      }),
      { numRuns: 1000 },
    );
  });
});

function replaySpans(ops: readonly Op[]) {
  const b = new TimelineBuilder<ChatMessage>(hasReasoningArtifacts);
  recordsOf(ops).forEach((record, k) => b.add(record, k + 2));
  return b.finish().spans;
}
