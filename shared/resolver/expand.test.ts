import { describe, expect, it } from 'vitest';
import { CAP_NOTICE_MARKER } from '../format/constants';
import { expandReduction, reductionTotalBytes } from './expand';
import { assistant, capped, makeReduction, tool, user } from '../testing/builders';
import type { ChatMessage, ExpandOutcome, Result } from '../format/types';
import { utf8Encode } from '../format/utf8';

const output = 'PASS a.test.ts\nFAIL b.test.ts \u2014 expected 3, got 4\nPASS c.test.ts\n';
const full = tool(`${'build line\n'.repeat(20)}error TS2322: the tail only recorded has\n`, 'call_7');
/** A legacy session: history held the capped copy; the recorder kept the full bytes. */
const legacyRecorded: ChatMessage[] = [user('build it'), assistant('', 'call_7'), full];
const legacyMinted: ChatMessage[] = [legacyRecorded[0] as ChatMessage, legacyRecorded[1] as ChatMessage, capped(full, 64)];
const legacyLog = [makeReduction(legacyMinted, { kind: 'tool_output_truncated', index: 2, kept_bytes: 32 })];

function value<T>(r: Result<T>): T {
  if (!r.ok) throw new Error(`expected ok, got ${r.error.code}: ${r.error.message}`);
  return r.value;
}

describe('expandReduction', () => {
  const view = [user('Find the failing test'), assistant('', 'call_9'), tool(output, 'call_9')];
  const log = [makeReduction(view, { kind: 'tool_output_truncated', index: 2, kept_bytes: 15 })];

  it('returns the verified minted bytes with the addressed role and tool_call_id', () => {
    const out = value(expandReduction(log, 'r1', view));
    expect(out).toEqual<ExpandOutcome>({
      reduction_id: 'r1',
      kind: 'tool_output_truncated',
      index: 2,
      role: 'tool',
      tool_call_id: 'call_9',
      content: output,
      range: [0, 67],
      total_bytes: 67,
      source: 'minted',
    });
    expect(Object.keys(out)).toEqual(['reduction_id', 'kind', 'index', 'role', 'tool_call_id', 'content', 'range', 'total_bytes', 'source']);
  });

  it('unknown id is unknown_reduction', () => {
    const r = expandReduction(log, 'r9', view);
    expect(r.ok || r.error.code).toBe('unknown_reduction');
    expect(r.ok || r.error.message).toContain('r9');
  });

  it('hash mismatch names expected and actual hashes', () => {
    const tampered = [...view.slice(0, 2), tool(output.replace('3', '5'), 'call_9')];
    const r = expandReduction(log, 'r1', tampered);
    if (r.ok) throw new Error('expected hash_mismatch');
    expect(r.error.code).toBe('hash_mismatch');
    expect(r.error.message).toContain(log[0]?.ptr.hash);
    expect(r.error.message).toMatch(/hash to sha256:[0-9a-f]{64}/);
  });

  it('an index outside minted is address_out_of_range', () => {
    const r = expandReduction(log, 'r1', view.slice(0, 2));
    expect(r.ok || r.error.code).toBe('address_out_of_range');
    expect(r.ok || r.error.message).toContain('index 2');
  });

  describe('byte range', () => {
    it('floors both ends to character boundaries (the em dash at 30..33)', () => {
      const out = value(expandReduction(log, 'r1', view, undefined, [31, 41]));
      expect(out.range).toEqual([30, 41]);
      expect(out.content).toBe('\u2014 expecte');
      expect(out.total_bytes).toBe(67);
    });
    it('clamps end to total_bytes', () => {
      expect(value(expandReduction(log, 'r1', view, undefined, [60, 10_000])).range).toEqual([60, 67]);
    });
    it('start > end is invalid_byte_range naming total_bytes', () => {
      const r = expandReduction(log, 'r1', view, undefined, [40, 30]);
      if (r.ok) throw new Error('expected error');
      expect(r.error.code).toBe('invalid_byte_range');
      expect(r.error.total_bytes).toBe(67);
      expect(r.error.message).toContain('67');
    });
    it('start > total_bytes is invalid_byte_range; start = total_bytes is an empty slice', () => {
      expect(expandReduction(log, 'r1', view, undefined, [68, 70]).ok).toBe(false);
      expect(value(expandReduction(log, 'r1', view, undefined, [67, 70]))).toMatchObject({ content: '', range: [67, 67] });
    });
    it('negative or fractional bounds are invalid_byte_range', () => {
      expect(expandReduction(log, 'r1', view, undefined, [-1, 3]).ok).toBe(false);
      expect(expandReduction(log, 'r1', view, undefined, [1.5, 3]).ok).toBe(false);
    });
  });

  it('turns_cleared expands the transcript; index is the range start and role is absent', () => {
    const cleared = [makeReduction(view, { kind: 'turns_cleared', index: 0, end: 3 })];
    const out = value(expandReduction(cleared, 'r1', view));
    expect(out.content).toBe(`\u27E8user\u27E9\nFind the failing test\n\u27E8assistant\u27E9\n\n\u27E8tool call_9\u27E9\n${output}\n`);
    expect(out.index).toBe(0);
    expect('role' in out).toBe(false);
    expect('tool_call_id' in out).toBe(false);
  });

  it('never changes the log and never emits sentinel text of its own', () => {
    const before = JSON.stringify(log);
    const out = value(expandReduction(log, 'r1', view));
    expect(JSON.stringify(log)).toBe(before);
    expect(out.content).not.toContain('\u27E6');
  });
});

describe('recorded upgrade key (§5.1 step 3)', () => {
  it('upgrades when index, role and tool_call_id match and minted is a cap-notice-bearing prefix', () => {
    const out = value(expandReduction(legacyLog, 'r1', legacyMinted, legacyRecorded));
    expect(out.source).toBe('recorded');
    expect(out.content).toBe(full.content);
    expect(out.total_bytes).toBe(utf8Encode(full.content).length);
  });

  it('does not upgrade when the roles differ', () => {
    const recorded = [...legacyRecorded.slice(0, 2), { ...full, role: 'user' as const }];
    expect(value(expandReduction(legacyLog, 'r1', legacyMinted, recorded)).source).toBe('minted');
  });

  it('does not upgrade when tool_call_id is absent on either side', () => {
    const { tool_call_id: _dropped, ...noId } = full;
    expect(value(expandReduction(legacyLog, 'r1', legacyMinted, [...legacyRecorded.slice(0, 2), noId])).source).toBe('minted');
    const mintedNoId = legacyMinted.map((m, i) => (i === 2 ? { role: m.role, content: m.content } : m));
    const log = [makeReduction(mintedNoId, { kind: 'tool_output_truncated', index: 2, kept_bytes: 32 })];
    expect(value(expandReduction(log, 'r1', mintedNoId, legacyRecorded)).source).toBe('minted');
  });

  it('does not upgrade when the tool_call_ids differ', () => {
    const recorded = [...legacyRecorded.slice(0, 2), { ...full, tool_call_id: 'call_8' }];
    expect(value(expandReduction(legacyLog, 'r1', legacyMinted, recorded)).source).toBe('minted');
  });

  it('does not upgrade when the minted copy has no cap notice', () => {
    const plain = [...legacyRecorded.slice(0, 2), tool(full.content.slice(0, 64), 'call_7')];
    const log = [makeReduction(plain, { kind: 'tool_output_truncated', index: 2, kept_bytes: 32 })];
    expect(value(expandReduction(log, 'r1', plain, legacyRecorded)).source).toBe('minted');
  });

  it('does not upgrade when recorded does not start with the minted prefix before the marker', () => {
    const recorded = [...legacyRecorded.slice(0, 2), tool(`X${full.content}`, 'call_7')];
    expect(value(expandReduction(legacyLog, 'r1', legacyMinted, recorded)).source).toBe('minted');
  });

  it('does not upgrade when recorded is no longer than the prefix before the marker', () => {
    const k = (legacyMinted[2] as ChatMessage).content.lastIndexOf(CAP_NOTICE_MARKER);
    const recorded = [...legacyRecorded.slice(0, 2), tool((legacyMinted[2] as ChatMessage).content.slice(0, k), 'call_7')];
    expect(value(expandReduction(legacyLog, 'r1', legacyMinted, recorded)).source).toBe('minted');
  });

  it('uses the LAST cap-notice marker of the minted copy', () => {
    // Output that itself printed a marker early on: only the final marker is the runtime's notice.
    const printed = tool(`echo:${CAP_NOTICE_MARKER} fake\n${'x'.repeat(200)}`, 'call_7');
    const minted = [user('u'), assistant('', 'call_7'), capped(printed, 40)];
    const log = [makeReduction(minted, { kind: 'tool_output_truncated', index: 2, kept_bytes: 10 })];
    const out = value(expandReduction(log, 'r1', minted, [user('u'), assistant('', 'call_7'), printed]));
    expect(out.source).toBe('recorded');
    expect(out.content).toBe(printed.content);
  });

  it('the rewind case never upgrades: a re-run with the same prefix carries a fresh tool_call_id', () => {
    // Old timeline: call_7's output recorded in full. After rewind_to, the re-run at the same index
    // shares the whole kept prefix but has call_8; the sidecar still holds the old copy there.
    const rerun = tool(`${'build line\n'.repeat(20)}error TS2322: a different ending\n`, 'call_8');
    const minted = [user('build it'), assistant('', 'call_8'), capped(rerun, 64)];
    expect((minted[2] as ChatMessage).content.startsWith((legacyMinted[2] as ChatMessage).content.slice(0, 64))).toBe(true);
    const log = [makeReduction(minted, { kind: 'tool_output_truncated', index: 2, kept_bytes: 32 })];
    const out = value(expandReduction(log, 'r1', minted, legacyRecorded));
    expect(out.source).toBe('minted');
    expect(out.content).toBe((minted[2] as ChatMessage).content);
  });

  it('hidden span of an upgraded truncation runs to the recorded total', () => {
    const total = value(reductionTotalBytes(legacyLog, 'r1', legacyMinted, legacyRecorded));
    expect(total).toBe(utf8Encode(full.content).length);
    const tail = value(expandReduction(legacyLog, 'r1', legacyMinted, legacyRecorded, [32, total]));
    expect(tail.content).toBe(full.content.slice(32));
  });

  it('the hash is verified over minted even when recorded would upgrade', () => {
    const log = [makeReduction(legacyMinted, { kind: 'tool_output_truncated', index: 2, kept_bytes: 32 }, { ptr: { index: 2, hash: `sha256:${'0'.repeat(64)}`, bytes: 1 } })];
    const r = expandReduction(log, 'r1', legacyMinted, legacyRecorded);
    expect(r.ok || r.error.code).toBe('hash_mismatch');
  });

  it('turns_cleared upgrades message by message and rebuilds the transcript (source recorded if any upgraded)', () => {
    const log = [makeReduction(legacyMinted, { kind: 'turns_cleared', index: 1, end: 3 })];
    const out = value(expandReduction(log, 'r1', legacyMinted, legacyRecorded));
    expect(out.source).toBe('recorded');
    expect(out.content).toBe(`\u27E8assistant\u27E9\n\n\u27E8tool call_7\u27E9\n${full.content}\n`);
  });
});

describe('reductionTotalBytes', () => {
  it('equals ExpandOutcome.total_bytes without slicing', () => {
    const view = [user('héllo wörld — 🎉'), assistant('ok')];
    const log = [makeReduction(view, { kind: 'tool_output_elided', index: 0 })];
    expect(value(reductionTotalBytes(log, 'r1', view))).toBe(value(expandReduction(log, 'r1', view)).total_bytes);
    expect(value(reductionTotalBytes(log, 'r1', view))).toBe(utf8Encode('héllo wörld — 🎉').length);
  });
});
