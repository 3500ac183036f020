/**
 * A followed transcript is built again over the same parsed records at each append, through the
 * index those records keep (importer.ts `recordIndex`: lookups and parent loops extended by the
 * records appended since). Whatever is appended, in whatever pieces, the build equals a build of
 * the same lines parsed afresh (docs/streaming-import.md "Building the view").
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ClaudeLine, ImportedSession, ParsedClaudeLines } from './importer';
import { buildClaudeSession, parseClaudeLine, parseClaudeLines } from './importer';

/** Few uuids, message ids and call ids, so records repeat them, answer earlier ones and loop. */
const uuid = fc.constantFrom('u0', 'u1', 'u2', 'u3', 'u4', 'u5');
const parent = fc.option(uuid, { nil: null });
const callId = fc.constantFrom('t0', 't1', 't2');
const sidechain = fc.boolean().map((b) => (b ? { isSidechain: true } : {}));

const assistant = fc.record({ uuid, parentUuid: parent, side: sidechain, id: fc.constantFrom('m0', 'm1', 'm2'), call: fc.option(callId, { nil: undefined }) }).map(({ uuid: u, parentUuid, side, id, call }) => ({
  type: 'assistant',
  uuid: u,
  parentUuid,
  ...side,
  message: { id, model: 'claude-x', content: call === undefined ? [{ type: 'text', text: `said ${u}` }] : [{ type: 'tool_use', id: call, name: 'ls', input: { at: u } }], usage: { input_tokens: 3, output_tokens: 1 } },
}));
const user = fc.record({ uuid, parentUuid: parent, side: sidechain, result: fc.option(callId, { nil: undefined }), summary: fc.boolean() }).map(({ uuid: u, parentUuid, side, result, summary }) => ({
  type: 'user',
  uuid: u,
  parentUuid,
  ...side,
  ...(summary ? { isCompactSummary: true } : {}),
  message: { role: 'user', content: result === undefined ? `asked ${u}` : [{ type: 'tool_result', tool_use_id: result, content: `out of ${result}` }] },
}));
const boundary = fc.record({ uuid, logical: parent }).map(({ uuid: u, logical }) => ({ type: 'system', subtype: 'compact_boundary', uuid: u, parentUuid: null, logicalParentUuid: logical, compactMetadata: { trigger: 'auto' } }));
const cleared = fc.record({ uuid, parentUuid: parent, ids: fc.array(callId, { maxLength: 2 }) }).map(({ uuid: u, parentUuid, ids }) => ({ type: 'system', subtype: 'microcompact_boundary', uuid: u, parentUuid, microcompactMetadata: { compactedToolIds: ids } }));
const record = fc.oneof({ arbitrary: assistant, weight: 4 }, { arbitrary: user, weight: 4 }, { arbitrary: boundary, weight: 1 }, { arbitrary: cleared, weight: 1 }, { arbitrary: fc.constant({ type: 'summary', summary: 'a title' }), weight: 1 });

/**
 * A conversation as Claude Code writes one: each record the child of the one before (a branch off
 * an earlier record, a root or a repeated uuid now and then), a response written a record per
 * block (so a response's later parts are appended after a build saw its first), results of the
 * latest calls or of older ones, sidechains, compactions with their summaries, cleared results
 * and attachments.
 */
type Step = { kind: number; pick: number; flag: boolean };
const step = fc.record({ kind: fc.nat({ max: 99 }), pick: fc.nat({ max: 1000 }), flag: fc.boolean() });

function conversation(steps: readonly Step[]): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  const calls: string[] = [];
  const boundaries: string[] = [];
  let mid = 0;
  const parentOf = (pick: number): string | null => {
    if (out.length === 0) return null;
    // Mostly the record before; now and then an earlier one (a rewind) or none.
    if (pick % 17 === 0) return String(out[pick % out.length]!.uuid);
    if (pick % 53 === 0) return null;
    return String(out[out.length - 1]!.uuid);
  };
  for (const [k, { kind, pick, flag }] of steps.entries()) {
    // Now and then a uuid written before (a record the file repeats).
    const uuid = pick % 41 === 0 && out.length > 0 ? String(out[pick % out.length]!.uuid) : `u${k}`;
    const side = pick % 23 === 0 ? { isSidechain: true } : {};
    const base = { uuid, parentUuid: parentOf(pick), ...side };
    if (kind < 35) {
      // A response's next record (the same message id) or a new response.
      if (!flag || mid === 0) mid++;
      const id = pick % 29 === 0 ? `m${(pick % mid) + 1}` : `m${mid}`;
      const call = kind < 15 ? `c${k}` : undefined;
      if (call) calls.push(call);
      out.push({ type: 'assistant', ...base, message: { id, model: pick % 31 === 0 ? '<synthetic>' : 'claude-x', content: call ? [{ type: 'tool_use', id: call, name: 'ls', input: { k } }] : [{ type: 'text', text: `said ${k}` }], usage: { input_tokens: k, output_tokens: 1 } } });
    } else if (kind < 65) {
      // A result of the latest call, of an older one, or a prompt.
      const call = calls.length === 0 ? undefined : flag ? calls[calls.length - 1] : calls[pick % calls.length];
      const content = call === undefined || kind > 60 ? `asked ${k}` : [{ type: 'tool_result', tool_use_id: call, content: pick % 13 === 0 ? '<persisted-output>\nOutput too large (2KB). Full output saved to: /x/tool-results/r.txt\n</persisted-output>' : `out ${k}` }];
      out.push({ type: 'user', ...base, message: { role: 'user', content } });
    } else if (kind < 72) {
      // A boundary and its summary, or the boundary alone (its summary may come later, or never).
      out.push({ type: 'system', subtype: 'compact_boundary', uuid, parentUuid: null, logicalParentUuid: flag ? parentOf(pick) : 'not-in-file', compactMetadata: { trigger: 'auto', preTokens: k } });
      boundaries.push(uuid);
      if (pick % 3 !== 0) out.push({ type: 'user', uuid: `${uuid}s`, parentUuid: uuid, isCompactSummary: true, message: { role: 'user', content: `summary ${k}` } });
    } else if (kind < 75 && boundaries.length > 0) {
      // A summary of a boundary written before, after other records.
      out.push({ type: 'user', uuid, parentUuid: boundaries[pick % boundaries.length], isCompactSummary: true, message: { role: 'user', content: `late summary ${k}` } });
    } else if (kind < 78) {
      out.push({ type: 'system', subtype: 'microcompact_boundary', ...base, microcompactMetadata: { compactedToolIds: calls.filter((_, j) => (j + pick) % 3 === 0) } });
    } else if (kind < 85) {
      out.push({ type: 'attachment', ...base, attachment: { type: flag ? 'skill_listing' : 'unknown_kind', content: `listing ${k}` } });
    } else {
      out.push({ type: 'system', subtype: 'turn_duration', ...base });
    }
  }
  return out;
}

/** What a build gives, as plain data (the usage map as its entries). */
function plain(out: ImportedSession): unknown {
  return JSON.parse(JSON.stringify({ ...out, usage: [...(out.usage ?? new Map()).entries()] })) as unknown;
}

describe('a transcript built again as lines are appended', () => {
  it('property: each build over the appended records equals a build of the lines parsed afresh', () => {
    fc.assert(
      fc.property(fc.array(record, { minLength: 1, maxLength: 24 }), fc.array(fc.nat({ max: 24 }), { maxLength: 5 }), (records, cuts) => {
        const lines: ClaudeLine[] = records.map((r, k) => ({ line: k + 1, text: JSON.stringify(r) }));
        const ends = [...new Set([...cuts.filter((c) => c > 0 && c < lines.length), lines.length])].sort((a, b) => a - b);
        const parsed: ParsedClaudeLines = { records: [], findings: [] };
        // Built once before any line (as a preview can be): the records' index is kept from the second build on.
        buildClaudeSession(parsed);
        let from = 0;
        for (const end of ends) {
          for (const l of lines.slice(from, end)) parseClaudeLine(l, parsed);
          from = end;
          expect(plain(buildClaudeSession(parsed))).toEqual(plain(buildClaudeSession(parseClaudeLines(lines.slice(0, end)))));
        }
      }),
      { numRuns: 1500 },
    );
  });

  it('property: a conversation built at each append equals it built afresh (builds taken up where the last one kept its pass)', () => {
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 40 }), fc.array(fc.nat({ max: 45 }), { minLength: 1, maxLength: 8 }), (steps, cuts) => {
        const lines: ClaudeLine[] = conversation(steps).map((r, k) => ({ line: k + 1, text: JSON.stringify(r) }));
        const ends = [...new Set([...cuts.filter((c) => c > 0 && c < lines.length), lines.length])].sort((a, b) => a - b);
        const parsed: ParsedClaudeLines = { records: [], findings: [] };
        buildClaudeSession(parsed);
        let from = 0;
        let before: { out: ImportedSession; seen: unknown } | undefined;
        for (const end of ends) {
          for (const l of lines.slice(from, end)) parseClaudeLine(l, parsed);
          from = end;
          const out = buildClaudeSession(parsed);
          const seen = plain(out);
          expect(seen).toEqual(plain(buildClaudeSession(parseClaudeLines(lines.slice(0, end)))));
          // What a build returned is never changed by a later one (the app still shows it).
          if (before) expect(plain(before.out)).toEqual(before.seen);
          before = { out, seen };
        }
      }),
      { numRuns: 1500 },
    );
  });

  it('a boundary whose summary is written after a build saw an answer after it: the summary is its own, as afresh', () => {
    const rec = (r: Record<string, unknown>, k: number): ClaudeLine => ({ line: k + 1, text: JSON.stringify(r) });
    const first = [
      { type: 'user', uuid: 'a', parentUuid: null, message: { role: 'user', content: 'one' } },
      { type: 'assistant', uuid: 'b', parentUuid: 'a', message: { id: 'm1', model: 'claude-x', content: [{ type: 'text', text: 'two' }] } },
      { type: 'system', subtype: 'compact_boundary', uuid: 'c', parentUuid: null, logicalParentUuid: 'b', compactMetadata: { trigger: 'auto' } },
      { type: 'assistant', uuid: 'd', parentUuid: 'c', message: { id: 'm2', model: 'claude-x', content: [{ type: 'text', text: 'three' }] } },
    ];
    const later = [
      { type: 'user', uuid: 'e', parentUuid: 'c', isCompactSummary: true, message: { role: 'user', content: 'the summary' } },
      { type: 'assistant', uuid: 'f', parentUuid: 'e', message: { id: 'm3', model: 'claude-x', content: [{ type: 'text', text: 'four' }] } },
    ];
    const lines = [...first, ...later].map(rec);
    const parsed: ParsedClaudeLines = { records: [], findings: [] };
    for (const l of lines.slice(0, first.length)) parseClaudeLine(l, parsed);
    // Twice: the records' index, and the pass with it, are kept from the second build on.
    buildClaudeSession(parsed);
    expect(buildClaudeSession(parsed).messages.map((m) => m.content)).toEqual(['one', 'two', 'three']);
    for (const l of lines.slice(first.length)) parseClaudeLine(l, parsed);
    const appended = buildClaudeSession(parsed);
    expect(appended.reductions.map((r) => [r.kind, r.end, r.stub])).toEqual([['summarized', 2, 'the summary']]);
    expect(plain(appended)).toEqual(plain(buildClaudeSession(parseClaudeLines(lines))));
  });

  it('a chain longer than a call takes arguments (130,000 records) is taken up and grows', () => {
    const parsed: ParsedClaudeLines = { records: [], findings: [] };
    const add = (k: number): void => {
      const r = k % 2 === 0 ? { type: 'user', uuid: `u${k}`, parentUuid: k === 0 ? null : `u${k - 1}`, message: { role: 'user', content: 'q' } } : { type: 'assistant', uuid: `u${k}`, parentUuid: `u${k - 1}`, message: { id: `m${k}`, model: 'claude-x', content: [{ type: 'text', text: 'a' }] } };
      parseClaudeLine({ line: k + 1, text: JSON.stringify(r) }, parsed);
    };
    const n = 130_000;
    for (let k = 0; k < n; k++) add(k);
    buildClaudeSession(parsed);
    expect(buildClaudeSession(parsed).messages.length).toBe(n);
    add(n);
    add(n + 1);
    expect(buildClaudeSession(parsed).messages.length).toBe(n + 2);
  });

  it('a chain cut by a loop of parents is not taken up: a new leaf enters the loop elsewhere', () => {
    const user = (uuid: string, parentUuid: string) => ({ type: 'user', uuid, parentUuid, message: { role: 'user', content: `asked ${uuid}` } });
    const answer = (uuid: string, parentUuid: string, id: string) => ({ type: 'assistant', uuid, parentUuid, message: { id, model: 'claude-x', content: [{ type: 'text', text: `said ${uuid}` }] } });
    // a → c → b → a loops; d answers c; then e answers a.
    const lines = [user('a', 'c'), answer('b', 'a', 'm1'), user('c', 'b'), answer('d', 'c', 'm2'), answer('e', 'a', 'm3')].map((r, k): ClaudeLine => ({ line: k + 1, text: JSON.stringify(r) }));
    const parsed: ParsedClaudeLines = { records: [], findings: [] };
    for (const l of lines.slice(0, 4)) parseClaudeLine(l, parsed);
    // Twice: the records' index, and the pass with it, are kept from the second build on.
    buildClaudeSession(parsed);
    buildClaudeSession(parsed);
    parseClaudeLine(lines[4]!, parsed);
    expect(plain(buildClaudeSession(parsed))).toEqual(plain(buildClaudeSession(parseClaudeLines(lines))));
  });

  it('a loop closed by a record appended later is found, as a fresh build finds it', () => {
    const first: ClaudeLine = { line: 1, text: JSON.stringify({ type: 'user', uuid: 'a', parentUuid: 'b', message: { role: 'user', content: 'one' } }) };
    const second: ClaudeLine = { line: 2, text: JSON.stringify({ type: 'user', uuid: 'b', parentUuid: 'a', message: { role: 'user', content: 'two' } }) };
    const parsed: ParsedClaudeLines = { records: [], findings: [] };
    parseClaudeLine(first, parsed);
    // Twice: the records' index is kept from the second build on.
    buildClaudeSession(parsed);
    expect(buildClaudeSession(parsed).findings).toEqual([]);
    parseClaudeLine(second, parsed);
    const loops = buildClaudeSession(parsed).findings.filter((f) => f.message.includes('loop'));
    expect(loops.map((f) => f.line)).toEqual([1]);
  });

  it('records that are not the indexed ones with more appended are indexed again whole', () => {
    const line = (n: number, uuid: string, parentUuid: string | null, text: string): ClaudeLine => ({ line: n, text: JSON.stringify({ type: 'user', uuid, parentUuid, message: { role: 'user', content: text } }) });
    const parsed: ParsedClaudeLines = { records: [], findings: [] };
    parseClaudeLine(line(1, 'a', null, 'one'), parsed);
    parseClaudeLine(line(2, 'b', 'a', 'two'), parsed);
    buildClaudeSession(parsed);
    expect(buildClaudeSession(parsed).messages.map((m) => m.content)).toEqual(['one', 'two']);
    // The same array, its records replaced (as no reader does): as long, other records.
    parsed.records.splice(0);
    const other = [line(1, 'c', null, 'three'), line(2, 'd', 'c', 'four')];
    for (const l of other) parseClaudeLine(l, parsed);
    expect(plain(buildClaudeSession(parsed))).toEqual(plain(buildClaudeSession(parseClaudeLines(other))));
  });
});
