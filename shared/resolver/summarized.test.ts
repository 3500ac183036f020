/** SPEC §10.1 `summarized`: a view range replaced by a summary the model saw, alone or as runs of one compaction (`group`). */
import { describe, expect, it } from 'vitest';
import { expandReduction, reductionTotalBytes } from './expand';
import { viewEntries } from '../calls/calls';
import { checkIntegrity } from './integrity';
import { canonicalFullyVisible, hiddenSpan, resolveOriginal, transcriptOf } from './original';
import { projectView, projectionLayout, rowOfIndex } from './project';
import { reductionSchema } from '../format/schema';
import { sidecarSearch } from '../search';
import { checkReduction } from './status';
import { assistant, capped, makeReduction, tool, user } from '../testing/builders';
import type { ChatMessage, Reduction, Result } from '../format/types';
import { utf8Encode } from '../format/utf8';

function value<T>(r: Result<T>): T {
  if (!r.ok) throw new Error(`expected ok, got ${r.error.code}: ${r.error.message}`);
  return r.value;
}

const view: ChatMessage[] = [
  user('Fix the build'),
  assistant('', 'c1'),
  tool('error: missing semicolon — line 12', 'c1'),
  assistant('Patched it.'),
  user('Now run the tests'),
  assistant('', 'c2'),
  tool('PASS all 40 tests', 'c2'),
  assistant('All green.'),
];

const transcript = (from: number, to: number) => transcriptOf(view.slice(from, to).map((m) => ({ minted: m, content: m.content })));

describe('summarized: expand and slices', () => {
  const sum = makeReduction(view, { id: 's1', kind: 'summarized', index: 0, end: 4, summary: 'The user asked for a build fix; a semicolon was added.' });

  it('expands to the transcript of the range, exactly as turns_cleared; index is the range start and role is absent', () => {
    const out = value(expandReduction([sum], 's1', view));
    expect(out).toEqual({ reduction_id: 's1', kind: 'summarized', index: 0, content: transcript(0, 4), range: [0, utf8Encode(transcript(0, 4)).length], total_bytes: utf8Encode(transcript(0, 4)).length, source: 'minted' });
    expect(value(reductionTotalBytes([sum], 's1', view))).toBe(out.total_bytes);
  });

  it('consecutive slices tile the transcript exactly (the em dash is never split)', () => {
    const total = value(reductionTotalBytes([sum], 's1', view));
    for (const k of [1, 2, 3, 7]) {
      let joined = '';
      for (let s = 0; s < total; s += k) joined += value(expandReduction([sum], 's1', view, undefined, [s, s + k])).content;
      // Flooring both ends to a boundary makes a slice inside the dash empty and the next one carry it.
      expect(joined).toBe(transcript(0, 4));
    }
  });

  it('upgrades capped messages of the range from recorded copies, like turns_cleared', () => {
    const full = tool('x'.repeat(40), 'c1');
    const minted = [view[0] as ChatMessage, view[1] as ChatMessage, capped(full, 10), view[3] as ChatMessage];
    const r = makeReduction(minted, { id: 's1', kind: 'summarized', index: 1, end: 3 });
    const recorded = [undefined, undefined, full, undefined];
    const out = value(expandReduction([r], 's1', minted, { length: 4, at: (i) => recorded[i] }));
    expect(out.source).toBe('recorded');
    expect(out.content).toBe(transcriptOf([{ minted: minted[1] as ChatMessage, content: '' }, { minted: full, content: full.content }]));
  });

  it('hides the whole transcript', () => {
    const bytes = value(resolveOriginal(sum, view, undefined)).bytes;
    expect(hiddenSpan(sum, bytes, [sum])).toEqual([0, bytes.length]);
  });

  it('requires end; group belongs to summarized runs and to the duplicate a compaction left, summary_role to summarized only (schema)', () => {
    const { end: _end, ...noEnd } = sum;
    expect(reductionSchema.safeParse(noEnd).success).toBe(false);
    expect(reductionSchema.safeParse({ ...sum, group: 'g1', summary_role: 'user' }).success).toBe(true);
    const elided = makeReduction(view, { id: 'e', kind: 'tool_output_elided', index: 2 });
    expect(reductionSchema.safeParse({ ...elided, group: 'g1' }).success).toBe(false);
    const moved = makeReduction(view, { id: 'm', kind: 'duplicate_output', index: 2, canonical: 7 });
    expect(reductionSchema.safeParse({ ...moved, group: 'g1' }).success).toBe(true);
    expect(reductionSchema.safeParse({ ...moved, summary_role: 'user' }).success).toBe(false);
    expect(reductionSchema.safeParse({ ...sum, summary_role: 'narrator' }).success).toBe(false);
  });
});

describe('summarized: the projected view', () => {
  it('one row shows the summary and carries the reduction', () => {
    const sum = makeReduction(view, { id: 's1', kind: 'summarized', index: 0, end: 4, summary: 'Summary: build fixed.' });
    const layout = projectionLayout(view.length, [sum]);
    expect(layout.rowCount).toBe(5);
    expect(rowOfIndex(layout, 3)).toBe(0);
    const [row] = projectView(view, [sum], { start: 0, end: 1 });
    expect(row).toEqual({ row: 0, index: 0, end: 4, text: 'Summary: build fixed.', reductions: [{ id: 's1', kind: 'summarized' }], applied: 's1' });
  });

  it('a group: the first run (lowest index) holds the summary, the other runs are rows of their own with no text', () => {
    // One compaction kept messages 2–3 (a preserved segment) and dropped [0,2) and [4,6). The log
    // lists the later run first: "first" is by view index, not log order.
    const later = makeReduction(view, { id: 's2', kind: 'summarized', index: 4, end: 6, group: 'g1', summary: '' });
    const first = makeReduction(view, { id: 's1', kind: 'summarized', index: 0, end: 2, group: 'g1', summary: 'Summary of the whole compaction' });
    const rows = projectView(view, [later, first]);
    expect(rows.map((r) => [r.index, r.end])).toEqual([
      [0, 2],
      [2, 3],
      [3, 4],
      [4, 6],
      [6, 7],
      [7, 8],
    ]);
    expect(rows[0]).toMatchObject({ text: 'Summary of the whole compaction', applied: 's1', compaction: { group: 'g1', summary: 's1' } });
    expect(rows[3]).toMatchObject({ text: '', applied: 's2', compaction: { group: 'g1', summary: 's1' } });
    // Kept messages between the runs show as they are.
    expect(rows[1]).toMatchObject({ text: view[2]?.content, role: 'tool' });
    expect(rows[1]?.compaction).toBeUndefined();
  });

  it('a message the compaction moved: its earlier place shows nothing, is no entry of view, and names where the model was given it', () => {
    // Kept message 3 was given after re-injected context: its copy is message 7 (same bytes), and
    // its earlier place is the compaction's, with the compaction's stub.
    const moved = [...view.slice(0, 7), view[3]!];
    const first = makeReduction(moved, { id: 's1', kind: 'summarized', index: 0, end: 2, group: 'g1', summary: 'Summary' }, { summary_role: 'user' });
    const place = makeReduction(moved, { id: 'm1', kind: 'duplicate_output', index: 3, canonical: 7, group: 'g1' }, { stub: 'Summary' });
    const rows = projectView(moved, [first, place]);
    expect(rows[0]).toMatchObject({ text: 'Summary', compaction: { group: 'g1', summary: 's1', summary_role: 'user' } });
    const at = rows.find((r) => r.index === 3)!;
    expect(at).toMatchObject({ text: '', role: view[3]!.role, applied: 'm1', compaction: { group: 'g1', summary: 's1', moved_to: 7, summary_role: 'user' } });
    const entries = viewEntries({ minted: moved, log: [first, place] });
    expect(entries.map((e) => e.index)).toEqual([0, 2, 4, 5, 6, 7]);
    expect(entries[0]).toMatchObject({ role: null, content: 'Summary', reductions: ['s1', 'm1'] });
    expect(entries[5]).toMatchObject({ content: view[3]!.content, reductions: [] });
    // A grouped duplicate of a compaction without a summary row still shows the model nothing there.
    expect(projectView(moved, [place]).find((r) => r.index === 3)).toMatchObject({ text: '', applied: 'm1' });
  });

  it('a later run shows no text even when the importer repeated the summary in its stub: the model saw it once', () => {
    const a = makeReduction(view, { id: 's1', kind: 'summarized', index: 0, end: 2, group: 'g', summary: 'S' });
    const b = makeReduction(view, { id: 's2', kind: 'summarized', index: 4, end: 6, group: 'g', summary: 'S' });
    expect(projectView(view, [a, b]).filter((r) => r.text === 'S').map((r) => r.applied)).toEqual(['s1']);
  });

  it('a per-message reduction inside a summarized range is listed on the summary row, which shows the summary', () => {
    const sum = makeReduction(view, { id: 's1', kind: 'summarized', index: 0, end: 4, summary: 'Sum' });
    const inner = makeReduction(view, { id: 'e2', kind: 'tool_output_elided', index: 2 });
    const [row] = projectView(view, [inner, sum], { start: 0, end: 1 });
    expect(row).toMatchObject({ text: 'Sum', applied: 's1', reductions: [{ id: 's1', kind: 'summarized' }, { id: 'e2', kind: 'tool_output_elided' }] });
  });
});

describe('summarized: search', () => {
  it('searches message by message (content, not transcript headers), offsets in each message', () => {
    const sum = makeReduction(view, { id: 's1', kind: 'summarized', index: 0, end: 4 });
    const res = value(sidecarSearch([sum], 'e', view, undefined, { max_matches: 1000 }));
    expect(res.reductions_searched).toBe(1);
    // The header ⟨user⟩ holds an "e"; never reported. Every match is inside one message's content.
    for (const m of res.matches) {
      expect(m.reduction_id).toBe('s1');
      expect(utf8Encode(view[m.index]?.content ?? '')[m.offset]).toBe(0x65);
    }
    expect(value(sidecarSearch([sum], '⟨user⟩', view)).total_matches).toBe(0);
    expect(value(sidecarSearch([sum], 'semicolon', view)).matches).toMatchObject([{ reduction_id: 's1', kind: 'summarized', index: 2, offset: 15 }]);
    expect(res.reductions_unavailable).toBeUndefined();
  });

  it('a match in the hidden span of a per-message reduction inside the range is reported once, under that reduction', () => {
    const sum = makeReduction(view, { id: 's1', kind: 'summarized', index: 0, end: 4 });
    const trunc = makeReduction(view, { id: 't2', kind: 'tool_output_truncated', index: 2, kept_bytes: 6 });
    const res = value(sidecarSearch([sum, trunc], 'e', view, undefined, { max_matches: 1000 }));
    const at2 = res.matches.filter((m) => m.index === 2);
    expect(at2.map((m) => [m.offset, m.reduction_id])).toEqual([
      [0, 's1'],
      [16, 't2'],
      [32, 't2'],
    ]);
    expect(res.reductions_searched).toBe(2);
  });

  it('only the visible kept messages of a compaction are not searched', () => {
    const a = makeReduction(view, { id: 's1', kind: 'summarized', index: 0, end: 2, group: 'g' });
    const b = makeReduction(view, { id: 's2', kind: 'summarized', index: 4, end: 6, group: 'g' });
    // "semicolon" (index 2) and "PASS" (index 6) were kept: visible, never searched.
    expect(value(sidecarSearch([a, b], 'semicolon', view)).total_matches).toBe(0);
    expect(value(sidecarSearch([a, b], 'PASS', view)).total_matches).toBe(0);
    expect(value(sidecarSearch([a, b], 'tests', view)).matches).toMatchObject([{ reduction_id: 's2', index: 4 }]);
  });
});

describe('summarized: duplicates and integrity', () => {
  const dupView = [...view, tool('error: missing semicolon — line 12', 'c3')];

  it('a canonical inside a summarized range is not fully visible: the duplicate hides its whole content and is searched', () => {
    const sum = makeReduction(dupView, { id: 's1', kind: 'summarized', index: 0, end: 4 });
    const dup = makeReduction(dupView, { id: 'd8', kind: 'duplicate_output', index: 8, canonical: 2 });
    expect(canonicalFullyVisible(dup, [sum, dup])).toBe(false);
    expect(canonicalFullyVisible(dup, [dup])).toBe(true);
    const res = value(sidecarSearch([sum, dup], 'semicolon', dupView));
    expect(res.matches.map((m) => [m.reduction_id, m.index])).toEqual([
      ['s1', 2],
      ['d8', 8],
    ]);
    expect(checkReduction(dup, [sum, dup], dupView, undefined).hidden_bytes).toBe(utf8Encode(dupView[8]?.content ?? '').length);
  });

  it('a clean compaction has no findings; a bad hash, a bad range and overlapping ranges are reported', () => {
    const a = makeReduction(view, { id: 's1', kind: 'summarized', index: 0, end: 2, group: 'g' });
    const b = makeReduction(view, { id: 's2', kind: 'summarized', index: 4, end: 6, group: 'g' });
    const inner = makeReduction(view, { id: 'e1', kind: 'tool_output_elided', index: 1 });
    expect(checkIntegrity({ minted: view, log: [a, b, inner] })).toEqual([]);

    const badHash: Reduction = { ...a, ptr: { ...a.ptr, hash: `sha256:${'0'.repeat(64)}` } };
    expect(checkIntegrity({ minted: view, log: [badHash] }).map((f) => f.code)).toEqual(['hash_mismatch']);
    const far = makeReduction(view, { id: 's9', kind: 'summarized', index: 6, end: 7 }, { end: 20 });
    expect(checkIntegrity({ minted: view, log: [far] }).map((f) => f.code)).toEqual(['address_out_of_range']);
    const empty = makeReduction(view, { id: 's9', kind: 'summarized', index: 3, end: 4 }, { end: 3 });
    expect(checkIntegrity({ minted: view, log: [empty] }).map((f) => f.code)).toEqual(['address_out_of_range']);

    const overlapping = makeReduction(view, { id: 's3', kind: 'summarized', index: 1, end: 5 });
    const findings = checkIntegrity({ minted: view, log: [a, b, overlapping] });
    expect(findings.map((f) => [f.code, f.reduction_id])).toEqual([
      ['overlapping_reductions', 's3'],
      ['overlapping_reductions', 's3'],
    ]);
    // A summarized range and a turns_cleared range sharing a message overlap too; two turns_cleared do not (one cleared row, as before).
    const cleared = makeReduction(view, { id: 'c1', kind: 'turns_cleared', index: 1, end: 3 });
    expect(checkIntegrity({ minted: view, log: [a, cleared] }).map((f) => f.code)).toEqual(['overlapping_reductions']);
    const cleared2 = makeReduction(view, { id: 'c2', kind: 'turns_cleared', index: 2, end: 4 });
    expect(checkIntegrity({ minted: view, log: [cleared, cleared2] })).toEqual([]);
  });
});
