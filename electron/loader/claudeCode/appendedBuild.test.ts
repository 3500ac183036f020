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
