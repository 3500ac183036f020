import { describe, expect, it } from 'vitest';
import type { ChatMessage, Reduction, Result, SidecarRecord, SidecarSearchResult } from '../../shared/index';
import {
  CAP_NOTICE_MARKER,
  NATIVE_REDUCTION_KINDS,
  REDUCTION_SENTINEL,
  canonicalFullyVisible,
  capNotice,
  expandReduction,
  filterReasoningArtifacts,
  hasReasoningArtifacts,
  isCapNoticeBearingPrefix,
  isCharBoundary,
  recordedSupersedes,
  sidecarSearch,
  utf8Encode,
  utf8Length,
} from '../../shared/index';
import { inspectSample } from './sampleCheck';
import type { GeneratedSession } from './sessionGenerator';
import { DEFAULT_MESSAGES, LEGACY_CAP_BYTES, MODEL_A, MODEL_B, generateSession, samplePolicy, sidecarText, snapshotText } from './sessionGenerator';

function value<T>(r: Result<T>): T {
  if (!r.ok) throw new Error(`expected ok, got ${r.error.code}: ${r.error.message}`);
  return r.value;
}

type MessageRecord = Extract<SidecarRecord, { t: 'message' }>;

function messageRecords(records: readonly SidecarRecord[]): MessageRecord[] {
  return records.filter((r): r is MessageRecord => r.t === 'message');
}

/** The view as the sidecar's records resolve it (timeline + caps) and the recorded copies. */
function resolved(g: GeneratedSession) {
  const sample = inspectSample({ sidecar: sidecarText(g.records) });
  return { minted: sample.minted, recorded: sample.recorded ?? [], log: sample.log, timeline: sample.timeline };
}

const gated = generateSession();
const legacy = generateSession({ legacy: true });
const others = [1, 42, 987_654_321].flatMap((seed) => [generateSession({ seed }), generateSession({ seed, legacy: true }), generateSession({ seed, messages: 40, compact: true })]);
const all = [gated, legacy, ...others];

describe('determinism', () => {
  it('the same seed gives byte-identical files', () => {
    for (const options of [{}, { legacy: true }, { seed: 7, messages: 120 }]) {
      const a = generateSession(options);
      const b = generateSession(options);
      expect(sidecarText(a.records)).toBe(sidecarText(b.records));
      expect(snapshotText(a.snapshot)).toBe(snapshotText(b.snapshot));
    }
  });

  it('different seeds give different sessions', () => {
    const a = generateSession({ seed: 1 });
    const b = generateSession({ seed: 2 });
    expect(sidecarText(a.records)).not.toBe(sidecarText(b.records));
    expect(a.snapshot.session_id).not.toBe(b.snapshot.session_id);
    expect(a.records[0]).not.toEqual(b.records[0]);
  });

  it('rejects a seed or a length it cannot honour', () => {
    expect(() => generateSession({ seed: -1 })).toThrow(RangeError);
    expect(() => generateSession({ seed: 2 ** 32 })).toThrow(RangeError);
    expect(() => generateSession({ messages: 0 })).toThrow(RangeError);
    expect(() => generateSession({ messages: 2.5 })).toThrow(RangeError);
  });
});

describe('file shape', () => {
  it('starts with the header, then the system prompt; created_at comes from the seed', () => {
    for (const g of all) {
      const [header, system] = g.records;
      expect(header?.t).toBe('header');
      expect(system?.t).toBe('system');
      if (header?.t !== 'header') continue;
      expect(header.format).toBe('supercode-sidecar');
      expect(header.version).toBe(1);
      expect(header.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      expect(header.session_id).toBe(g.snapshot.session_id);
      expect(header.model).toBe(MODEL_A);
      expect(g.snapshot.model).toBe(MODEL_B);
    }
    expect(gated.records[0]).toMatchObject({ gate: true });
    expect(legacy.records[0]).toMatchObject({ gate: false });
    const created = (seed: number) => (generateSession({ seed, messages: 1 }).records[0] as { created_at: string }).created_at;
    expect(created(5)).not.toBe(created(6));
  });

  it('the header holds the final policy: the last cleared range ends at its clear_turns_before', () => {
    for (const g of all) {
      const header = g.records[0];
      if (header?.t !== 'header') throw new Error('no header');
      const cleared = (g.snapshot.reductions ?? []).filter((r) => r.kind === 'turns_cleared');
      expect(header.policy).toEqual(samplePolicy(Math.max(...cleared.map((r) => r.end ?? 0))));
      expect(cleared.length).toBeGreaterThanOrEqual(2);
    }
  });

  it('message records are {t, i, msg, cap?}, indices contiguous within a timeline', () => {
    for (const g of all) {
      let next = 0;
      for (const r of g.records) {
        if (r.t === 'rewind') next = r.to;
        if (r.t !== 'message') continue;
        expect(Object.keys(r).sort()).toEqual(r.cap ? ['cap', 'i', 'msg', 't'] : ['i', 'msg', 't']);
        expect(r.i).toBe(next++);
      }
      expect(next).toBe(g.snapshot.messages.length);
    }
  });

  it('the view length is about what was asked for', () => {
    expect(Math.abs(gated.snapshot.messages.length - DEFAULT_MESSAGES)).toBeLessThanOrEqual(6);
    for (const messages of [120, 300]) expect(Math.abs(generateSession({ messages, seed: 3 }).snapshot.messages.length - messages)).toBeLessThanOrEqual(6);
    // Fewer than the script needs gives the scripted session alone.
    expect(generateSession({ messages: 1 }).snapshot.messages.length).toBeLessThan(60);
  });

  it('every file stays well under 1 MB', () => {
    for (const g of [gated, legacy]) {
      expect(utf8Length(sidecarText(g.records))).toBeLessThan(512 * 1024);
      expect(utf8Length(snapshotText(g.snapshot))).toBeLessThan(512 * 1024);
    }
  });

  it('the snapshot is the final view and the live log, and agrees with the sidecar', () => {
    for (const g of all) {
      const { minted, log } = resolved(g);
      expect(minted.map((m) => m?.content)).toEqual(g.snapshot.messages.map((m) => m.content));
      expect(log).toEqual(g.snapshot.reductions);
    }
  });
});

describe('content', () => {
  const tools = messageRecords(gated.records).filter((r) => r.msg.role === 'tool');
  const contents = tools.map((r) => r.msg.content);

  it('mixes ANSI colours, CJK, emoji, stack traces, JSON, and source in three languages', () => {
    const joined = contents.join('\n');
    expect(joined).toContain('\u001b[31m');
    expect(joined).toContain('\u001b[39m');
    expect(joined).toMatch(/[\u4e00-\u9fff]/);
    expect(joined).toMatch(/\p{Extended_Pictographic}/u);
    expect(joined).toContain('stack backtrace:');
    expect(joined).toMatch(/^use crate::/m);
    expect(joined).toMatch(/^import .* from '/m);
    expect(joined).toMatch(/^from __future__ import annotations$/m);
    expect(joined).toMatch(/error.*TS\d{4}/);
    expect(joined).toContain('Compiling');
    expect(contents.some((c) => utf8Length(c) !== c.length)).toBe(true);
    expect(contents.some((c) => c.split('\n').some((line) => line.length > 2000))).toBe(true);
    expect(contents.some((c) => c.startsWith('{') && typeof JSON.parse(c) === 'object')).toBe(true);
  });

  it('sizes range from about 100 bytes to tens of KB', () => {
    const sizes = contents.map(utf8Length);
    expect(Math.min(...sizes)).toBeLessThan(400);
    expect(Math.max(...sizes)).toBeGreaterThan(20_000);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(48_000);
  });

  it('tool calls carry JSON text arguments and every result answers a call', () => {
    const calls = new Map<string, string>();
    for (const r of messageRecords(gated.records)) {
      for (const c of r.msg.tool_calls ?? []) {
        expect(typeof JSON.parse(c.arguments)).toBe('object');
        calls.set(c.id, c.name);
      }
      if (r.msg.role === 'tool') expect(calls.get(r.msg.tool_call_id ?? '')).toBe(r.msg.name);
    }
    expect([...calls.values()]).toEqual(expect.arrayContaining(['shell', 'read_file', 'screenshot', 'expand_reduction', 'sidecar_search']));
  });

  it('no generated original ever contains the sentinel', () => {
    for (const g of all) for (const r of messageRecords(g.records)) expect(r.msg.content).not.toContain(REDUCTION_SENTINEL);
  });
});

describe('the guaranteed cases', () => {
  it('all four reduction kinds are live at the end', () => {
    for (const g of all) {
      const kinds = new Set((g.snapshot.reductions ?? []).map((r) => r.kind));
      expect([...kinds].sort()).toEqual([...NATIVE_REDUCTION_KINDS].sort());
    }
  });

  it('every live reduction verifies: expand succeeds for every id, from the snapshot and from the sidecar alone', () => {
    for (const g of all) {
      const log = g.snapshot.reductions ?? [];
      const side = resolved(g);
      for (const r of log) {
        const fromSnapshot = value(expandReduction(log, r.id, g.snapshot.messages));
        expect(fromSnapshot.source).toBe('minted');
        expect(fromSnapshot.total_bytes).toBe(r.ptr.bytes);
        value(expandReduction(side.log, r.id, side.minted, side.recorded));
      }
    }
  });

  it('a turns_cleared range encloses an output truncated before the clearing', () => {
    for (const g of all) {
      const { id, index, clearedBy } = g.landmarks.clearedTruncation;
      const log = g.snapshot.reductions ?? [];
      const truncation = log.find((r) => r.id === id) as Reduction;
      const cleared = log.find((r) => r.id === clearedBy) as Reduction;
      expect(truncation.kind).toBe('tool_output_truncated');
      expect(cleared.kind).toBe('turns_cleared');
      expect(cleared.ptr.index).toBeLessThanOrEqual(index);
      expect(cleared.end).toBeGreaterThan(index);
      expect(truncation.minted_at).toBeLessThan(cleared.minted_at);
      const lines = sidecarText(g.records).split('\n');
      expect(lines.findIndex((l) => l.includes(`"id":"${id}"`))).toBeLessThan(lines.findIndex((l) => l.includes(`"id":"${clearedBy}"`)));
    }
  });

  it('a duplicate whose canonical stays fully visible is never a search hit', () => {
    for (const g of all) {
      const log = g.snapshot.reductions ?? [];
      const { id, index, canonical, needle } = g.landmarks.visibleDuplicate;
      const dup = log.find((r) => r.id === id) as Reduction;
      expect(dup).toMatchObject({ kind: 'duplicate_output', ptr: { index }, canonical: { index: canonical } });
      expect(canonicalFullyVisible(dup, log)).toBe(true);
      expect(g.snapshot.messages[index]?.content).toContain(needle);
      expect(g.snapshot.messages.filter((m) => m.content.includes(needle))).toHaveLength(2);
      const res: SidecarSearchResult = value(sidecarSearch(log, needle, g.snapshot.messages));
      expect(res.matches.filter((m) => m.reduction_id === id)).toEqual([]);
      expect(res.total_matches).toBe(0);
    }
  });

  it('a duplicate whose canonical is hidden is searchable', () => {
    for (const g of all) {
      const log = g.snapshot.reductions ?? [];
      const side = resolved(g);
      const { id, index, canonical, needle } = g.landmarks.hiddenDuplicate;
      const dup = log.find((r) => r.id === id) as Reduction;
      expect(dup).toMatchObject({ kind: 'duplicate_output', ptr: { index }, canonical: { index: canonical } });
      expect(canonicalFullyVisible(dup, log)).toBe(false);
      expect(log.some((r) => r.kind === 'tool_output_truncated' && r.ptr.index === canonical)).toBe(true);
      for (const res of [value(sidecarSearch(log, needle, g.snapshot.messages)), value(sidecarSearch(side.log, needle, side.minted, side.recorded))]) {
        expect(res.matches.some((m) => m.reduction_id === id && m.index === index)).toBe(true);
      }
    }
  });

  it('an oversized output with an image part is elided', () => {
    for (const g of all) {
      const { id, index } = g.landmarks.elided;
      const msg = g.snapshot.messages[index] as ChatMessage;
      expect(msg.content_parts?.some((p) => p.type === 'image')).toBe(true);
      expect(utf8Length(msg.content)).toBeGreaterThan(samplePolicy(null).max_tool_result_bytes);
      expect((g.snapshot.reductions ?? []).find((r) => r.id === id)?.kind).toBe('tool_output_elided');
    }
  });

  it('kept prefixes are floored to character boundaries, and at least one floor moves', () => {
    const kept: number[] = [];
    for (const g of all) {
      for (const r of g.snapshot.reductions ?? []) {
        if (r.kind !== 'tool_output_truncated') continue;
        const bytes = utf8Encode(g.snapshot.messages[r.ptr.index]?.content ?? '');
        expect(isCharBoundary(bytes, r.kept_bytes ?? -1)).toBe(true);
        kept.push(r.kept_bytes ?? 0);
      }
    }
    expect(kept.some((k) => k < samplePolicy(null).kept_prefix_bytes)).toBe(true);
  });
});

describe('rewind and re-run', () => {
  it('drops the reductions addressing `to` or beyond, then re-runs the command at the same index with a fresh id', () => {
    for (const g of all) {
      const { to, index, oldToolCallId, newToolCallId, oldContent, newContent, rewoundIds } = g.landmarks.rewind;
      const rewindAt = g.records.findIndex((r) => r.t === 'rewind' && r.to === to);
      expect(rewindAt).toBeGreaterThan(0);
      const before = messageRecords(g.records.slice(0, rewindAt)).filter((r) => r.i === index);
      const after = messageRecords(g.records.slice(rewindAt)).filter((r) => r.i === index);
      expect(before.map((r) => [r.msg.role, r.msg.tool_call_id])).toEqual([['tool', oldToolCallId]]);
      expect(after.map((r) => [r.msg.role, r.msg.tool_call_id])).toEqual([['tool', newToolCallId]]);
      expect(newToolCallId).not.toBe(oldToolCallId);
      expect(before[0]?.msg.content).toBe(oldContent);
      expect(after[0]?.msg.content).toBe(newContent);
      // Same command, fresh call, same position.
      const callBefore = messageRecords(g.records.slice(0, rewindAt)).filter((r) => r.i === to);
      const callAfter = messageRecords(g.records.slice(rewindAt)).filter((r) => r.i === to);
      expect(callBefore[0]?.msg.tool_calls?.[0]?.arguments).toBe(callAfter[0]?.msg.tool_calls?.[0]?.arguments);
      // A long shared prefix (beyond the kept prefix, and beyond the legacy cap unless compact), different later.
      let shared = 0;
      const a = utf8Encode(oldContent);
      const b = utf8Encode(newContent);
      while (a[shared] === b[shared]) shared++;
      expect(shared).toBeGreaterThan(samplePolicy(null).kept_prefix_bytes);
      expect(oldContent).not.toBe(newContent);
      // The rewound truncation of the old run left the live log; the re-run was truncated afresh.
      expect(rewoundIds.length).toBeGreaterThan(0);
      const rewound = g.records.filter((r): r is Extract<SidecarRecord, { t: 'reduction' }> => r.t === 'reduction').slice(0, g.records.slice(0, rewindAt).filter((r) => r.t === 'reduction').length);
      expect(rewound.some((r) => rewoundIds.includes(r.r.id) && r.r.ptr.index === index)).toBe(true);
      for (const r of g.snapshot.reductions ?? []) {
        if (r.ptr.index === index) expect(r.minted_at).toBeGreaterThan(to);
      }
      expect(resolved(g).timeline?.log).toEqual(g.snapshot.reductions);
    }
    expect(gated.landmarks.rewind.oldContent.slice(0, LEGACY_CAP_BYTES)).toBe(gated.landmarks.rewind.newContent.slice(0, LEGACY_CAP_BYTES));
  });

  it('never upgrades in a gated session: every expansion is minted', () => {
    for (const g of [gated, ...others.filter((o) => o.records[0]?.t === 'header' && o.records[0].gate)]) {
      const { minted, recorded, log } = resolved(g);
      for (const r of log) expect(value(expandReduction(log, r.id, minted, recorded)).source).toBe('minted');
    }
  });
});

describe('model switch', () => {
  it('records the count filterReasoningArtifacts returns over the view before the switch', () => {
    for (const g of all) {
      const { at, from, to, count } = g.landmarks.modelChange;
      const rec = g.records.find((r) => r.t === 'model_change');
      expect(rec).toEqual({ t: 'model_change', at, from, to, reasoning_artifacts_filtered: count });
      expect(count).toBeGreaterThan(0);
      // Recount independently: the view before the switch, as the sidecar recorded it at push time.
      const idx = g.records.indexOf(rec as SidecarRecord);
      const view: ChatMessage[] = [];
      for (const r of g.records.slice(0, idx)) {
        if (r.t === 'rewind') view.length = r.to;
        if (r.t === 'message') view[r.i] = structuredClone(r.msg);
      }
      expect(view).toHaveLength(at);
      expect(filterReasoningArtifacts(view)).toBe(count);
      // The timeline's own recount agrees (no model_change_count_mismatch).
      const timeline = resolved(g).timeline;
      expect(timeline?.modelChanges.map((m) => m.recount)).toEqual([count]);
    }
  });

  it('covers metadata keys and content parts, and the snapshot holds the filtered copies', () => {
    for (const g of all) {
      const written = messageRecords(g.records).map((r) => r.msg);
      expect(written.some((m) => typeof m.metadata?.reasoning_content === 'string')).toBe(true);
      expect(written.some((m) => typeof m.metadata?.thinking_signature === 'string')).toBe(true);
      expect(written.some((m) => m.content_parts?.some((p) => p.type === 'thinking'))).toBe(true);
      expect(g.snapshot.messages.some(hasReasoningArtifacts)).toBe(false);
      // Non-reasoning metadata and parts survive the filter.
      expect(g.snapshot.messages.some((m) => m.metadata?.model === MODEL_A)).toBe(true);
    }
  });
});

describe('legacy (gate off)', () => {
  const capped = messageRecords(legacy.records).filter((r) => r.cap);
  const live = messageRecords(legacy.records).filter((r) => r.cap && r.i < legacy.snapshot.messages.length);

  it('caps long tool outputs in history; the record keeps the full bytes and the cap', () => {
    expect(capped.length).toBeGreaterThanOrEqual(3);
    for (const r of capped) {
      expect(r.msg.role).toBe('tool');
      const full = utf8Encode(r.msg.content);
      const k = r.cap?.kept_bytes ?? -1;
      expect(full.length).toBeGreaterThan(LEGACY_CAP_BYTES);
      expect(k).toBeLessThanOrEqual(LEGACY_CAP_BYTES);
      expect(k).toBeGreaterThan(LEGACY_CAP_BYTES - 4);
      expect(isCharBoundary(full, k)).toBe(true);
      expect(r.cap?.notice).toBe(capNotice(full.length - k));
    }
    expect(capped.some((r) => (r.cap?.kept_bytes ?? 0) < LEGACY_CAP_BYTES)).toBe(true);
    // The snapshot (history) holds content[0..k] + notice for the current timeline's capped messages.
    const last = new Map(messageRecords(legacy.records).map((r) => [r.i, r]));
    for (const r of live) {
      if (last.get(r.i) !== r) continue;
      const k = r.cap?.kept_bytes ?? 0;
      const held = legacy.snapshot.messages[r.i]?.content ?? '';
      expect(utf8Encode(held).subarray(0, k)).toEqual(utf8Encode(r.msg.content).subarray(0, k));
      expect(held.endsWith(r.cap?.notice ?? '?')).toBe(true);
      expect(utf8Length(held)).toBe(k + utf8Length(r.cap?.notice ?? ''));
    }
  });

  it('mints over the capped view and upgrades expansions from the recorded copy', () => {
    const { minted, recorded, log } = resolved(legacy);
    const upgraded = log.filter((r) => value(expandReduction(log, r.id, legacy.snapshot.messages, recorded)).source === 'recorded');
    expect(upgraded.length).toBeGreaterThan(0);
    expect(upgraded.some((r) => r.kind === 'turns_cleared')).toBe(true);
    for (const r of upgraded.filter((u) => u.kind !== 'turns_cleared')) {
      const heldBytes = utf8Length(legacy.snapshot.messages[r.ptr.index]?.content ?? '');
      expect(r.ptr.bytes).toBe(heldBytes);
      expect(legacy.snapshot.messages[r.ptr.index]?.content).toContain(CAP_NOTICE_MARKER);
      const out = value(expandReduction(log, r.id, minted, recorded));
      expect(out.content).toBe(recorded[r.ptr.index]?.content);
      expect(out.total_bytes).toBeGreaterThan(r.ptr.bytes ?? Infinity);
    }
  });

  it('a re-run after a rewind is upgraded only from its own record, never from the old run', () => {
    const { index, oldToolCallId, newToolCallId, oldContent, newContent } = legacy.landmarks.rewind;
    const { recorded, log } = resolved(legacy);
    const held = legacy.snapshot.messages[index] as ChatMessage;
    expect(held.tool_call_id).toBe(newToolCallId);
    expect(held.content).toContain(CAP_NOTICE_MARKER);
    const oldRecord = messageRecords(legacy.records).find((r) => r.i === index && r.msg.tool_call_id === oldToolCallId)?.msg as ChatMessage;
    expect(oldRecord.content).toBe(oldContent);
    // The old run's copy passes the prefix test: only the tool_call_id keeps it out.
    expect(isCapNoticeBearingPrefix(utf8Encode(held.content), utf8Encode(oldRecord.content))).toBe(true);
    expect(recordedSupersedes(held, utf8Encode(held.content), oldRecord)).toBe(false);
    const truncation = log.find((r) => r.ptr.index === index) as Reduction;
    expect(truncation).toBeDefined();
    // With the old timeline's copy as the recorded one at that index, nothing is upgraded.
    const stale = [...recorded];
    stale[index] = oldRecord;
    const fromStale = value(expandReduction(log, truncation.id, legacy.snapshot.messages, stale));
    expect(fromStale.source).toBe('minted');
    expect(fromStale.content).toBe(held.content);
    // With the sidecar as written, the re-run's own record is the recorded copy.
    const fromSidecar = value(expandReduction(log, truncation.id, legacy.snapshot.messages, recorded));
    expect(fromSidecar.source).toBe('recorded');
    expect(fromSidecar.content).toBe(newContent);
    expect(fromSidecar.content).not.toBe(oldContent);
  });
});

describe('integrity', () => {
  it('a generated session has no finding: sidecar alone, snapshot alone, or both', () => {
    for (const g of all) {
      const sidecar = sidecarText(g.records);
      const snapshot = snapshotText(g.snapshot);
      expect(inspectSample({ sidecar }).findings).toEqual([]);
      expect(inspectSample({ snapshot }).findings).toEqual([]);
      expect(inspectSample({ sidecar, snapshot }).findings).toEqual([]);
    }
  });
});
