/**
 * The Claude Code importer (SPEC §10.1, docs/FORMATS.md §1) over synthetic transcripts written by
 * testing/build.ts and the real files of e2e/fixtures/real/claude-code.
 */
import { readdirSync, readFileSync, readSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { LoadedSession } from '../../../shared/resolver/session';
import { tempDir } from '../../../tools/testing/files';
import { detectSource } from '../detect';
import { nativeFormat } from '../native/index';
import type { LoadOptions } from '../session';
import type { DetectContext } from '../common/source';
import { loadSession } from '../session';
import { claudeCodeFormat, splitClaudeLines } from './index';
import { CLEARED_STUB, importClaudeCode } from './importer';
import { CLEARED_OUTPUT, PERSISTED_FULL, SESSION_ID, SUMMARY, SessionBuilder, toolUse, writeSynthetic } from './testing/build';

const ROOT = join(import.meta.dirname, '../../..');
const REAL = join(ROOT, 'e2e/fixtures/real/claude-code');
const SUBAGENT_MAIN = join(REAL, 'cc-2.1.17-subagent/29ccd257-68b1-427f-ae5f-6524b7cb6f20.jsonl');
const SUBAGENT_FILE = join(REAL, 'cc-2.1.17-subagent/29ccd257-68b1-427f-ae5f-6524b7cb6f20/subagents/agent-a2271d1.jsonl');
const REAL_FILES = ['cc-2.1.42-rewind.jsonl', 'cc-2.0.76-compact-boundary.jsonl', 'cc-2.1.91-persisted-output.jsonl'].map((n) => join(REAL, n)).concat([SUBAGENT_MAIN, SUBAGENT_FILE]);
const context: DetectContext = { read: readSync, maxRecordBytes: 1 << 28, cacheBytes: 1 << 20 };

const tmp = tempDir('session-inspector-cc-');
afterAll(() => tmp.cleanup());
const synthetic = writeSynthetic(tmp.dir);

async function open(path: string, options: LoadOptions = {}): Promise<LoadedSession> {
  const loaded = await loadSession([path], options);
  if (!loaded.ok) throw new Error(loaded.error.message);
  return loaded.session;
}

function messages(s: LoadedSession) {
  return Array.from({ length: s.minted.length }, (_, i) => s.minted.at(i)!);
}

/**
 * The tool messages right after an assistant message answer its calls, each once (in the order the
 * file holds them: toolResultOrder.test.ts), before the next assistant message.
 */
function expectPaired(s: LoadedSession): number {
  const all = messages(s);
  let calls = 0;
  all.forEach((m, i) => {
    if (m.role !== 'assistant' || !m.tool_calls) return;
    const ids = m.tool_calls.map((c) => c.id);
    const answered: string[] = [];
    for (let j = i + 1; all[j]?.role === 'tool'; j++) answered.push(all[j]!.tool_call_id ?? '');
    expect(new Set(answered).size).toBe(answered.length);
    for (const id of answered) expect(ids).toContain(id);
    calls += ids.length;
  });
  return calls;
}

describe('a synthetic transcript with every record type', () => {
  it('builds the view on the live branch: images, split responses merged, parallel results in file order, list results, no abandoned branch', async () => {
    const s = await open(synthetic);
    const view = messages(s);
    expect(view.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'tool', 'assistant', 'tool', 'assistant', 'user', 'assistant', 'user', 'assistant', 'tool', 'assistant', 'tool', 'assistant', 'tool', 'assistant']);
    expect(view[0]!.content_parts?.map((p) => p.type)).toEqual(['text', 'image']);
    // One API response over four records: thinking to metadata, text, two tool calls.
    expect(view[1]).toMatchObject({ content: 'Running two commands.', metadata: { thinking: 'The user wants two commands.', thinking_signature: 'sig1' } });
    expect(view[1]!.tool_calls?.map((c) => c.id)).toEqual(['toolu_A', 'toolu_B']);
    // The results came back B then A: the model was given them in that order.
    expect([view[2]!.tool_call_id, view[3]!.tool_call_id]).toEqual(['toolu_B', 'toolu_A']);
    expect(view[5]!.content).toBe('agent answer\nagentId: abc1234 (for resuming)');
    expect(view.some((m) => m.content.includes('ABANDONED'))).toBe(false);
    expect(view[7]!.content).toBe('the live prompt');
    expect(view.some((m) => m.content.includes('SIDECHAIN'))).toBe(false);
    expect(expectPaired(s)).toBe(6);
    expect(s.model).toBe('claude-sonnet-4-5');
    s.close();
  });

  it('a compaction after a rewind is one summarized run of the live chain before it, its stub the summary', async () => {
    const s = await open(synthetic);
    const r = s.log.find((x) => x.kind === 'summarized')!;
    expect(r).toMatchObject({ ptr: { index: 0 }, end: 9, stub: SUMMARY, provenance: 'recorded', origin: { line: 18 }, hash_origin: 'import', group: r.id });
    const whole = s.expand(r.id);
    expect(whole.ok && whole.value.content).toContain('live answer before compaction');
    expect(whole.ok && whole.value.content.includes('ABANDONED')).toBe(false);
    s.close();
  });

  it('microcompaction hides the cleared result behind Claude Code\u2019s placeholder; the original expands and verifies', async () => {
    const s = await open(synthetic);
    const r = s.log.find((x) => x.kind === 'tool_output_elided')!;
    expect(r).toMatchObject({ stub: CLEARED_STUB, ptr: { index: 11 }, provenance: 'recorded', hash_origin: 'import' });
    const e = s.expand(r.id);
    expect(e.ok && e.value.content).toBe(CLEARED_OUTPUT);
    s.close();
  });

  it('<persisted-output>: the tool-results file is the original; a missing one is original_unavailable with the stated size', async () => {
    const s = await open(synthetic);
    const [present, missing] = s.log.filter((x) => x.kind === 'tool_output_truncated');
    expect(present).toMatchObject({ kept_bytes: 0, ptr: { index: 13 }, hash_origin: 'import' });
    // Where the bytes came from, in the importer's words: the tool-results file it read, by name.
    expect(present!.original_from).toMatch(/^the tool-results file \S+\.txt$/);
    expect(present!.stub.startsWith('<persisted-output>\nOutput too large (4.4KB)')).toBe(true);
    const e = s.expand(present!.id);
    expect(e.ok && e.value.content).toBe(PERSISTED_FULL);
    expect(missing).toMatchObject({ ptr: { index: 15, hash: null, bytes: 50192 } });
    const gone = s.expand(missing!.id);
    expect(!gone.ok && gone.error.code).toBe('original_unavailable');
    s.close();
  });

  it('search finds text only the hidden content holds: a tool-results file, a cleared result, a summarized range', async () => {
    const s = await open(synthetic);
    for (const q of ['SECRET-ONLY-IN-TOOL-RESULTS', 'HIDDEN-BY-MICROCOMPACT', 'a.txt']) {
      const found = s.search(q);
      expect(found.ok && found.value.total_matches).toBeGreaterThan(0);
    }
    s.close();
  });

  it('an unknown record type is a warning, a torn last line is truncated_last_line, and check lists the sidechain as a session', async () => {
    const s = await open(synthetic);
    const report = s.check();
    expect(report.findings.map((f) => [f.code, f.line])).toEqual([
      ['unknown_record', 32],
      ['truncated_last_line', 34],
    ]);
    expect(report.summary.format).toBe('claude-code');
    expect(report.summary.sessions).toEqual([
      { id: SESSION_ID, title: 'Synthetic demo', messages: 17 },
      { id: 'ffffffff-0000-4000-8000-000000000001', title: 'SIDECHAIN task prompt', messages: 2 },
    ]);
    s.close();
    const side = await open(synthetic, { session: 'ffffffff-0000-4000-8000-000000000001' });
    expect(messages(side).map((m) => m.content)).toEqual(['SIDECHAIN task prompt', 'sidechain answer']);
    side.close();
    const none = await loadSession([synthetic], { session: 'nope' });
    expect(!none.ok && none.error.code).toBe('usage');
  });

  it('a damaged line in the middle is malformed_line with its line number; the file still opens', async () => {
    const lines = readFileSync(synthetic, 'utf8').split('\n');
    lines[4] = lines[4]!.slice(0, 20);
    const path = tmp.path('damaged.jsonl');
    writeFileSync(path, lines.join('\n'));
    const s = await open(path);
    expect(s.check().findings.find((f) => f.code === 'malformed_line')?.line).toBe(5);
    s.close();
  });

  it('bytes that are not UTF-8 are a malformed_line finding; the file still opens', async () => {
    const bytes = readFileSync(synthetic);
    const at = bytes.indexOf('the live prompt');
    const path = tmp.path('invalid-utf8.jsonl');
    writeFileSync(path, Buffer.concat([bytes.subarray(0, at), Buffer.from([0xff]), bytes.subarray(at)]));
    const s = await open(path);
    expect(s.check().findings.find((f) => f.code === 'malformed_line')).toMatchObject({ severity: 'error' });
    expect(messages(s).some((m) => m.content === '\ufffdthe live prompt')).toBe(true);
    s.close();
  });

  it('a preserved segment in compactMetadata (second-hand shape) is not modelled: the run is everything before the boundary', () => {
    const b = new SessionBuilder();
    b.user('one', null);
    const last = b.assistant('m1', [{ type: 'text', text: 'two' }])[0]!;
    const boundary = b.add({ type: 'system', subtype: 'compact_boundary', logicalParentUuid: last, compactMetadata: { trigger: 'manual', preTokens: 5, preservedSegment: { headUuid: last, anchorUuid: last, tailUuid: last } } }, null);
    b.user('summary', boundary, { isCompactSummary: true });
    b.user('three');
    const out = importClaudeCode(splitClaudeLines(b.text()));
    expect(out.reductions.map((r) => [r.kind, r.ptr.index, r.end])).toEqual([['summarized', 0, 2]]);
    expect(out.messages.map((m) => m.content)).toEqual(['one', 'two', 'three']);
  });

  it('a boundary whose logicalParentUuid is not in the file continues from the last message before it', () => {
    const b = new SessionBuilder();
    b.user('one', null);
    b.add({ type: 'progress', data: {} });
    const boundary = b.add({ type: 'system', subtype: 'compact_boundary', logicalParentUuid: 'not-in-file', compactMetadata: { trigger: 'auto', preTokens: 5 } }, null);
    b.user('summary', boundary, { isCompactSummary: true });
    b.assistant('m2', [toolUse('t1', 'ls')]);
    const out = importClaudeCode(splitClaudeLines(b.text()));
    expect(out.messages.map((m) => m.content)).toEqual(['one', '']);
    expect(out.reductions[0]).toMatchObject({ ptr: { index: 0 }, end: 1, stub: 'summary' });
  });

  it('an inline sidechain is not the main view: its records are skipped by the leaf and by a boundary with no logical parent', () => {
    const b = new SessionBuilder();
    b.user('one', null);
    b.assistant('m1', [{ type: 'text', text: 'main answer' }]);
    // An inline sidechain, written between the main conversation's records.
    const side = b.user('side prompt', null, { isSidechain: true });
    const [sideAnswer] = b.assistant('s1', [{ type: 'text', text: 'side answer' }], side, { isSidechain: true });
    // No logical parent in the file: the chain goes on from the last main message before the boundary.
    const boundary = b.add({ type: 'system', subtype: 'compact_boundary', logicalParentUuid: 'not-in-file', compactMetadata: { trigger: 'auto', preTokens: 5 } }, null);
    b.user('summary', boundary, { isCompactSummary: true });
    b.assistant('m2', [{ type: 'text', text: 'after' }]);
    // The file ends with a sidechain record: the main view still ends with the main conversation's last message.
    b.user('side again', sideAnswer, { isSidechain: true });
    const out = importClaudeCode(splitClaudeLines(b.text()));
    expect(out.messages.map((m) => m.content)).toEqual(['one', 'main answer', 'after']);
    expect(out.reductions.map((r) => [r.kind, r.ptr.index, r.end])).toEqual([['summarized', 0, 2]]);
    expect(out.sessions?.map((x) => x.messages)).toEqual([3, 3]);
  });

  it('property: any line cut at any byte gives findings, never a throw', () => {
    const text = readFileSync(join(REAL, 'cc-2.1.42-rewind.jsonl'), 'utf8');
    const lines = text.split('\n');
    fc.assert(
      fc.property(fc.nat({ max: lines.length - 2 }), fc.double({ min: 0, max: 1, noNaN: true }), (k, at) => {
        const cut = [...lines];
        const line = cut[k]!;
        cut[k] = line.slice(0, Math.floor(line.length * at));
        const out = importClaudeCode(splitClaudeLines(cut.join('\n')));
        if (cut[k] !== line && cut[k].trim() !== '') expect(out.findings.some((f) => f.line === k + 1)).toBe(true);
      }),
      { numRuns: 60 },
    );
  });
});

describe('the real transcripts', () => {
  it('a rewind: the abandoned branch (lines 18–35) is not in the view, the live one (from line 38) is', async () => {
    const s = await open(join(REAL, 'cc-2.1.42-rewind.jsonl'));
    const text = messages(s).map((m) => m.content).join('\n');
    expect(text).not.toContain('I very much like this idea');
    expect(text).toContain("I actually don't like much this idea");
    expect(s.check().summary).toMatchObject({ messages: 15, reductions: 0, errors: 0 });
    s.close();
  });

  it('a real compaction is one summarized run, recorded at the boundary line, that expands and verifies', async () => {
    const s = await open(join(REAL, 'cc-2.0.76-compact-boundary.jsonl'));
    expect(s.log.map((r) => [r.kind, r.ptr.index, r.end, r.origin])).toEqual([['summarized', 0, 17, { line: 31 }]]);
    expect(s.log[0]!.stub.startsWith('This session is being continued from a previous conversation')).toBe(true);
    // Line 32 holds the summary: a user record, so the model was given it as a user message.
    const line32 = JSON.parse(readFileSync(join(REAL, 'cc-2.0.76-compact-boundary.jsonl'), 'utf8').split('\n')[31]!) as { type: string; isCompactSummary: boolean; message: { role: string } };
    expect([line32.type, line32.isCompactSummary]).toEqual(['user', true]);
    expect(s.log[0]!.summary_role).toBe(line32.message.role);
    const e = s.expand(s.log[0]!.id);
    expect(e.ok && e.value.total_bytes).toBe(s.log[0]!.ptr.bytes);
    expect(s.check().summary).toMatchObject({ messages: 28, errors: 0, warnings: 0 });
    expectPaired(s);
    s.close();
  });

  it('real persisted outputs without their tool-results files: original_unavailable with persistedOutputSize', async () => {
    const s = await open(join(REAL, 'cc-2.1.91-persisted-output.jsonl'));
    expect(s.log.map((r) => [r.kind, r.ptr.hash, r.ptr.bytes])).toEqual([
      ['tool_output_truncated', null, 50192],
      ['tool_output_truncated', null, 50192],
    ]);
    expect(s.check().summary).toMatchObject({ messages: 25, errors: 0 });
    s.close();
  });

  it('a subagent file beside the session is a second session; its parallel tool calls all pair up', async () => {
    const s = await open(SUBAGENT_MAIN);
    expect(s.check().summary.sessions).toEqual([
      { id: '29ccd257-68b1-427f-ae5f-6524b7cb6f20', messages: 4 },
      { id: 'a2271d1', title: expect.stringMatching(/^Give me a comprehensive overview/) as unknown as string, messages: 35 },
    ]);
    expect(messages(s)[3]).toMatchObject({ role: 'assistant' });
    s.close();
    const sub = await open(SUBAGENT_MAIN, { session: 'a2271d1' });
    expect(sub.sessionId).toBe('a2271d1');
    expect(sub.minted.length).toBe(35);
    expect(expectPaired(sub)).toBeGreaterThan(10);
    sub.close();
  });

  it('detection by content, both ways: no Claude Code file is native, no native file is Claude Code', () => {
    const native = ['demo.sidecar.jsonl', 'session.sidecar.jsonl', 'session.session.json', 'legacy.sidecar.jsonl', 'legacy.session.json'].map((n) => join(ROOT, 'samples', n));
    const broken = readdirSync(join(ROOT, 'samples/broken')).map((n) => join(ROOT, 'samples/broken', n));
    for (const path of [...native, ...broken]) {
      const d = detectSource(path, context, [claudeCodeFormat]);
      expect('error' in d && d.error.code, path).toBe('unrecognized_file');
    }
    for (const path of [...REAL_FILES, synthetic]) {
      const d = detectSource(path, context, [nativeFormat]);
      expect('error' in d && d.error.code, path).toBe('unrecognized_file');
      const c = detectSource(path, context, [claudeCodeFormat]);
      expect('source' in c && c.source.format, path).toBe('claude-code');
      if ('source' in c) c.source.close();
    }
  });
});
