/**
 * Generated sidecar record streams for the model-call properties (§11): messages, reductions
 * minted over the view as it stands, inverts, rewinds and model switches, in any order.
 */
import fc from 'fast-check';
import { makeReduction } from './builders';
import type { TimelineRecord } from '../calls/timeline';
import type { ChatMessage, Reduction, Role } from '../format/types';

export type Op =
  | { op: 'msg'; role: Role; text: string }
  | { op: 'reduce'; at: number; kind: 'tool_output_elided' | 'tool_output_truncated' | 'turns_cleared'; span: number }
  | { op: 'invert'; which: number }
  | { op: 'rewind'; at: number }
  | { op: 'switch' };

export const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ op: fc.constant('msg' as const), role: fc.constantFrom<Role>('user', 'assistant', 'tool'), text: fc.string({ maxLength: 12 }) }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('reduce' as const), at: fc.nat(), kind: fc.constantFrom('tool_output_elided' as const, 'tool_output_truncated' as const, 'turns_cleared' as const), span: fc.integer({ min: 1, max: 3 }) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('invert' as const), which: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('rewind' as const), at: fc.nat() }) },
  { weight: 1, arbitrary: fc.constant({ op: 'switch' as const }) },
);

/** The records an agent would write for `ops`: messages appended, reductions minted over the view as it stands. */
export function recordsOf(ops: readonly Op[]): TimelineRecord<ChatMessage>[] {
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
