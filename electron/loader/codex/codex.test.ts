/** The Codex rollout importer (SPEC §10, docs/FORMATS.md §2) over its synthetic and real files, through the real loader. */
import { readdirSync, readFileSync, readSync, writeFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { basename, join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { ChatMessage, LoadedSession } from '../../../shared/index';
import { transcriptOf } from '../../../shared/resolver/original';
import { projectView } from '../../../shared/resolver/project';
import { viewEntries } from '../../../shared/calls/calls';
import { BAD_CORPUS_DIR } from '../../../tools/testing/badCorpus';
import { tempDir } from '../../../tools/testing/files';
import { detectNative } from '../native/detect';
import { openReadOnly, isLoadError, safeClose } from '../common/openFile';
import { loadSession } from '../session';
import type { DetectContext } from '../common/source';
import { REDUCTION_SENTINEL } from '../../../shared/format/constants';
import { checkIntegrity } from '../../../shared/resolver/integrity';
import { arrayList } from '../../../shared/resolver/session';
import { buildRollout, canonicalJson, ENCRYPTED_SUMMARY, MISSING_SUMMARY, toolTruncation } from './build';
import { codexFormat, isRolloutRecord } from './index';
import { firstNonSpaceByte, parseJson, stripBom } from '../common/json';
import { distinctTokenTotals, rawInputItems, rawResponses } from './testing/responses';
import { CODEX_SYNTHETIC_DIR, codexSynthetic, cutOutput, LOCAL_SUMMARY, msg } from './testing/synthetic';

const REAL_DIR = join(import.meta.dirname, '../../../e2e/fixtures/real/codex');
const SAMPLES = join(import.meta.dirname, '../../../samples');
const synthetic = (name: string) => join(CODEX_SYNTHETIC_DIR, name);
const real = (name: string) => join(REAL_DIR, name);

// The real rollout with a compaction is committed gzipped (1.26 MB plain): read from a copy unpacked under the temp dir.
const unpacked = tempDir('codex-real-');
const COMPACTION = unpacked.path('rollout-0.118-remote-compaction-subagent-ENTIRE.jsonl');
writeFileSync(COMPACTION, gunzipSync(readFileSync(real('rollout-0.118-remote-compaction-subagent-ENTIRE.jsonl.gz'))));

const open: LoadedSession[] = [];
afterAll(() => {
  for (const s of open) s.close();
  unpacked.cleanup();
});

async function load(path: string): Promise<LoadedSession> {
  const r = await loadSession([path]);
  if (!r.ok) throw new Error(`${r.error.code}: ${r.error.message}`);
  open.push(r.session);
  return r.session;
}

function messages(s: LoadedSession): ChatMessage[] {
  return Array.from({ length: s.minted.length }, (_, i) => s.minted.at(i) as ChatMessage);
}

/** Every tool call has exactly one later tool message with its id, and every tool message a call before it. */
function pairing(view: ChatMessage[]): { calls: number; unpaired: string[] } {
  const open = new Map<string, number>();
  const unpaired: string[] = [];
  let calls = 0;
  for (const m of view) {
    for (const c of m.tool_calls ?? []) {
      calls++;
      open.set(c.id, (open.get(c.id) ?? 0) + 1);
    }
    if (m.role === 'tool') {
      const id = m.tool_call_id ?? '';
      if (!open.get(id)) unpaired.push(`output ${id}`);
      else open.set(id, (open.get(id) ?? 0) - 1);
    }
  }
  for (const [id, n] of open) if (n > 0) unpaired.push(`call ${id}`);
  return { calls, unpaired };
}

/**
 * Every live reduction expands and verifies: a summarized run to the transcript of its range, a
 * moved message to its bytes (those of the copy the model saw); a cut output answers original_unavailable.
 */
function expandsAll(s: LoadedSession): void {
  const view = messages(s);
  for (const r of s.log) {
    const out = s.expand(r.id);
    if (r.kind === 'tool_output_truncated') {
      expect(out.ok ? 'ok' : out.error.code).toBe('original_unavailable');
      continue;
    }
    if (r.kind === 'duplicate_output') {
      if (!out.ok) throw new Error(`${r.id}: ${out.error.code} ${out.error.message}`);
      expect(out.value.content).toBe(view[r.canonical?.index ?? -1]?.content);
      expect(r.canonical?.index).toBeGreaterThan(r.ptr.index);
      continue;
    }
    if (!out.ok) throw new Error(`${r.id}: ${out.error.code} ${out.error.message}`);
    expect(out.value.content).toBe(transcriptOf(view.slice(r.ptr.index, r.end).map((m) => ({ minted: m, content: m.content }))));
    expect(r).toMatchObject({ kind: 'summarized', provenance: 'recorded', hash_origin: 'import' });
    expect(r.origin && 'line' in r.origin ? r.origin.line : 0).toBeGreaterThan(0);
  }
  expect(s.check().findings.filter((f) => f.severity === 'error')).toEqual([]);
}

describe('synthetic fixtures', () => {
  it('the committed files are what the builder writes', () => {
    for (const [name, text] of Object.entries(codexSynthetic())) expect(readFileSync(synthetic(name), 'utf8'), name).toBe(text);
    expect(readdirSync(CODEX_SYNTHETIC_DIR).sort()).toEqual(Object.keys(codexSynthetic()).sort());
  });
});

describe('every response item type (all-items.jsonl)', () => {
  it('maps each item to its message, role and tool call, and ignores event_msg', async () => {
    const s = await load(synthetic('all-items.jsonl'));
    const view = messages(s);
    expect(s.files[0]?.format).toBe('codex-rollout');
    expect(s.check().summary.format).toBe('codex');
    expect(s.sessionId).toBe('00000000-0000-7000-8000-000000000001');
    expect(s.system()).toEqual({ role: 'system', content: 'You are Codex, a coding agent.' });
    // developer → system, with the role it had
    expect(view[0]).toEqual({ role: 'system', content: '<permissions instructions>sandboxed</permissions instructions>', metadata: { codex_role: 'developer' } });
    // an image part keeps its type; the event_msg copy of the prompt is not a second message
    expect(view[1]).toMatchObject({ role: 'user', content: 'Look at this', content_parts: [{ type: 'input_image' }] });
    expect(view.filter((m) => m.content === 'Look at this')).toHaveLength(1);
    expect(view.filter((m) => m.content === 'Done.')).toHaveLength(1);
    // one response (lines 6–8: reasoning, a message, a call; no input item or token count between) is one
    // assistant message: the reasoning in its metadata, the call on it, the item types in order
    expect(view[2]).toEqual({
      role: 'assistant',
      content: 'Checking the repo first.',
      tool_calls: [{ id: 'call_a', name: 'exec_command', arguments: '{"cmd":"ls","workdir":"/work/demo"}' }],
      metadata: { codex_items: ['message', 'function_call'], codex_phase: 'commentary', reasoning: 'Plan: list files, then patch.', encrypted_reasoning: 'gAAAAB-synthetic-opaque' },
    });
    // outputs in each encoding
    const outputOf = (id: string) => view.find((m) => m.role === 'tool' && m.tool_call_id === id);
    expect(outputOf('call_a')?.content).toBe('plain string output\n');
    expect(outputOf('call_b')?.content).toBe('{"output":"json-string output\\n","metadata":{"exit_code":0,"duration_seconds":0.1}}');
    expect(outputOf('call_c')).toMatchObject({ content: 'array output text', content_parts: [{ type: 'input_image' }] });
    expect(outputOf('call_d')?.content).toContain('Success. Updated the following files');
    expect(outputOf('call_e')?.content).toBe('hi\n');
    expect(outputOf('call_f')?.content).toBe('{"content":"an object output","success":false}');
    // calls
    const callOf = (id: string) => view.find((m) => m.tool_calls?.[0]?.id === id)?.tool_calls?.[0];
    expect(callOf('call_a')).toEqual({ id: 'call_a', name: 'exec_command', arguments: '{"cmd":"ls","workdir":"/work/demo"}' });
    expect(callOf('call_d')).toEqual({ id: 'call_d', name: 'apply_patch', arguments: '*** Begin Patch\n*** Add File: b.txt\n+hello\n*** End Patch\n' });
    expect(callOf('call_e')?.name).toBe('local_shell');
    // web searches (lines 18–19, one response): one assistant message, each search a content part, with or without an action
    const searches = view.filter((m) => m.content_parts?.[0]?.type === 'web_search_call');
    expect(searches).toHaveLength(1);
    expect(searches[0]?.content_parts?.map((p) => p.type)).toEqual(['web_search_call', 'web_search_call']);
    expect(searches[0]?.content_parts?.[0]).toMatchObject({ text: 'codex rollout format' });
    expect(searches[0]?.metadata).toEqual({ codex_items: ['web_search_call', 'web_search_call'] });
    // ghost snapshots are not model input; an unknown item and an unknown record are warnings
    expect(view.some((m) => JSON.stringify(m).includes('abc123'))).toBe(false);
    expect(s.check().findings.map((f) => [f.code, f.line])).toEqual([
      ['unknown_record', 21],
      ['unknown_record', 22],
      ['unknown_record', 27],
    ]);
    // the model switch at the second turn_context, and reasoning with no answer kept on an empty assistant message
    expect(s.model).toBe('gpt-5.5-mini');
    expect(s.modelChanges).toMatchObject([{ line: 28, from: 'gpt-5.5', to: 'gpt-5.5-mini', at: view.length - 2 }]);
    expect(view[view.length - 1]).toEqual({ role: 'assistant', content: '', metadata: { reasoning: 'Only reasoning, then the call was cut short.', encrypted_reasoning: 'gAAAAB-synthetic-opaque' } });
    expect(view).toHaveLength(17);
    // The file's model responses, read by hand: lines 6–8, 10, 12, 14, 16, 18–19, 24, 30 — one call each, at its first line.
    expect(s.calls.map((c) => c.line)).toEqual([6, 10, 12, 14, 16, 18, 24, 30]);
    // call_f's output has no call in the file; every other call is paired
    expect(pairing(view).unpaired).toEqual(['output call_f']);
  });
});

describe('compactions', () => {
  it('local: the user prompts are kept, each dropped run is one summarized reduction with the summary, one group', async () => {
    const s = await load(synthetic('local-compaction.jsonl'));
    const view = messages(s);
    expect(s.log.map((r) => [r.ptr.index, r.end, r.group, r.stub])).toEqual([
      [0, 1, 'compaction-L12', LOCAL_SUMMARY],
      [2, 5, 'compaction-L12', LOCAL_SUMMARY],
      [6, 8, 'compaction-L12', LOCAL_SUMMARY],
    ]);
    expect(s.logLines).toEqual([12, 12, 12]);
    // the summary message of the replacement history is the stub, not a message; the model was given it as a user message
    expect(view.filter((m) => m.content === LOCAL_SUMMARY)).toEqual([]);
    const lines = readFileSync(synthetic('local-compaction.jsonl'), 'utf8').split('\n');
    const given = (JSON.parse(lines[11] as string) as { payload: { replacement_history: { role: string; content: { text: string }[] }[] } }).payload.replacement_history.find((i) => i.content[0]?.text === LOCAL_SUMMARY);
    expect(s.log.map((r) => r.summary_role)).toEqual([given?.role, given?.role, given?.role]);
    const projected = projectView(s.minted, s.log).map((m) => m.text);
    expect(projected).toContain(LOCAL_SUMMARY);
    expect(projected).toContain('List the files in the repo');
    expect(projected).toContain('README.md has 12 lines.');
    expect(projected.join('\n')).not.toContain('secret-hidden-marker.txt\n');
    expandsAll(s);
    // search finds text only the hidden content holds
    const found = s.search('secret-hidden-marker');
    expect(found.ok && found.value.matches.length).toBeGreaterThan(0);
  });

  it('remote: the summary row says "summary not readable (encrypted)"; re-injected context joins the view before the prompt kept after it', async () => {
    const s = await load(synthetic('remote-compaction.jsonl'));
    const view = messages(s);
    expect(s.log.map((r) => [r.kind, r.ptr.index, r.end, r.stub])).toEqual([
      ['summarized', 0, 1, ENCRYPTED_SUMMARY],
      ['summarized', 2, 4, ENCRYPTED_SUMMARY],
      ['duplicate_output', 5, undefined, ENCRYPTED_SUMMARY],
    ]);
    expect(view[6]).toMatchObject({ role: 'system', metadata: { codex_role: 'developer' } });
    expect(view[7]?.content).toContain('<environment_context>');
    // The replacement history's order: developer, environment, then the kept prompt (moved from index 5).
    expect(view[8]).toEqual(view[5]);
    expect(projectView(s.minted, s.log).map((m) => m.text)).toEqual([
      ENCRYPTED_SUMMARY,
      'List the files in the repo',
      '',
      'Two files: README.md and secret-hidden-marker.txt.',
      '',
      '<permissions instructions>re-injected</permissions instructions>',
      '<environment_context>\n  <cwd>/work/demo</cwd>\n</environment_context>',
      'Now count the lines',
      '',
      '12 README.md\n',
      'README.md has 12 lines.',
    ]);
    expect(view.some((m) => JSON.stringify(m).includes('gAAAAB-encrypted-summary'))).toBe(false);
    expect(pairing(view).unpaired).toEqual([]);
    expandsAll(s);
  });

  it('two compactions: the second hides only what survived the first and it dropped', async () => {
    const s = await load(synthetic('two-compactions.jsonl'));
    expect(s.log.map((r) => [r.ptr.index, r.end, r.group, r.stub])).toEqual([
      [1, 4, 'compaction-L7', 'First summary.'],
      [5, 8, 'compaction-L12', 'Second summary.'],
    ]);
    expect(projectView(s.minted, s.log).map((m) => m.text)).toEqual(['List the files in the repo', 'First summary.', 'Now count the lines', 'Second summary.', 'Third question']);
    expandsAll(s);
  });

  // The summary row is the group's first run; its other runs show no text of their own.
  it('legacy (no replacement_history): the view keeps the real user prompts, injected context is dropped', async () => {
    const s = await load(synthetic('legacy-compaction.jsonl'));
    expect(s.system()?.content).toBe('Legacy instructions.');
    expect(s.log.map((r) => [r.ptr.index, r.end, r.stub])).toEqual([
      [0, 1, 'Legacy summary of the work.'],
      [2, 5, 'Legacy summary of the work.'],
    ]);
    expect(projectView(s.minted, s.log).map((m) => m.text)).toEqual(['Legacy summary of the work.', 'List the files in the repo', '', 'Now count the lines']);
    expandsAll(s);
  });

  it('a compaction whose encrypted summary is not in the file says so, and invents none', () => {
    const item = { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'q' }] };
    const built = buildRollout([
      { line: 1, value: { timestamp: 't', type: 'response_item', payload: item } },
      { line: 2, value: { timestamp: 't', type: 'response_item', payload: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'a' }] } } },
      { line: 3, value: { timestamp: 't', type: 'compacted', payload: { message: '', replacement_history: [item] } } },
    ]);
    expect(built.log.map((r) => [r.ptr.index, r.end, r.stub])).toEqual([[1, 2, MISSING_SUMMARY]]);
  });

  it('kept items match a re-marshalled copy (keys sorted), not only the same text', () => {
    expect(canonicalJson({ b: 1, a: [{ d: 2, c: 3 }] })).toBe(canonicalJson({ a: [{ c: 3, d: 2 }], b: 1 }));
  });
});

describe('tool-level truncation, original lost (docs/FORMATS.md §2.10 item 1)', () => {
  it('every output encoding the tool cut is a tool_output_truncated reduction: no hash, recorded, its line, the recorded text as its stub', async () => {
    const s = await load(synthetic('tool-truncation.jsonl'));
    const view = messages(s);
    const lines = readFileSync(synthetic('tool-truncation.jsonl'), 'utf8').trim().split('\n');
    expect(s.log.map((r) => view[r.ptr.index]?.tool_call_id)).toEqual(['call_t1', 'call_t2', 'call_t3', 'call_t4', 'call_t5']);
    for (const r of s.log) {
      const m = view[r.ptr.index] as ChatMessage;
      expect(r).toMatchObject({ kind: 'tool_output_truncated', kept_bytes: 0, provenance: 'recorded', stub: m.content });
      expect(r.ptr.hash).toBeNull();
      expect(r.hash_origin).toBeUndefined();
      // its origin is the line that recorded the output
      const line = r.origin && 'line' in r.origin ? r.origin.line : 0;
      expect((JSON.parse(lines[line - 1] as string) as { payload: { call_id: string } }).payload.call_id).toBe(m.tool_call_id);
      expect(r.ptr.bytes).toBeGreaterThan(Buffer.byteLength(m.content));
    }
    // the size: the header's token count × 4 when there is one, else the kept text and the markers' counts × 4
    expect(s.log.map((r) => [r.ptr.bytes, r.stated_size])).toEqual([
      [32003 * 4, 'Original token count: 32003, at 4 bytes a token'],
      [12000 * 4, 'Original token count: 12000, at 4 bytes a token'],
      [Buffer.byteLength(view[6]?.content ?? '') - Buffer.byteLength('…1500 tokens truncated…') + 1500 * 4, 'the kept text and 1500 tokens truncated, at 4 bytes a token'],
      [Buffer.byteLength(view[8]?.content ?? '') - Buffer.byteLength('…700 tokens truncated…') + 700 * 4, 'the kept text and 700 tokens truncated, at 4 bytes a token'],
      [Buffer.byteLength(view[10]?.content ?? '') - Buffer.byteLength('…40 tokens truncated…') + 40 * 4, 'the kept text and 40 tokens truncated, at 4 bytes a token'],
    ]);
    // the view shows the recorded text unchanged (no native stub), the array output's image part kept
    const rows = projectView(s.minted, s.log);
    for (const r of s.log) expect(rows.find((row) => row.index === r.ptr.index)?.text).toBe(view[r.ptr.index]?.content);
    expect(rows.some((row) => row.text.includes(REDUCTION_SENTINEL))).toBe(false);
    expect(view[8]?.content_parts).toMatchObject([{ type: 'input_image' }]);
    // expand says what the file records; search does not search them and counts them; check raises nothing
    for (const r of s.log) {
      const out = s.expand(r.id);
      expect(out.ok ? 'ok' : [out.error.code, out.error.message.includes(`only approximately (${r.stated_size ?? '?'}: about ${r.ptr.bytes} bytes)`)]).toEqual(['original_unavailable', true]);
    }
    const found = s.search('tail kept');
    expect(found.ok && [found.value.matches.length, found.value.reductions_unavailable]).toEqual([0, 5]);
    expect(s.check().findings).toEqual([]);
  });

  it('an output that is whole is no reduction: without a marker, or with a header whose count fits its own text (a quoted marker)', () => {
    expect(toolTruncation('Chunk ID: 1\nOriginal token count: 3\nOutput:\n/work/demo\n')).toBeUndefined();
    const quoted = 'Chunk ID: 2\nOriginal token count: 9\nOutput:\nnotes.txt: …12 tokens truncated…\n';
    expect(toolTruncation(quoted)).toBeUndefined();
    // the same text with the count of a longer original is a cut
    expect(toolTruncation(quoted.replace('count: 9', 'count: 900'))).toEqual({ bytes: 3600, stated: 'Original token count: 900, at 4 bytes a token' });
    expect(toolTruncation(cutOutput(32003, 22003))?.bytes).toBe(128012);
  });

  it('real (0.139 review subagent, line 17): the cut exec_command output is the one reduction; the model saw its recorded text', async () => {
    const path = real('rollout-0.139-review-cut-output-ENTIRE.jsonl');
    const s = await load(path);
    const view = messages(s);
    const line17 = JSON.parse(readFileSync(path, 'utf8').split('\n')[16] as string) as { payload: { call_id: string; output: string } };
    expect(s.log).toHaveLength(1);
    const r = s.log[0];
    expect(r).toMatchObject({ kind: 'tool_output_truncated', ptr: { hash: null, bytes: 68343 * 4 }, kept_bytes: 0, origin: { line: 17 }, provenance: 'recorded' });
    expect(view[r?.ptr.index ?? -1]).toMatchObject({ role: 'tool', tool_call_id: line17.payload.call_id, content: line17.payload.output });
    expect(r?.stub).toBe(line17.payload.output);
    expect(r?.stub).toContain('…58343 tokens truncated…');
    expect(projectView(s.minted, s.log).find((row) => row.index === r?.ptr.index)?.text).toBe(line17.payload.output);
    expect(pairing(view).unpaired).toEqual([]);
    expect(s.check().findings).toEqual([]);
  });

  it('the other committed real rollouts hold no cut: their outputs with an Original token count header stay whole', async () => {
    let headed = 0;
    for (const name of ['rollout-0.126-desktop-websearch-customtool-ENTIRE.jsonl', 'rollout-0.139-review-subagent-ENTIRE.jsonl', 'rollout-0.40.0-vscode-unmodified.jsonl']) {
      const s = await load(real(name));
      headed += messages(s).filter((m) => m.role === 'tool' && /^Original token count: \d+$/m.test(m.content)).length;
      expect(s.log.filter((r) => r.kind === 'tool_output_truncated'), name).toEqual([]);
    }
    // the header is on every exec_command output, cut or not: it alone is no cut
    expect(headed).toBeGreaterThan(10);
  });
});

describe('re-injected context at its position in the replacement history (docs/FORMATS.md §2.8)', () => {
  it('new items sit before the kept items that follow them; a moved message leaves a duplicate_output of the compaction at its earlier place', async () => {
    const s = await load(synthetic('reinjected-context.jsonl'));
    const view = messages(s);
    const rows = projectView(s.minted, s.log).filter((r) => r.text !== '');
    expect(rows.map((r) => r.role ?? 'summary')).toEqual(['user', 'summary', 'assistant', 'system', 'user', 'tool', 'user', 'assistant']);
    expect(rows.map((r) => r.text.split('\n')[0])).toEqual([
      'List the files in the repo',
      ENCRYPTED_SUMMARY,
      'Two files: README.md and secret-hidden-marker.txt.',
      '<permissions instructions>re-injected</permissions instructions>',
      '<environment_context>',
      "Command: /bin/zsh -lc 'cat big.log'",
      'Now count the lines',
      'README.md has 12 lines.',
    ]);
    // The prompt moved: its earlier place is a duplicate of the copy the model saw (nothing hidden, search skips it).
    const moved = s.log.filter((r) => r.kind === 'duplicate_output');
    expect(moved.map((r) => [view[r.ptr.index]?.content, r.canonical?.index, r.stub, r.group, r.origin])).toEqual([['Now count the lines', 12, ENCRYPTED_SUMMARY, 'compaction-L12', { line: 12 }]]);
    // The moved cut output already carries its truncation: it is hidden with its run, and its copy is cut again where the model saw it.
    const cuts = s.log.filter((r) => r.kind === 'tool_output_truncated');
    expect(cuts.map((r) => [r.ptr.index, r.origin])).toEqual([
      [4, { line: 8 }],
      [11, { line: 12 }],
    ]);
    expect(s.log.some((r) => r.kind === 'summarized' && r.ptr.index <= 4 && 4 < (r.end ?? 0))).toBe(true);
    // Lines 6–7 are one response (an answer, then a call, nothing between): the history keeps its answer
    // and not its call, so the response is dropped and the answer joins the view again as a message of
    // its own — made at the compaction, by no model call. The calls are the file's four responses.
    expect(view[3]?.tool_calls?.map((c) => c.id)).toEqual(['call_r']);
    expect(view[8]).toEqual({ role: 'assistant', content: 'Two files: README.md and secret-hidden-marker.txt.', metadata: { codex_phase: 'final_answer' } });
    expect(s.log.some((r) => r.kind === 'summarized' && r.ptr.index <= 3 && 3 < (r.end ?? 0))).toBe(true);
    expect(s.calls.map((c) => c.line)).toEqual([4, 6, 10, 13]);
    expect(s.check().findings).toEqual([]);
    expandsAll(s);
  });
});

describe('sentinel_in_original applies to native sessions only (SPEC §10.1)', () => {
  const text = `The stub looked like ${REDUCTION_SENTINEL} id=r1 kind=tool_output_elided`;
  const T = '2026-04-30T15:06:55.536Z';
  const rollout = [
    { line: 1, value: { timestamp: T, type: 'response_item', payload: msg('user', 'first') } },
    { line: 2, value: { timestamp: T, type: 'response_item', payload: msg('assistant', text) } },
    { line: 3, value: { timestamp: T, type: 'compacted', payload: { message: 'Summary.', replacement_history: [msg('user', 'first'), msg('user', 'Summary.')] } } },
  ];

  it('a Codex transcript whose dropped content mentions the sentinel gets no finding; the same inputs checked as native do', async () => {
    const built = buildRollout(rollout);
    expect(built.log.map((r) => [r.ptr.index, r.end])).toEqual([[1, 2]]);
    const input = { minted: arrayList(built.view), log: built.log };
    expect(checkIntegrity({ ...input, native: false })).toEqual([]);
    expect(checkIntegrity(input).map((f) => f.code)).toEqual(['sentinel_in_original']);
    // and through the loader, which knows the file's format
    const dir = tempDir();
    try {
      const path = dir.path('sentinel.jsonl');
      writeFileSync(path, `${[JSON.stringify({ timestamp: T, type: 'session_meta', payload: { id: 's' } }), ...rollout.map((l) => JSON.stringify(l.value))].join('\n')}\n`);
      const s = await load(path);
      expect(s.check().summary.format).toBe('codex');
      expect(s.check().findings).toEqual([]);
    } finally {
      dir.cleanup();
    }
  });

  it('a native sample minted over a stub still gets it', async () => {
    const s = await load(join(SAMPLES, 'broken', 'sentinel_in_original.sidecar.jsonl'));
    expect(s.check().findings.map((f) => f.code)).toContain('sentinel_in_original');
  });
});

describe('edge cases', () => {
  it('forked subagent: the first session_meta names the session; the copied parent history is shown as the model got it', async () => {
    const s = await load(synthetic('forked.jsonl'));
    expect(s.sessionId).toBe('00000000-0000-7000-8000-0000000000c1');
    expect(messages(s).map((m) => m.content)).toEqual(['List the files in the repo', 'Two files: README.md and secret-hidden-marker.txt.', 'Child task: read README.md', 'README.md says hello.']);
    expect(buildRollout(readFileSync(synthetic('forked.jsonl'), 'utf8').trim().split('\n').map((t, i) => ({ line: i + 1, value: JSON.parse(t) as unknown }))).forkedFrom).toBe('00000000-0000-7000-8000-0000000000a1');
  });

  it('a damaged line is malformed_line with its number, a torn last line truncated_last_line; the file opens', async () => {
    const s = await load(synthetic('torn.jsonl'));
    expect(s.check().findings.map((f) => [f.code, f.line])).toEqual([
      ['malformed_line', 4],
      ['truncated_last_line', 6],
    ]);
    expect(messages(s).map((m) => m.role)).toEqual(['user', 'assistant']);
  });

  it('indexing in many small passes gives what one pass gives', async () => {
    for (const name of Object.keys(codexSynthetic())) {
      const one = await load(synthetic(name));
      const r = await loadSession([synthetic(name)], { chunkSize: 7 });
      if (!r.ok) throw new Error(r.error.message);
      open.push(r.session);
      expect(messages(r.session), name).toEqual(messages(one));
      expect(r.session.log, name).toEqual(one.log);
      expect(r.session.check().findings, name).toEqual(one.check().findings);
    }
  });
});

describe('detection by content, both ways', () => {
  const context: DetectContext = { read: readSync, maxRecordBytes: 1 << 28, cacheBytes: 1 << 20 };
  const claims = (path: string, by: 'codex' | 'native'): boolean => {
    const f = openReadOnly(path);
    if (isLoadError(f)) throw new Error(f.message);
    try {
      if (by === 'codex') {
        const d = codexFormat.detect(f, context);
        return d.ok;
      }
      return !('error' in detectNative(f, context));
    } finally {
      safeClose(f.fd);
    }
  };
  const corpus = readdirSync(BAD_CORPUS_DIR);
  const nativeFiles = [...readdirSync(SAMPLES).filter((n) => /\.(jsonl|json)$/.test(n)).map((n) => join(SAMPLES, n)), ...readdirSync(join(SAMPLES, 'broken')).filter((n) => n.endsWith('.jsonl') || n.endsWith('.json')).map((n) => join(SAMPLES, 'broken', n)), ...corpus.filter((n) => !n.startsWith('codex-')).map((n) => join(BAD_CORPUS_DIR, n))];
  // The corpus's Codex entries (`codex-*`) are damaged rollouts: still Codex files, never native ones.
  const codexFiles = [...readdirSync(CODEX_SYNTHETIC_DIR).map(synthetic), ...readdirSync(REAL_DIR).filter((n) => n.endsWith('.jsonl')).map(real), ...corpus.filter((n) => n.startsWith('codex-')).map((n) => join(BAD_CORPUS_DIR, n))];

  it('decodes only the first line, and claims what the old rule (the whole head decoded, then cut) claims: any leading space, byte order mark, line ending and bytes after', () => {
    const dir = tempDir('session-inspector-codex-detect-');
    try {
      /** The rule as it was: the whole head decoded and trimmed, then its first line parsed. */
      const wholeHeadClaims = (bytes: Buffer): boolean => {
        if (firstNonSpaceByte(bytes) !== 0x7b) return false;
        const text = stripBom(bytes.toString('utf8')).trimStart();
        const nl = text.indexOf('\n');
        const parsed = parseJson(nl < 0 ? text : text.slice(0, nl));
        return parsed.ok && isRolloutRecord(parsed.value);
      };
      const record = JSON.stringify({ timestamp: '2025-10-01T00:00:00.000Z', type: 'session_meta', payload: { id: 'x' } });
      const line = fc.oneof(
        fc.constant(Buffer.from(record)),
        fc.constant(Buffer.from(record.replace('"x"', '"\u00e9\u6f22"'))),
        fc.constant(Buffer.from(record.replace('"x"', '"é漢"'))),
        fc.constant(Buffer.from(JSON.stringify({ t: 1, type: 'session_meta', payload: {}, timestamp: 'x' }))),
        fc.uint8Array({ maxLength: 40 }).map((b) => Buffer.concat([Buffer.from(record.slice(0, 60)), Buffer.from(b), Buffer.from(record.slice(60))])),
        fc.uint8Array({ maxLength: 60 }).map((b) => Buffer.from(b)),
      );
      fc.assert(
        fc.property(fc.boolean(), fc.array(fc.constantFrom(' ', '\t', '\n', '\r'), { maxLength: 4 }), line, fc.constantFrom('\n', '\r\n', ''), fc.uint8Array({ maxLength: 80 }), (bom, space, first, end, rest) => {
          const bytes = Buffer.concat([Buffer.from(bom ? '\ufeff' : ''), Buffer.from(space.join('')), first, Buffer.from(end), end === '' ? Buffer.alloc(0) : Buffer.from(rest)]);
          const path = join(dir.dir, 'rollout.jsonl');
          writeFileSync(path, bytes);
          expect(claims(path, 'codex')).toBe(wholeHeadClaims(bytes));
        }),
        { numRuns: 400 },
      );
    } finally {
      dir.cleanup();
    }
  });

  it.each(nativeFiles)('the Codex adapter does not claim the native or corpus file %s', (path) => {
    let claimed = false;
    try {
      claimed = claims(path, 'codex');
    } catch {
      claimed = false; // a directory or an unreadable corpus entry
    }
    expect(claimed).toBe(false);
  });

  it.each(codexFiles)('the native adapter does not claim %s, and the Codex one does', (path) => {
    expect(claims(path, 'native')).toBe(false);
    expect(claims(path, 'codex')).toBe(true);
  });
});

describe('real rollouts (e2e/fixtures/real/codex)', () => {
  it('0.40.0 (unmodified): 71 messages, reasoning on assistant messages, every shell call paired, JSON-string outputs as given', async () => {
    const s = await load(real('rollout-0.40.0-vscode-unmodified.jsonl'));
    const view = messages(s);
    expect(view).toHaveLength(71);
    expect(s.model).toBe('gpt-5-codex');
    expect(s.system()).toBeUndefined(); // instructions: null
    expect(s.check().findings).toEqual([]);
    const p = pairing(view);
    expect(p.unpaired).toEqual([]);
    expect(p.calls).toBeGreaterThan(20);
    expect(view.filter((m) => m.metadata?.encrypted_reasoning !== undefined).length).toBeGreaterThan(10);
    expect(view.filter((m) => m.role === 'tool').some((m) => m.content.startsWith('{"output":'))).toBe(true);
    expect(s.log).toEqual([]);
  });

  it('0.126 (Desktop): developer messages, web searches, apply_patch, paired calls, no findings', async () => {
    const path = real('rollout-0.126-desktop-websearch-customtool-ENTIRE.jsonl');
    const s = await load(path);
    const view = messages(s);
    // One message per input item, one per model response (read from the raw lines): 95 and 63.
    expect(view).toHaveLength(rawInputItems(path) + rawResponses(path).length);
    expect(view).toHaveLength(95 + 63);
    expect(s.check().findings).toEqual([]);
    expect(pairing(view).unpaired).toEqual([]);
    expect(view.some((m) => m.metadata?.codex_role === 'developer')).toBe(true);
    expect(view.some((m) => m.content_parts?.some((p) => p.type === 'web_search_call'))).toBe(true);
    expect(view.some((m) => m.tool_calls?.some((c) => c.name === 'apply_patch'))).toBe(true);
  });

  it('0.139 (review subagent): 12 messages, its base instructions as the system prompt', async () => {
    const s = await load(real('rollout-0.139-review-subagent-ENTIRE.jsonl'));
    expect(messages(s)).toHaveLength(12);
    expect(s.sessionId).toBe('019ed628-d563-7e40-bbb1-93a6a302d688');
    expect(s.system()?.content.startsWith('# Review guidelines:')).toBe(true);
    expect(pairing(messages(s)).unpaired).toEqual([]);
    expect(s.check().findings).toEqual([]);
  });

  it('0.118 remote compaction: 27 kept items, 15 runs of one group, all verify', async () => {
    const s = await load(COMPACTION);
    const runs = s.log.filter((r) => r.kind === 'summarized');
    expect(runs).toHaveLength(15);
    expect(new Set(runs.map((r) => r.group))).toEqual(new Set(['compaction-L947']));
    const hidden = runs.reduce((n, r) => n + ((r.end ?? 0) - r.ptr.index), 0);
    const before = (runs[0]?.minted_at ?? 0) - hidden;
    // 26 stay in place; the current prompt (item 28) moves after the re-injected items 26–27.
    expect(before - 1).toBe(26);
    expect(runs.every((r) => r.stub === MISSING_SUMMARY)).toBe(true);
    expandsAll(s);
  });

  it('0.118 remote compaction: the re-injected developer and environment items sit before the current prompt, as in the replacement history', async () => {
    const s = await load(COMPACTION);
    const lines = readFileSync(COMPACTION, 'utf8').split('\n');
    const history = (JSON.parse(lines[946] as string) as { payload: { replacement_history: { role: string; content: { text: string }[] }[] } }).payload.replacement_history;
    const rows = projectView(s.minted, s.log).filter((r) => r.role !== undefined && r.text !== '');
    // The last rows of the view before the answer that followed the compaction: items 25–28, in order.
    const texts = rows.map((r) => r.text);
    const at = texts.indexOf(history[28]?.content[0]?.text ?? '?');
    expect(texts.slice(at - 3, at + 1)).toEqual([25, 26, 27, 28].map((i) => history[i]?.content.map((c) => c.text).join('\n')));
    expect(rows[at - 2]?.role).toBe('system'); // the developer item
    // The prompt's earlier place (line 934) is a moved message: byte-identical to its copy, nothing shown there.
    const moved = s.log.filter((r) => r.kind === 'duplicate_output');
    expect(moved.map((r) => [r.origin, r.group, s.minted.at(r.ptr.index)?.content === history[28]?.content[0]?.text])).toEqual([[{ line: 947 }, 'compaction-L947', true]]);
    expect(s.check().findings.filter((f) => f.severity === 'error')).toEqual([]);
  });
});

describe('a message a real compaction moved (0.118 remote compaction, line 947)', () => {
  /** From the raw lines: the replacement history's items that an earlier response_item holds byte for byte (after key sorting) and that follow an item none does. */
  function movedItems(lines: readonly string[], at: number): { text: string; role: string }[] {
    const earlier = new Set(lines.slice(0, at - 1).flatMap((l) => {
      const v = JSON.parse(l) as { type: string; payload: unknown };
      return v.type === 'response_item' ? [canonicalJson(v.payload)] : [];
    }));
    const history = (JSON.parse(lines[at - 1] as string) as { payload: { replacement_history: { type: string; role?: string; content?: { text: string }[] }[] } }).payload.replacement_history;
    const out: { text: string; role: string }[] = [];
    let sawNew = false;
    for (const item of history) {
      if (item.type === 'compaction') continue;
      if (!earlier.has(canonicalJson(item))) sawNew = true;
      else if (sawNew) out.push({ text: (item.content ?? []).map((c) => c.text).join('\n'), role: item.role ?? '' });
    }
    return out;
  }

  it('leaves no empty entry and no empty stub: its earlier place joins the compaction, whose runs hide only what it dropped', async () => {
    const lines = readFileSync(COMPACTION, 'utf8').split('\n').filter((l) => l.trim() !== '');
    const moved = movedItems(lines, 947);
    expect(moved.map((m) => [m.role, m.text.slice(0, 21)])).toEqual([['user', 'Review commit 5d1679a']]);
    const s = await load(COMPACTION);
    // No reduction shows the model an empty stub.
    expect(s.log.filter((r) => r.stub === '').map((r) => r.id)).toEqual([]);
    const entries = viewEntries(s.callInput(null)!);
    // No entry is empty where the model was given something: an assistant message may have tool calls only.
    expect(entries.filter((e) => e.content === '' && !(e.role === 'assistant' && e.tool_calls))).toEqual([]);
    // The prompt is given once, after the re-injected developer message, as the file's history orders them.
    const at = entries.map((e) => e.content).indexOf(moved[0]!.text);
    expect(entries.filter((e) => e.content === moved[0]!.text)).toHaveLength(1);
    expect(entries[at]?.role).toBe('user');
    expect(entries[at - 2]?.role).toBe('system');
    // Its earlier place is the compaction's: one of its ids, in no run's range, nothing of it hidden.
    const place = s.log.find((r) => r.kind === 'duplicate_output')!;
    expect(entries[0]?.reductions).toContain(place.id);
    expect(s.log.filter((r) => r.kind === 'summarized' && r.ptr.index <= place.ptr.index && place.ptr.index < (r.end ?? 0))).toEqual([]);
    expect(place).toMatchObject({ group: 'compaction-L947', stub: MISSING_SUMMARY, canonical: { index: entries[at]?.index } });
    // A remote compaction's summary is an encrypted item, no message: no role is claimed for it.
    expect(s.log.filter((r) => r.summary_role !== undefined)).toEqual([]);
    const found = s.search(moved[0]!.text.slice(0, 60));
    expect(found.ok && found.value.total_matches).toBe(0);
  });
});

describe('one model response is one call (docs/formats/codex.md), on every real rollout', () => {
  // Responses Codex wrote no token count for in this file: the forked subagent's copy of its parent's
  // history ends with the parent's spawn_agent response (line 681), whose count the parent wrote after the fork.
  const uncounted: Record<string, number> = { 'rollout-0.118-remote-compaction-subagent-ENTIRE.jsonl': 1 };
  const files = [
    ...readdirSync(REAL_DIR)
      .filter((n) => n.endsWith('.jsonl'))
      .map((n) => real(n)),
    COMPACTION,
  ];
  it.each(files.map((f) => [f.slice(f.lastIndexOf('/') + 1), f] as const))('%s: a call per response read from the raw lines, each with all its tool calls in file order', async (name, path) => {
    const s = await load(path);
    const responses = rawResponses(path);
    expect(responses.length).toBe(distinctTokenTotals(path) + (uncounted[name] ?? 0));
    expect(s.calls.map((c) => c.line)).toEqual(responses.map((r) => r.line));
    expect(s.calls.map((c) => (s.minted.at(c.index)?.tool_calls ?? []).map((t) => t.id))).toEqual(responses.map((r) => r.callIds));
    expect(s.check().findings.filter((f) => f.severity === 'error')).toEqual([]);
  });

  it('0.118 exec: the response with eight parallel calls is one call; the next call is given all eight outputs', async () => {
    const path = real('rollout-0.118-exec-parallel-calls-ENTIRE.jsonl');
    const s = await load(path);
    const responses = rawResponses(path);
    const k = responses.findIndex((r) => r.callIds.length === 8);
    expect(k).toBeGreaterThanOrEqual(0);
    const wide = s.calls[k];
    const next = s.calls[k + 1];
    if (!wide || !next) throw new Error('no such call');
    expect(s.minted.at(wide.index)?.tool_calls?.map((c) => c.id)).toEqual(responses[k]?.callIds);
    const input = s.callInput(next.call);
    const given = new Set(Array.from({ length: input?.minted.length ?? 0 }, (_, i) => input?.minted.at(i)).flatMap((m) => (m?.role === 'tool' ? [m.tool_call_id] : [])));
    expect(responses[k]?.callIds.every((id) => given.has(id))).toBe(true);
    // Between the two calls: only the eight outputs.
    expect(next.index - wide.index - 1).toBe(8);
    expect(s.calls).toHaveLength(14);
  });
});

describe('Codex base instructions: the request instructions of every call (docs/formats/codex.md)', () => {
  /** The first session_meta's line and base instructions, read from the raw lines. */
  function rawBase(path: string): { line: number; text: string } | undefined {
    const lines = readFileSync(path, 'utf8').split('\n');
    for (let k = 0; k < lines.length; k++) {
      if (lines[k]!.trim() === '') continue;
      const v = JSON.parse(lines[k]!) as { type?: string; payload?: { base_instructions?: { text?: string } | null; instructions?: string | null } };
      if (v.type !== 'session_meta') continue;
      const text = v.payload?.base_instructions?.text ?? v.payload?.instructions ?? undefined;
      return text ? { line: k + 1, text } : undefined;
    }
    return undefined;
  }

  const files = [...readdirSync(REAL_DIR).filter((n) => n.endsWith('.jsonl')).map(real), COMPACTION];
  it.each(files.map((f) => [basename(f), f] as const))('%s: every call, and the latest view, is given the first session_meta\'s base instructions', async (_name, path) => {
    const base = rawBase(path);
    const s = await load(path);
    const expected = base ? [{ source: 'codex_base_instructions', placement: 'instructions', index: 0, line: base.line, text: base.text }] : [];
    expect(s.instructionsAt(null)).toEqual(expected);
    for (let n = 1; n <= s.calls.length; n++) expect(s.instructionsAt(n)).toEqual(expected);
    // None of it is a message of the view.
    if (base) expect(messages(s).some((m) => m.content === base.text)).toBe(false);
  });

  it('the real files hold base instructions (the test means something)', () => {
    expect(files.filter((f) => rawBase(f) !== undefined).length).toBeGreaterThanOrEqual(4);
  });
});
