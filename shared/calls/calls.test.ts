/** SPEC §11: model calls, their inputs, the latest view and the diff of two inputs, against hand-computed cases. */
import { describe, expect, it } from 'vitest';
import type { CallInput } from './calls';
import { diffCallInputs, inputHiddenBytes, prefixList, viewEntries } from './calls';
import { capNotice } from '../format/constants';
import { projectView } from '../resolver/project';
import { parseSidecarLine } from '../format/schema';
import { arrayList, makeSession, resolveSession } from '../resolver/session';
import { assistant, makeReduction, tool, user } from '../testing/builders';
import { replay } from '../testing/replay';
import type { TimelineRecord } from './timeline';
import type { ChatMessage, Reduction } from '../format/types';
import { utf8Length } from '../format/utf8';

/** SPEC §9's demo sidecar, line for line. */
const DEMO = [
  '{"t":"header","format":"supercode-sidecar","version":1,"session_id":"s-demo","created_at":"2026-11-30T12:00:00Z","model":"model-a","gate":true,"policy":{"protect_last_n_tool_results":0,"max_tool_result_bytes":16,"kept_prefix_bytes":15,"dedupe":true,"clear_turns_before":null}}',
  '{"t":"system","msg":{"role":"system","content":"You are supercode."}}',
  '{"t":"message","i":0,"msg":{"role":"user","content":"Find the failing test"}}',
  '{"t":"message","i":1,"msg":{"role":"assistant","content":"","tool_calls":[{"id":"call_9","name":"shell","arguments":"{\\"cmd\\":\\"npm test\\"}"}]}}',
  '{"t":"message","i":2,"msg":{"role":"tool","tool_call_id":"call_9","content":"PASS a.test.ts\\nFAIL b.test.ts — expected 3, got 4\\nPASS c.test.ts\\n"}}',
  '{"t":"message","i":3,"msg":{"role":"assistant","content":"Let me look closer."}}',
  '{"t":"reduction","r":{"id":"r1","kind":"tool_output_truncated","ptr":{"index":2,"hash":"sha256:d9c6bca3e4d8e08ddcd6fd471b84fcd8cf7fa17eb05fa002ab04e47ec52a2d69","bytes":67},"kept_bytes":15,"stub":"⟦reduced⟧ id=r1 kind=tool_output_truncated hidden_bytes=52 — expand_reduction(\\"r1\\") restores it","minted_at":4}}',
];

/** The demo's records after its header (record k is line k + 2, as in the file). */
function demoRecords(): TimelineRecord<ChatMessage>[] {
  return DEMO.slice(1).map((text, k) => {
    const parse = parseSidecarLine(text, k + 2);
    if (!parse.ok || parse.record.t === 'header') throw new Error(`demo line ${k + 2} does not parse`);
    return parse.record;
  });
}

const msg = (i: number, m: ChatMessage): TimelineRecord<ChatMessage> => ({ t: 'message', i, msg: m });
const ids = (log: readonly Reduction[]) => log.map((r) => r.id);
const texts = (input: CallInput) => projectView(input.minted, input.log).map((row) => row.text);

describe('model calls (§11)', () => {
  it('§9 demo: call 2 is given messages 0–2 without r1; the latest view has r1 applied', () => {
    const { session } = replay(demoRecords());
    expect(session.calls.map((c) => [c.call, c.index, c.line])).toEqual([
      [1, 1, 4],
      [2, 3, 6],
    ]);
    const call1 = session.callInput(1);
    expect(call1?.minted.length).toBe(1);
    expect(call1?.log).toEqual([]);
    const call2 = session.callInput(2);
    expect(call2?.minted.length).toBe(3);
    expect(ids(call2?.log ?? [])).toEqual([]);
    expect(projectView(call2!.minted, call2!.log)[2]?.text).toBe('PASS a.test.ts\nFAIL b.test.ts — expected 3, got 4\nPASS c.test.ts\n');
    const latest = session.callInput(null);
    expect(latest?.minted.length).toBe(4);
    expect(ids(latest?.log ?? [])).toEqual(['r1']);
    expect(projectView(latest!.minted, latest!.log)[2]?.text).toBe(`PASS a.test.ts\n${latest!.log[0]?.stub}`);
    expect(session.callInput(0)).toBeUndefined();
    expect(session.callInput(3)).toBeUndefined();
    expect(session.callInput(1.5)).toBeUndefined();
  });

  it('§9 demo: from call 2 to the latest view, r1 leaves the context hiding 52 bytes and message 3 (19 bytes) is added', () => {
    const { session } = replay(demoRecords());
    expect(session.callDiff(2, null)).toEqual({
      added: [{ index: 3, role: 'assistant', bytes: 19 }],
      removed: [],
      reduced: [{ index: 2, reduction_id: 'r1', kind: 'tool_output_truncated', hidden_bytes: 52 }],
      restored: [],
    });
    // The other way round: r1 comes back (nothing took it out of the log: no `by`), message 3 goes.
    expect(session.callDiff(null, 2)).toEqual({
      added: [],
      removed: [{ index: 3, role: 'assistant', bytes: 19 }],
      reduced: [],
      restored: [{ index: 2, reduction_id: 'r1', kind: 'tool_output_truncated', hidden_bytes: 52 }],
    });
  });

  const v = [user('go'), assistant('', 'c1'), tool('0123456789', 'c1'), assistant('next'), user('more'), assistant('done')];
  const r1 = makeReduction(v.slice(0, 3), { id: 'r1', kind: 'tool_output_elided', index: 2 });

  it('a reduction inverted after a call: that call saw it applied; later calls and the live log do not', () => {
    const records: TimelineRecord<ChatMessage>[] = [msg(0, v[0]!), msg(1, v[1]!), msg(2, v[2]!), { t: 'reduction', r: r1 }, msg(3, v[3]!), { t: 'invert', id: 'r1' }, msg(4, v[4]!), msg(5, v[5]!)];
    const { session } = replay(records);
    expect(session.calls.map((c) => c.index)).toEqual([1, 3, 5]);
    expect(ids(session.callInput(2)!.log)).toEqual(['r1']);
    expect(texts(session.callInput(2)!)[2]).toBe(r1.stub);
    expect(ids(session.callInput(3)!.log)).toEqual([]);
    expect(session.log).toEqual([]);
    expect(session.callDiff(2, 3)).toEqual({
      added: [
        { index: 3, role: 'assistant', bytes: 4 },
        { index: 4, role: 'user', bytes: 4 },
      ],
      removed: [],
      reduced: [],
      restored: [{ index: 2, reduction_id: 'r1', kind: 'tool_output_elided', hidden_bytes: 10, by: 'inverted' }],
    });
  });

  it('a rewind: abandoned assistant messages are no calls; a reduction it drops was live only before it', () => {
    const r2 = makeReduction(v.slice(0, 3), { id: 'r2', kind: 'tool_output_truncated', index: 2, kept_bytes: 4 });
    const redo = assistant('another way');
    const records: TimelineRecord<ChatMessage>[] = [msg(0, v[0]!), msg(1, v[1]!), msg(2, v[2]!), msg(3, v[3]!), { t: 'reduction', r: r2 }, msg(4, v[4]!), msg(5, v[5]!), { t: 'rewind', to: 2 }, msg(2, redo)];
    const { session, lineOf } = replay(records);
    // Live timeline: go, call c1, another way. The abandoned 3 ("next") and 5 ("done") are no calls.
    expect(session.calls.map((c) => [c.index, c.line])).toEqual([
      [1, lineOf(1)],
      [2, lineOf(8)],
    ]);
    expect(ids(session.callInput(2)!.log)).toEqual([]);
    expect(session.callInput(2)!.minted.at(1)).toBe(v[1]);
    // The call at index 5 of the abandoned timeline was given r2; its interval ends at the rewind.
    const diff = diffCallInputs({ minted: prefixList(arrayList(v), 5), log: [r2] }, session.callInput(null)!, (r) => (r === r2 ? 'rewound' : undefined));
    expect(diff.restored).toEqual([{ index: 2, reduction_id: 'r2', kind: 'tool_output_truncated', hidden_bytes: 6, by: 'rewound' }]);
    expect(diff.removed.map((m) => m.index)).toEqual([3, 4]);
  });

  it('a duplicate whose canonical comes later hides nothing while the canonical is visible, everything when it is cut off', () => {
    const view = [user('go'), assistant('', 'c1'), tool('same bytes', 'c1'), assistant('', 'c2'), tool('same bytes', 'c2'), assistant('ok')];
    const dup = makeReduction(view.slice(0, 5), { id: 'd1', kind: 'duplicate_output', index: 2, canonical: 4 });
    const { session } = replay([...view.slice(0, 5).map((m, i) => msg(i, m)), { t: 'reduction', r: dup }, msg(5, view[5]!)]);
    expect(session.calls.map((c) => c.index)).toEqual([1, 3, 5]);
    expect(ids(session.callInput(2)!.log)).toEqual([]);
    expect(session.callDiff(2, 3)?.reduced).toEqual([{ index: 2, reduction_id: 'd1', kind: 'duplicate_output', hidden_bytes: 0 }]);
    // An input that ends before the canonical cannot show it: the duplicate then hides its 10 bytes.
    expect(inputHiddenBytes(dup, { minted: prefixList(arrayList(view), 4), log: [dup] })).toBe(10);
    // So does one where another reduction hides the canonical.
    const over = makeReduction(view, { id: 'e1', kind: 'tool_output_elided', index: 4 });
    expect(inputHiddenBytes(dup, { minted: arrayList(view), log: [dup, over] })).toBe(10);
  });

  it('caps: a call is given the capped copy history held, as the minted view is', () => {
    const big = tool('abcdefghij', 'c1');
    const { session } = replay([msg(0, v[0]!), msg(1, v[1]!), { t: 'message', i: 2, msg: big, cap: { kept_bytes: 4, notice: capNotice(6) } }, msg(3, v[3]!)]);
    const input = session.callInput(2)!;
    expect(input.minted.at(2)?.content).toBe(`abcd${capNotice(6)}`);
    expect(texts(input)[2]).toBe(`abcd${capNotice(6)}`);
  });

  it('a model switch is no call and changes no message; the calls after it lie after its line', () => {
    const { session, lineOf } = replay([msg(0, v[0]!), msg(1, v[1]!), msg(2, v[2]!), { t: 'model_change', at: 3, from: 'm-a', to: 'm-b', reasoning_artifacts_filtered: 0 }, msg(3, v[3]!)]);
    expect(session.calls.map((c) => c.index)).toEqual([1, 3]);
    expect(session.modelChanges[0]?.line).toBe(lineOf(3));
    expect(session.calls[1]!.line).toBeGreaterThan(session.modelChanges[0]!.line);
    const input = session.callInput(2)!;
    expect([0, 1, 2].map((i) => input.minted.at(i))).toEqual(v.slice(0, 3));
  });

  it('holes: an unreadable record is no call (its role is unknown) but stays in the input of later calls', () => {
    // Record 3 (message 3, an assistant's) and record 4 (message 4) could not be read.
    const { session } = replay([msg(0, v[0]!), msg(1, v[1]!), msg(2, v[2]!), msg(3, v[3]!), msg(4, v[4]!), msg(5, v[5]!)], { 3: 3, 4: 4 });
    expect(session.calls.map((c) => c.index)).toEqual([1, 5]);
    const rows = projectView(session.callInput(2)!.minted, session.callInput(2)!.log);
    expect(rows.map((r) => r.missing === true)).toEqual([false, false, false, true, true]);
    expect(viewEntries(session.callInput(2)!).map((e) => e.role)).toEqual(['user', 'assistant', 'tool', null, null]);
  });

  it('a snapshot with its sidecar: the calls and intervals are the sidecar\'s, the messages the snapshot\'s, the latest log the snapshot\'s', () => {
    const held = v.map((m) => ({ ...m }));
    const snapshotLog = [makeReduction(v, { id: 's9', kind: 'tool_output_elided', index: 4 })];
    const records: TimelineRecord<ChatMessage>[] = [...v.slice(0, 3).map((m, i) => msg(i, m)), { t: 'reduction', r: r1 }, ...v.slice(3).map((m, i) => msg(i + 3, m))];
    const { session } = replay(records, {}, { session_id: 's', model: 'm', messages: arrayList(held), reductions: snapshotLog, findings: [] });
    expect(session.calls.map((c) => c.index)).toEqual([1, 3, 5]);
    expect(session.callInput(2)!.minted.at(0)).toBe(held[0]);
    expect(ids(session.callInput(2)!.log)).toEqual(['r1']);
    expect(ids(session.callInput(null)!.log)).toEqual(['s9']);
  });

  it('a snapshot alone: a reduction minted at view length m applies to the calls at index m or later', () => {
    const early = makeReduction(v.slice(0, 3), { id: 'r1', kind: 'tool_output_elided', index: 2 }); // minted_at 3
    const late = makeReduction(v.slice(0, 5), { id: 'r2', kind: 'tool_output_elided', index: 4 }); // minted_at 5
    const s = makeSession(resolveSession({ files: [], snapshot: { session_id: 's', model: 'm', messages: arrayList(v), reductions: [early, late], findings: [] } }));
    expect(s.calls.map((c) => c.index)).toEqual([1, 3, 5]);
    expect(ids(s.callInput(1)!.log)).toEqual([]);
    expect(ids(s.callInput(2)!.log)).toEqual(['r1']);
    expect(ids(s.callInput(3)!.log)).toEqual(['r1', 'r2']);
  });

  it("an importer's lines: a compaction recorded at line ℓ applies to the calls after ℓ", () => {
    const summary = makeReduction(v.slice(0, 4), { id: 'c1', kind: 'summarized', index: 0, end: 4, group: 'c1' }, { origin: { line: 40 } });
    const s = makeSession(resolveSession({ files: [], snapshot: { session_id: 's', model: 'm', messages: arrayList(v), reductions: [summary], findings: [], messageLines: [10, 20, 30, 35, 45, 50] } }));
    expect(s.calls.map((c) => [c.index, c.line])).toEqual([
      [1, 20],
      [3, 35],
      [5, 50],
    ]);
    expect(viewEntries(s.callInput(2)!).map((e) => e.content)).toEqual(['go', '', '0123456789']);
    expect(viewEntries(s.callInput(3)!)).toEqual([
      { index: 0, role: null, content: summary.stub, reductions: ['c1'] },
      { index: 4, role: 'user', content: 'more', reductions: [] },
    ]);
  });
});

describe('model calls: a reduction an importer gives no line', () => {
  it('applies to every call whose input holds what it hides: nothing shows the model ever saw its original', () => {
    const v = [user('go'), assistant('a'), tool('out', 'k'), assistant('b')];
    const r = makeReduction(v, { id: 'x', kind: 'tool_output_elided', index: 2 }, { origin: { event: 'e1' } });
    const s = makeSession(resolveSession({ files: [], snapshot: { session_id: 's', model: 'm', messages: arrayList(v), reductions: [r], findings: [], messageLines: [1, 2, 3, 4] } }));
    expect(s.calls.map((c) => ids(s.callInput(c.call)!.log))).toEqual([[], ['x']]);
  });
});

describe('viewEntries (§11 `view`)', () => {
  const v = [user('u0'), assistant('a1'), tool('t2', 'k2'), user('u3'), assistant('a4'), tool('t5', 'k5'), user('u6')];

  it('a compaction of two runs is one entry, at the first run, carrying both ids; a cleared range one stub entry', () => {
    const runA = makeReduction(v, { id: 's1', kind: 'summarized', index: 0, end: 2, group: 'g', summary: 'the summary' });
    const runB = makeReduction(v, { id: 's2', kind: 'summarized', index: 3, end: 4, group: 'g', summary: 'the summary' });
    const cleared = makeReduction(v, { id: 'x1', kind: 'turns_cleared', index: 5, end: 7 });
    const entries = viewEntries({ minted: arrayList(v), log: [runB, runA, cleared] });
    expect(entries).toEqual([
      { index: 0, role: null, content: 'the summary', reductions: ['s1', 's2'] },
      { index: 2, role: 'tool', content: 't2', tool_call_id: 'k2', reductions: [] },
      { index: 4, role: 'assistant', content: 'a4', reductions: [] },
      { index: 5, role: null, content: cleared.stub, reductions: ['x1'] },
    ]);
  });

  it('a kept prefix and its stub are one content, as the model was given it', () => {
    const t = makeReduction(v, { id: 'r9', kind: 'tool_output_truncated', index: 2, kept_bytes: 1 });
    expect(viewEntries({ minted: arrayList(v), log: [t] })[2]).toEqual({ index: 2, role: 'tool', content: `t${t.stub}`, tool_call_id: 'k2', reductions: ['r9'] });
  });
});

describe('diffCallInputs', () => {
  it('counts what left by kind (a kept prefix stays), the range of a summary, and the bytes of added messages', () => {
    const v = [user('é'), assistant('中文'), tool('0123456789', 'k'), tool('abcdef', 'j'), user('🎉')];
    const trunc = makeReduction(v, { id: 't', kind: 'tool_output_truncated', index: 2, kept_bytes: 3 });
    const sum = makeReduction(v, { id: 's', kind: 'summarized', index: 0, end: 2, group: 's' });
    const elided = makeReduction(v, { id: 'e', kind: 'tool_output_elided', index: 3 });
    const a = { minted: prefixList(arrayList(v), 3), log: [elided] };
    const b = { minted: arrayList(v), log: [sum, trunc] };
    const transcript = utf8Length('⟨user⟩\né\n⟨assistant⟩\n中文\n');
    expect(diffCallInputs(a, b)).toEqual({
      added: [
        { index: 3, role: 'tool', bytes: 6 },
        { index: 4, role: 'user', bytes: 4 },
      ],
      removed: [],
      reduced: [
        { index: 0, end: 2, reduction_id: 's', kind: 'summarized', hidden_bytes: transcript },
        { index: 2, reduction_id: 't', kind: 'tool_output_truncated', hidden_bytes: 7 },
      ],
      restored: [{ index: 3, reduction_id: 'e', kind: 'tool_output_elided', hidden_bytes: 6 }],
    });
  });

  it('an original the file does not state the size of hides null bytes', () => {
    const v = [tool('abc', 'k')];
    const gone = makeReduction(v, { id: 'u', kind: 'tool_output_elided', index: 0, unavailable: true }, { ptr: { index: 0, hash: null, bytes: null } });
    expect(diffCallInputs({ minted: arrayList(v), log: [] }, { minted: arrayList(v), log: [gone] }).reduced[0]?.hidden_bytes).toBeNull();
  });
});
