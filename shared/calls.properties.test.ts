/** Properties (fast-check) of the model calls (§11) over generated sidecar record streams. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { diffCallInputs, liveAt } from './calls';
import { projectView } from './project';
import { hasReasoningArtifacts } from './reasoning';
import { makeReduction } from './testing/builders';
import { replay } from './testing/replay';
import type { TimelineRecord } from './timeline';
import { TimelineBuilder } from './timeline';
import type { ChatMessage, Reduction, Role } from './types';

type Op =
  | { op: 'msg'; role: Role; text: string }
  | { op: 'reduce'; at: number; kind: 'tool_output_elided' | 'tool_output_truncated' | 'turns_cleared'; span: number }
  | { op: 'invert'; which: number }
  | { op: 'rewind'; at: number }
  | { op: 'switch' };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ op: fc.constant('msg' as const), role: fc.constantFrom<Role>('user', 'assistant', 'tool'), text: fc.string({ maxLength: 12 }) }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('reduce' as const), at: fc.nat(), kind: fc.constantFrom('tool_output_elided' as const, 'tool_output_truncated' as const, 'turns_cleared' as const), span: fc.integer({ min: 1, max: 3 }) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('invert' as const), which: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('rewind' as const), at: fc.nat() }) },
  { weight: 1, arbitrary: fc.constant({ op: 'switch' as const }) },
);

/** The records an agent would write for `ops`: messages appended, reductions minted over the view as it stands. */
function recordsOf(ops: readonly Op[]): TimelineRecord<ChatMessage>[] {
  const view: ChatMessage[] = [];
  const minted: Reduction[] = [];
  const records: TimelineRecord<ChatMessage>[] = [];
  for (const o of ops) {
    if (o.op === 'msg') {
      const m: ChatMessage = o.role === 'tool' ? { role: 'tool', tool_call_id: `c${view.length}`, content: o.text } : { role: o.role, content: o.text };
      records.push({ t: 'message', i: view.length, msg: m });
      view.push(m);
    } else if (o.op === 'reduce' && view.length > 0) {
      const index = o.at % view.length;
      const id = `r${minted.length + 1}`;
      const r =
        o.kind === 'turns_cleared'
          ? makeReduction(view, { id, kind: o.kind, index, end: Math.min(view.length, index + o.span) })
          : makeReduction(view, { id, kind: o.kind, index, ...(o.kind === 'tool_output_truncated' ? { kept_bytes: 0 } : {}) });
      minted.push(r);
      records.push({ t: 'reduction', r });
    } else if (o.op === 'invert' && minted.length > 0) {
      records.push({ t: 'invert', id: (minted[o.which % minted.length] as Reduction).id });
    } else if (o.op === 'rewind') {
      const to = o.at % (view.length + 1);
      view.length = to;
      records.push({ t: 'rewind', to });
    } else if (o.op === 'switch') {
      records.push({ t: 'model_change', at: view.length, from: 'm-a', to: 'm-b', reasoning_artifacts_filtered: 0 });
    }
  }
  return records;
}

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
          expect(d.added.map((m) => m.index)).toEqual(Array.from({ length: Math.max(0, b.minted.length - a.minted.length) }, (_, k) => a.minted.length + k));
        }
      }),
      { numRuns: 200 },
    );
  });
});

function replaySpans(ops: readonly Op[]) {
  const b = new TimelineBuilder<ChatMessage>(hasReasoningArtifacts);
  recordsOf(ops).forEach((record, k) => b.add(record, k + 2));
  return b.finish().spans;
}
