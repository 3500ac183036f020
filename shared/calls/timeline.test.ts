import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { capNotice } from '../format/constants';
import { hasReasoningArtifacts } from '../resolver/reasoning';
import { parseSidecarLine } from '../format/schema';
import { makeReduction, tool, user } from '../testing/builders';
import { applyCap, TimelineBuilder } from './timeline';
import type { SharedTimeline, TimelineRecord } from './timeline';
import type { ChatMessage, SidecarRecord } from '../format/types';

function build(records: SidecarRecord[]) {
  const b = new TimelineBuilder<ChatMessage>(hasReasoningArtifacts);
  records.forEach((r, k) => {
    if (r.t !== 'header') b.add(r, k + 1);
  });
  return b.finish();
}
const msg = (i: number, m: ChatMessage): TimelineRecord<ChatMessage> => ({ t: 'message', i, msg: m });

describe('TimelineBuilder (§3.1–§3.2)', () => {
  const v = [user('u0'), tool('out 1', 'c1'), user('u2'), tool('out 3', 'c3')];
  const r1 = makeReduction(v, { id: 'r1', kind: 'tool_output_elided', index: 1 });
  const r2 = makeReduction(v, { id: 'r2', kind: 'tool_output_elided', index: 3 });

  it('the live log is reductions minus inverts, with their lines', () => {
    const t = build([...v.map((m, i) => msg(i, m)), { t: 'reduction', r: r1 }, { t: 'reduction', r: r2 }, { t: 'invert', id: 'r1' }]);
    expect(t.log.map((r) => r.id)).toEqual(['r2']);
    expect(t.logLines).toEqual([6]);
  });

  it('a rewind truncates the timeline and drops reductions addressing `to` or beyond; the old copy stays recorded', () => {
    const cleared = makeReduction(v, { id: 'r3', kind: 'turns_cleared', index: 0, end: 4 });
    const t = build([...v.map((m, i) => msg(i, m)), { t: 'reduction', r: r1 }, { t: 'reduction', r: r2 }, { t: 'reduction', r: cleared }, { t: 'rewind', to: 3 }, msg(3, tool('rerun', 'c9'))]);
    expect(t.log.map((r) => r.id)).toEqual(['r1']);
    expect(t.view.map((e) => e?.value.content)).toEqual(['u0', 'out 1', 'u2', 'rerun']);
    expect(t.recorded[3]?.value.content).toBe('rerun');
  });

  it('§11 spans: every reduction ever logged keeps its live interval of lines and what ended it', () => {
    const cleared = makeReduction(v, { id: 'r3', kind: 'turns_cleared', index: 0, end: 4 });
    const b = new TimelineBuilder<ChatMessage>(hasReasoningArtifacts);
    const records: TimelineRecord<ChatMessage>[] = [...v.map((m, i) => msg(i, m)), { t: 'reduction', r: r1 }, { t: 'reduction', r: r2 }, { t: 'reduction', r: cleared }, { t: 'invert', id: 'r1' }];
    records.forEach((r, k) => b.add(r, k + 1));
    // A preview taken now keeps its spans as they were: the rewind below does not reach it.
    const before = b.snapshot();
    b.add({ t: 'rewind', to: 3 }, 9);
    const t = b.finish();
    expect(t.spans.map((s) => [s.reduction.id, s.from, s.to, s.ended])).toEqual([
      ['r1', 5, 8, 'inverted'],
      ['r2', 6, 9, 'rewound'],
      ['r3', 7, 9, 'rewound'],
    ]);
    expect(t.log).toEqual([]);
    expect(before.spans.map((s) => s.to)).toEqual([8, undefined, undefined]);
  });

  it('a rewind keeps the branch it abandoned, as it stood, even once its indices are re-recorded', () => {
    const t = build([...v.map((m, i) => msg(i, m)), { t: 'rewind', to: 2 }, msg(2, user('again')), { t: 'rewind', to: 3 }]);
    expect(t.rewinds.map((r) => [r.line, r.to, r.abandoned.map((e) => e?.value.content)])).toEqual([
      [5, 2, ['u2', 'out 3']],
      [7, 3, []],
    ]);
    expect(t.view.map((e) => e?.value.content)).toEqual(['u0', 'out 1', 'again']);
  });

  it('after a rewind, an old-timeline record stays the recorded copy until re-recorded', () => {
    const t = build([...v.map((m, i) => msg(i, m)), { t: 'rewind', to: 2 }]);
    expect(t.view.length).toBe(2);
    expect(t.recorded[3]?.value.content).toBe('out 3');
  });

  it('a message record that skips ahead is address_out_of_range and kept out of the view', () => {
    const t = build([msg(0, user('a')), msg(5, user('b'))]);
    expect(t.view.length).toBe(1);
    expect(t.findings).toMatchObject([{ code: 'address_out_of_range', line: 2, index: 5 }]);
  });

  it('addHole keeps later addresses when a message line is unreadable', () => {
    const b = new TimelineBuilder<ChatMessage>(hasReasoningArtifacts);
    b.add(msg(0, user('a')), 1);
    b.addHole(1);
    b.add(msg(2, user('c')), 3);
    const t = b.finish();
    expect(t.view.length).toBe(3);
    expect(t.view[1]).toBeUndefined();
    expect(t.findings).toEqual([]);
  });

  it('addHole over an index already in the timeline: the unreadable record is the last one there', () => {
    const b = new TimelineBuilder<ChatMessage>(hasReasoningArtifacts);
    b.add(msg(0, user('a')), 1);
    b.add(msg(1, user('b')), 2);
    b.addHole(1);
    const t = b.finish();
    expect(t.view.length).toBe(2);
    expect(t.view[1]).toBeUndefined();
    expect(t.recorded[1]).toBeUndefined();
  });

  it('model_change: a count that disagrees with the recount is model_change_count_mismatch', () => {
    const withArtifacts: ChatMessage = { role: 'assistant', content: 'x', metadata: { reasoning: 'r' } };
    const ok = build([msg(0, user('a')), msg(1, withArtifacts), { t: 'model_change', at: 2, from: 'a', to: 'b', reasoning_artifacts_filtered: 1 }]);
    expect(ok.findings).toEqual([]);
    expect(ok.modelChanges[0]?.recount).toBe(1);
    const bad = build([msg(0, user('a')), msg(1, withArtifacts), { t: 'model_change', at: 2, from: 'a', to: 'b', reasoning_artifacts_filtered: 2 }]);
    expect(bad.findings).toMatchObject([{ code: 'model_change_count_mismatch', severity: 'error', line: 3 }]);
  });

  it('a model switch lists the view indices it stripped, one per counted message', () => {
    const withArtifacts: ChatMessage = { role: 'assistant', content: 'x', metadata: { reasoning: 'r' } };
    const t = build([msg(0, withArtifacts), msg(1, user('a')), msg(2, withArtifacts), { t: 'model_change', at: 3, from: 'a', to: 'b', reasoning_artifacts_filtered: 2 }, msg(3, withArtifacts), { t: 'model_change', at: 4, from: 'b', to: 'c', reasoning_artifacts_filtered: 1 }]);
    expect(t.modelChanges.map((c) => c.stripped)).toEqual([[0, 2], [3]]);
    for (const c of t.modelChanges) expect(c.stripped?.length).toBe(c.recount);
  });

  it('model_change: messages already stripped by an earlier switch are not counted again', () => {
    const withArtifacts: ChatMessage = { role: 'assistant', content: 'x', metadata: { thinking: 'r' } };
    const t = build([
      msg(0, withArtifacts),
      { t: 'model_change', at: 1, from: 'a', to: 'b', reasoning_artifacts_filtered: 1 },
      msg(1, withArtifacts),
      { t: 'model_change', at: 2, from: 'b', to: 'a', reasoning_artifacts_filtered: 1 },
    ]);
    expect(t.findings).toEqual([]);
  });
});

describe('applyCap', () => {
  it('keeps content[0..kept_bytes] (floored to a character) and appends the notice', () => {
    const m = tool('ab\u4E2Dcd', 'c');
    expect(applyCap(m, { kept_bytes: 4, notice: capNotice(5) }).content).toBe(`ab${capNotice(5)}`);
    expect(applyCap(m, { kept_bytes: 5, notice: 'N' }).content).toBe('ab\u4E2DN');
  });
});

describe('parseSidecarLine', () => {
  it('parses every known record type', () => {
    const r = parseSidecarLine('{"t":"rewind","to":3}', 4);
    expect(r).toEqual({ ok: true, record: { t: 'rewind', to: 3 } });
  });
  it('a line that is not JSON is malformed_line with its number', () => {
    expect(parseSidecarLine('{"t":', 7)).toMatchObject({ ok: false, finding: { code: 'malformed_line', severity: 'error', line: 7 } });
  });
  it('an unterminated last line that does not parse is truncated_last_line', () => {
    expect(parseSidecarLine('{"t":"mess', 9, false)).toMatchObject({ ok: false, finding: { code: 'truncated_last_line', severity: 'warning', line: 9 } });
  });
  it('an unterminated last line that parses is a record', () => {
    expect(parseSidecarLine('{"t":"rewind","to":3}', 9, false).ok).toBe(true);
  });
  it('an unknown t is unknown_record (warning)', () => {
    expect(parseSidecarLine('{"t":"telemetry","x":1}', 2)).toMatchObject({ ok: false, finding: { code: 'unknown_record', severity: 'warning' } });
  });
  it('a JSON value that is not an object, or has no t, is malformed_line', () => {
    expect(parseSidecarLine('[1,2]', 1)).toMatchObject({ ok: false, finding: { code: 'malformed_line' } });
    expect(parseSidecarLine('{"x":1}', 1)).toMatchObject({ ok: false, finding: { code: 'malformed_line' } });
  });
  it('a known record of the wrong shape names the field', () => {
    const r = parseSidecarLine('{"t":"reduction","r":{"id":"r1","kind":"tool_output_truncated","ptr":{"index":2,"hash":"h","bytes":3},"stub":"s","minted_at":1}}', 3);
    expect(r).toMatchObject({ ok: false, finding: { code: 'malformed_line', line: 3 } });
    expect(r.ok || r.finding.message).toContain('kept_bytes');
  });
  it('an invalid message record with a readable index reports the hole', () => {
    expect(parseSidecarLine('{"t":"message","i":4,"msg":{"role":"robot","content":"x"}}', 6)).toMatchObject({ ok: false, holeIndex: 4 });
  });
  it('a header of a newer version is unsupported_version and stops reading', () => {
    const line = '{"t":"header","format":"supercode-sidecar","version":2,"session_id":"s","created_at":"","model":"m","gate":true,"policy":null,"new_field":1}';
    expect(parseSidecarLine(line, 1)).toMatchObject({ ok: false, stop: true, finding: { code: 'unsupported_version', severity: 'error' } });
  });
  it('content: null is accepted as empty content', () => {
    const r = parseSidecarLine('{"t":"message","i":0,"msg":{"role":"assistant","content":null}}', 1);
    expect(r.ok && r.record.t === 'message' && r.record.msg.content).toBe('');
  });
});

describe('TimelineBuilder.shared (a followed file is resolved without copying the view)', () => {
  /** A record of a random schedule: messages at any index up to one past the end, holes, rewinds, reductions, inverts. */
  const recordArb = fc.oneof(
    { weight: 6, arbitrary: fc.record({ t: fc.constant('message' as const), back: fc.nat({ max: 6 }), text: fc.string({ maxLength: 4 }) }) },
    { weight: 1, arbitrary: fc.record({ t: fc.constant('hole' as const), back: fc.nat({ max: 6 }) }) },
    { weight: 1, arbitrary: fc.record({ t: fc.constant('rewind' as const), back: fc.nat({ max: 6 }) }) },
    { weight: 2, arbitrary: fc.record({ t: fc.constant('reduction' as const), back: fc.nat({ max: 6 }) }) },
    { weight: 1, arbitrary: fc.record({ t: fc.constant('invert' as const), which: fc.nat() }) },
  );
  /** What a shared answer shows, read below its lengths, as plain data. */
  const shown = (s: SharedTimeline<ChatMessage>) => ({
    view: Array.from({ length: s.viewLength }, (_, i) => (s.view[i] ? { content: s.view[i].value.content, line: s.view[i].line } : undefined)),
    recorded: Array.from({ length: s.recordedLength }, (_, i) => s.recorded[i]?.value.content),
    log: s.log.map((r) => r.id),
    logLines: [...s.logLines],
    spans: s.spans.map((x) => [x.reduction.id, x.from, x.to, x.ended]),
    rewinds: s.rewinds.map((r) => [r.line, r.to, r.abandoned.length]),
    findings: s.findings.length,
  });

  it('after every record equals snapshot(), and an answer handed out never changes as records are added', () => {
    fc.assert(
      fc.property(fc.array(fc.array(recordArb, { maxLength: 6 }), { maxLength: 8 }), (looks) => {
        const b = new TimelineBuilder<ChatMessage>(hasReasoningArtifacts);
        const handedOut: { answer: SharedTimeline<ChatMessage>; was: unknown }[] = [];
        let line = 1;
        const ids: string[] = [];
        for (const look of looks) {
          for (const r of look) {
            const length = b.snapshot().view.length;
            const at = Math.max(0, length - ('back' in r ? r.back : 0));
            if (r.t === 'message') b.add({ t: 'message', i: at, msg: user(`${r.text}@${line}`) }, line);
            else if (r.t === 'hole') b.addHole(at);
            else if (r.t === 'rewind') b.add({ t: 'rewind', to: at }, line);
            else if (r.t === 'reduction') {
              const id = `r${line}`;
              ids.push(id);
              b.add({ t: 'reduction', r: { ...r1Base, id, ptr: { ...r1Base.ptr, index: at } } }, line);
            } else if (ids.length > 0) b.add({ t: 'invert', id: ids[r.which % ids.length] as string }, line);
            line++;
          }
          const answer = b.shared();
          const snap = b.snapshot();
          expect(shown(answer)).toEqual(shown({ ...snap, viewLength: snap.view.length, recordedLength: snap.recorded.length }));
          handedOut.push({ answer, was: shown(answer) });
        }
        for (const h of handedOut) expect(shown(h.answer)).toEqual(h.was);
      }),
      { numRuns: 300 },
    );
  });
  const r1Base = makeReduction([user('u0'), tool('out 1', 'c1')], { id: 'base', kind: 'tool_output_elided', index: 1 });
});
