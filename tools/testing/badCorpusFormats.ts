/**
 * Bad inputs of the imported formats (SPEC §10.1): Claude Code transcripts (`cc-*.jsonl`) and Codex
 * rollouts (`codex-*.jsonl`), each breaking one thing. Part of the corpus of `badCorpus.ts`; every
 * damaged line is a finding that names it (`finding_lines` in the manifest).
 *
 * Each starts from a small healthy session whose tool output (`FAIL b.test.ts`) is hidden by a
 * reduction: a microcompaction (Claude Code, reduction `cc-micro-toolu_1`) or a compaction (Codex,
 * a `summarized` run `codex-L<line>-1`), so expand and search reach hidden bytes in every entry.
 */
import type { FindingCode } from '../../shared/index';
import { SESSION_ID, SessionBuilder, toolUse } from '../../electron/loader/claudeCode/testing/build';
import { DEEP_LEVELS, deepCases, deepText } from './deepJson';

/** The expectations of one entry (the fields of `BadInputExpectation` it sets). */
export interface FormatBadInput {
  name: string;
  what: string;
  bytes: Buffer;
  error: 'unrecognized_file' | 'unreadable_file' | null;
  findings: FindingCode[];
  /** The line of each finding, in the same order (null: a finding of no one line). */
  finding_lines: (number | null)[];
  check_exit: 0 | 1 | 2;
  expand: Record<string, 'ok' | 'hash_mismatch' | 'address_out_of_range' | 'unsupported_version'>;
  search: { query: string; matches?: number; error?: string };
  messages?: number;
}

/** OSC 52 (a clipboard write) and markup, as in `hostile-names.sidecar.jsonl`. */
const OSC52 = '\u001b]52;c;cm0gLXJmIH4=\u0007';
const SCRIPT = '<script>alert(1)</script>';
const IMG = '<img src=x onerror=alert(1)>';
const HOSTILE = `${SCRIPT}${IMG}${OSC52}\u202Egnp.exe\ud800`;

const FAIL_OUTPUT = 'PASS a.test.ts\nFAIL b.test.ts — expected 3, got 4\nPASS c.test.ts\n';
const text = (lines: readonly string[]): Buffer => Buffer.from(lines.map((l) => `${l}\n`).join(''), 'utf8');

/** An entry that opens: its findings as [code, line] pairs, in `check`'s order. */
function entry(name: string, what: string, bytes: Buffer, check_exit: 0 | 1, findings: readonly (readonly [FindingCode, number])[], expand: FormatBadInput['expand'], search = CC_SEARCH): FormatBadInput {
  return { name, what, bytes, error: null, findings: findings.map((f) => f[0]), finding_lines: findings.map((f) => f[1]), check_exit, expand, search };
}

// ---------------------------------------------------------------------------------------------
// Claude Code

/**
 * The healthy transcript, one record a line: 1 the prompt, 2 a Bash call, 3 its output (FAIL), 4 an
 * answer, 5 a microcompaction clearing the output, 6 the last answer. `tool` names the tool and
 * its id; `session` the session id.
 */
function ccBase(options: { tool?: string; toolId?: string; session?: string; input?: Record<string, unknown> } = {}): { b: SessionBuilder; lines: string[] } {
  const toolId = options.toolId ?? 'toolu_1';
  const b = new SessionBuilder(options.session !== undefined ? { sessionId: options.session } : {});
  b.user('Find the failing test', null);
  const [call] = b.assistant('msg_1', [{ ...toolUse(toolId, 'npm test'), ...(options.tool !== undefined ? { name: options.tool } : {}), ...(options.input !== undefined ? { input: options.input } : {}) }]);
  b.result(toolId, FAIL_OUTPUT, call);
  b.assistant('msg_2', [{ type: 'text', text: 'Let me look closer.' }]);
  b.add({ type: 'system', subtype: 'microcompact_boundary', content: 'Context microcompacted', microcompactMetadata: { trigger: 'auto', preTokens: 100, tokensSaved: 20, compactedToolIds: [toolId], clearedAttachmentUUIDs: [] } });
  b.assistant('msg_3', [{ type: 'text', text: 'b.test.ts expects 3.' }]);
  return { b, lines: b.lines };
}
const CC_EXPAND = { 'cc-micro-toolu_1': 'ok' } as const;
const CC_SEARCH = { query: 'FAIL b.test', matches: 1 };

function ccMalformedMiddle(): FormatBadInput {
  const { lines } = ccBase();
  // After line 3: npm output, a JSON array, an object without "type", a record cut off mid-line.
  lines.splice(3, 0, 'npm WARN deprecated glob@7.2.3: no longer supported', '[1,2,3]', '{"uuid":"x","sessionId":"y"}', lines[3]!.slice(0, 40));
  return entry('cc-malformed-middle.jsonl', 'a Claude Code transcript with malformed lines in the middle (4–7): npm output, a JSON array, an object without "type", a record cut off mid-line', text(lines), 1, [['malformed_line', 4], ['malformed_line', 5], ['malformed_line', 6], ['malformed_line', 7]], CC_EXPAND);
}

function ccTornLastLine(): FormatBadInput {
  const { lines } = ccBase();
  return entry('cc-torn-last-line.jsonl', 'a Claude Code transcript whose last line (7) stops mid-record, without a newline', Buffer.concat([text(lines), Buffer.from('{"parentUuid":null,"type":"user","message":{"role":"us', 'utf8')]), 0, [['truncated_last_line', 7]], CC_EXPAND);
}

function ccInvalidUtf8(): FormatBadInput {
  const { lines } = ccBase();
  const bytes = text(lines);
  // Line 4's answer gets 0xFF 0xFE and a cut 3-byte sequence in place of its text.
  const at = bytes.indexOf('Let me look closer.');
  const bad = Buffer.concat([bytes.subarray(0, at), Buffer.from([0xff, 0xfe, 0x20, 0xe2, 0x82]), bytes.subarray(at + 'Let me'.length)]);
  return entry('cc-invalid-utf8.jsonl', 'a Claude Code transcript with bytes that are not UTF-8 (0xFF 0xFE, a cut 3-byte sequence) in line 4', bad, 1, [['malformed_line', 4]], CC_EXPAND);
}

function ccNulBytes(): FormatBadInput {
  const { lines } = ccBase();
  lines.splice(4, 0, '\u0000'.repeat(16), lines[3]!.replace('Let me look closer.', 'a\u0000b'));
  return entry('cc-nul-bytes.jsonl', 'a Claude Code transcript with a line of raw NULs (5), a raw NUL inside a string (6) and a NUL block at the end without a newline (9)', Buffer.concat([text(lines), Buffer.alloc(64)]), 1, [['malformed_line', 5], ['malformed_line', 6], ['truncated_last_line', 9]], CC_EXPAND);
}

function ccUnknownRecord(): FormatBadInput {
  const { lines } = ccBase();
  lines.splice(2, 0, JSON.stringify({ type: 'hologram', uuid: 'ffffffff-0000-4000-8000-000000000001', sessionId: SESSION_ID, payload: { anything: true } }));
  return entry('cc-unknown-record.jsonl', 'a Claude Code transcript with a record of a type no version writes (line 3): skipped with a warning', text(lines), 0, [['unknown_record', 3]], CC_EXPAND);
}

function ccWrongFieldTypes(): FormatBadInput {
  const { b, lines } = ccBase();
  const parent = b.last;
  // Records of the right type whose fields are not: content a number, no message, a tool_use without id.
  b.add({ type: 'user', message: { role: 'user', content: 42 } }, parent);
  b.add({ type: 'assistant', requestId: 'req_x' });
  b.add({ type: 'assistant', message: { id: 'msg_4', role: 'assistant', model: 'claude-sonnet-4-5', content: [{ type: 'tool_use', name: 'Bash', input: { command: 'ls' } }] } });
  b.assistant('msg_5', [{ type: 'text', text: 'Still here after the odd records.' }]);
  return entry('cc-wrong-field-types.jsonl', 'Claude Code records of the right type with fields of the wrong type: message content a number (line 7), an assistant record without message (8), a tool_use without id (9)', text(lines), 1, [['malformed_line', 7], ['malformed_line', 8], ['malformed_line', 9]], CC_EXPAND);
}

function ccDanglingParent(): FormatBadInput {
  const { lines } = ccBase();
  // The first record's parent is not in the file (a slice, or a resumed session): normal, not a finding.
  lines[0] = lines[0]!.replace('"parentUuid":null', '"parentUuid":"deadbeef-0000-4000-8000-000000000000"');
  return entry('cc-dangling-parent.jsonl', 'a Claude Code transcript whose first record names a parentUuid that is not in the file (as resumed sessions and slices do): the chain starts there', text(lines), 0, [], CC_EXPAND);
}

function ccParentCycle(): FormatBadInput {
  const { lines } = ccBase();
  // The prompt (line 1) names the last answer (line 6) as its parent: the chain loops.
  const last = (JSON.parse(lines[5]!) as { uuid: string }).uuid;
  lines[0] = lines[0]!.replace('"parentUuid":null', `"parentUuid":"${last}"`);
  return entry('cc-parent-cycle.jsonl', 'a Claude Code transcript whose parentUuid links make a cycle (line 1 names line 6 as its parent): the walk stops at the loop and says where', text(lines), 1, [['malformed_line', 1]], CC_EXPAND);
}

function ccCompactNowhere(): FormatBadInput {
  const b = new SessionBuilder();
  b.user('Find the failing test', null);
  const [call] = b.assistant('msg_1', [toolUse('toolu_1', 'npm test')]);
  b.result('toolu_1', FAIL_OUTPUT, call);
  b.assistant('msg_2', [{ type: 'text', text: 'Let me look closer.' }]);
  const boundary = b.add({ type: 'system', subtype: 'compact_boundary', content: 'Conversation compacted', logicalParentUuid: 'cafebabe-0000-4000-8000-000000000000', compactMetadata: { trigger: 'auto', preTokens: 1000 } }, null);
  b.user('This session is being continued from a previous conversation. Summary: a test fails.', boundary, { isCompactSummary: true, isVisibleInTranscriptOnly: true });
  b.assistant('msg_3', [{ type: 'text', text: 'b.test.ts expects 3.' }]);
  return entry('cc-compact-nowhere.jsonl', 'a Claude Code compact_boundary (line 5) whose logicalParentUuid names no record (as 41 of 146 real ones do): the last message before it is the logical parent', text(b.lines), 0, [], { 'cc-compact-L5': 'ok' });
}

function ccOrphanResult(): FormatBadInput {
  const { b, lines } = ccBase();
  b.result('toolu_nobody', 'a result nobody asked for: ORPHAN', b.last);
  b.assistant('msg_4', [{ type: 'text', text: 'Done.' }]);
    // Slices that start mid-session hold results of calls made before them: shown, not a finding.
  return entry('cc-orphan-tool-result.jsonl', 'a Claude Code tool_result (line 7) whose tool_use_id no tool_use in the file has (as in a transcript sliced mid-session): shown as a tool message where it is, no finding', text(lines), 0, [], CC_EXPAND);
}

function ccHostileNames(): FormatBadInput {
  const toolId = `toolu_${IMG}${OSC52}`;
  const { b, lines } = ccBase({ tool: `Ba\u202Esh${OSC52}${SCRIPT}`, toolId, session: `s-${HOSTILE}` });
  b.user(`Read ${SCRIPT} and ${OSC52} and a lone \udc00 low surrogate`, b.last);
  return entry('cc-hostile-names.jsonl', 'a Claude Code transcript with hostile text where names go: script and img tags, OSC 52, a bidi override and a lone surrogate in the session id, the tool name and the tool_use id (so in the reduction id)', text(lines), 0, [], { [`cc-micro-${toolId}`]: 'ok' });
}

// ---------------------------------------------------------------------------------------------
// Codex

const T = '2026-04-30T15:06:55.536Z';
const rec = (type: string, payload: unknown): string => JSON.stringify({ timestamp: T, type, payload });
const item = (payload: Record<string, unknown>): string => rec('response_item', payload);
const msg = (role: string, t: string): Record<string, unknown> => ({ type: 'message', role, content: [{ type: role === 'assistant' ? 'output_text' : 'input_text', text: t }] });
const CODEX_PROMPT = msg('user', 'Find the failing test');
const CODEX_SUMMARY = 'The user asked for the failing test; b.test.ts fails.';

/**
 * The healthy rollout: 1 session_meta, 2 turn_context, 3 the prompt, 4 a call, 5 its output (FAIL),
 * 6 an answer, 7 a compaction keeping the prompt (lines 4–6 become `codex-L7-1`), 8 the last answer.
 */
function codexBase(options: { session?: string; model?: string; callId?: string; tool?: string } = {}): string[] {
  const callId = options.callId ?? 'call_1';
  return [
    rec('session_meta', { id: options.session ?? '00000000-0000-7000-8000-00000000bad1', timestamp: T, cwd: '/work/demo', originator: 'codex-tui', cli_version: '0.126.0', source: 'cli', model_provider: 'openai', base_instructions: { text: 'You are Codex.' } }),
    rec('turn_context', { cwd: '/work/demo', approval_policy: 'on-request', model: options.model ?? 'gpt-5.5', effort: 'medium', summary: 'auto' }),
    item(CODEX_PROMPT),
    item({ type: 'function_call', name: options.tool ?? 'exec_command', arguments: '{"cmd":"npm test"}', call_id: callId }),
    item({ type: 'function_call_output', call_id: callId, output: FAIL_OUTPUT }),
    item(msg('assistant', 'Let me look closer.')),
    rec('compacted', { message: CODEX_SUMMARY, replacement_history: [CODEX_PROMPT, msg('user', CODEX_SUMMARY)] }),
    item(msg('assistant', 'b.test.ts expects 3.')),
  ];
}
/** The compaction's id once `extra` lines were inserted before it. */
const codexExpand = (extra = 0): Record<string, 'ok'> => ({ [`codex-L${7 + extra}-1`]: 'ok' });

function codexMalformedMiddle(): FormatBadInput {
  const lines = codexBase();
  lines.splice(3, 0, 'npm WARN deprecated glob@7.2.3: no longer supported', '[1,2,3]', '{"payload":{"type":"message"}}', lines[3]!.slice(0, 40));
  return entry('codex-malformed-middle.jsonl', 'a Codex rollout with malformed lines in the middle (4–7): npm output, a JSON array, an object without "type", a record cut off mid-line', text(lines), 1, [['malformed_line', 4], ['malformed_line', 5], ['malformed_line', 6], ['malformed_line', 7]], codexExpand(4));
}

function codexTornLastLine(): FormatBadInput {
  return entry('codex-torn-last-line.jsonl', 'a Codex rollout whose last line (9) stops mid-record, without a newline', Buffer.concat([text(codexBase()), Buffer.from('{"timestamp":"2026-04-30T15:06:56.000Z","type":"response_item","payload":{"type":"mess', 'utf8')]), 0, [['truncated_last_line', 9]], codexExpand());
}

function codexInvalidUtf8(): FormatBadInput {
  const bytes = text(codexBase());
  const at = bytes.indexOf('b.test.ts expects 3.');
  return entry('codex-invalid-utf8.jsonl', 'a Codex rollout with bytes that are not UTF-8 (0xFF 0xFE, a cut 3-byte sequence) in line 8', Buffer.concat([bytes.subarray(0, at), Buffer.from([0xff, 0xfe, 0x20, 0xe2, 0x82]), bytes.subarray(at)]), 1, [['malformed_line', 8]], codexExpand());
}

function codexNulBytes(): FormatBadInput {
  const lines = codexBase();
  lines.splice(5, 0, '\u0000'.repeat(16), item(msg('assistant', 'a\u0000b')).replace('\\u0000', '\u0000'));
  return entry('codex-nul-bytes.jsonl', 'a Codex rollout with a line of raw NULs (6), a raw NUL inside a string (7) and a NUL block at the end without a newline (11)', Buffer.concat([text(lines), Buffer.alloc(64)]), 1, [['malformed_line', 6], ['malformed_line', 7], ['truncated_last_line', 11]], codexExpand(2));
}

function codexUnknownRecord(): FormatBadInput {
  const lines = codexBase();
  lines.splice(2, 0, rec('telepathy_record', { anything: true }), item({ type: 'hologram_call', call_id: 'call_h' }));
  return entry('codex-unknown-record.jsonl', 'a Codex rollout with a record type (line 3) and a response item type (line 4) no version writes: skipped with warnings', text(lines), 0, [['unknown_record', 3], ['unknown_record', 4]], codexExpand(2));
}

function codexWrongFieldTypes(): FormatBadInput {
  const lines = codexBase();
  lines.push(
    rec('response_item', 'not an object'),
    item({ type: 'message', role: 'user', content: 42 }),
    item({ type: 'function_call', name: 'exec_command', arguments: '{}' }),
    item(msg('assistant', 'Still here after the odd records.')),
  );
  return entry('codex-wrong-field-types.jsonl', 'Codex records of the right type with fields of the wrong type: a payload that is a string (line 9), message content a number (10), a function_call without call_id (11)', text(lines), 1, [['malformed_line', 9], ['malformed_line', 10], ['malformed_line', 11]], codexExpand());
}

function codexBadReplacement(): FormatBadInput {
  const lines = codexBase();
  lines[6] = rec('compacted', { message: CODEX_SUMMARY, replacement_history: [CODEX_PROMPT, 'not an item', 7, null] });
  lines.push(rec('compacted', { message: 'second summary', replacement_history: { not: 'a list' } }), item(msg('assistant', 'After the second compaction.')));
  return entry('codex-bad-replacement-history.jsonl', 'Codex compactions with a malformed replacement_history: items that are not objects (line 7), an object in place of the list (line 9): each said, the compaction still applied', text(lines), 1, [['malformed_line', 7], ['malformed_line', 9]], { ...codexExpand(), 'codex-L9-1': 'ok' });
}

function codexOrphanOutput(): FormatBadInput {
  const lines = codexBase();
  lines.push(item({ type: 'function_call_output', call_id: 'call_nobody', output: 'an output nobody asked for: ORPHAN' }), item(msg('assistant', 'Done.')));
  return entry('codex-orphan-output.jsonl', 'a Codex function_call_output (line 9) whose call_id no call in the file has: shown as a tool message where it is, no finding (as for Claude Code)', text(lines), 0, [], codexExpand());
}

function codexHostileNames(): FormatBadInput {
  const lines = codexBase({ session: `s-${HOSTILE}`, model: `${IMG}${OSC52}`, callId: `call_${IMG}${OSC52}`, tool: `sh\u202Eexe${OSC52}${SCRIPT}` });
  lines.push(item(msg('user', `Read ${SCRIPT} and ${OSC52} and a lone \udc00 low surrogate`)));
  return entry('codex-hostile-names.jsonl', 'a Codex rollout with hostile text where names go: script and img tags, OSC 52, a bidi override and a lone surrogate in the session id, the model, the call id and the tool name', text(lines), 0, [], codexExpand());
}

// ---------------------------------------------------------------------------------------------
// Nested deeper than the stack (docs/deep-json.md)

const DEEP = '"@@DEEP@@"';
const deepLine = (line: string): string => line.split(DEEP).join(deepText(DEEP_LEVELS));

function ccDeepInput(): FormatBadInput {
  const { lines } = ccBase({ input: { command: DEEP.slice(1, -1) } });
  return entry('cc-deep-input.jsonl', `a Claude Code tool_use (line 2) whose input is nested ${DEEP_LEVELS} arrays deep: cut at the depth cap, said, the rest of the session opens`, text(lines.map(deepLine)), 1, [['malformed_line', 2]], CC_EXPAND);
}

function codexDeepArguments(): FormatBadInput {
  const lines = codexBase();
  lines[3] = deepLine(item({ type: 'function_call', name: 'exec_command', arguments: { cmd: DEEP.slice(1, -1) }, call_id: 'call_1' }));
  return entry('codex-deep-arguments.jsonl', `a Codex function_call (line 4) whose arguments are a value nested ${DEEP_LEVELS} arrays deep rather than JSON text: cut at the depth cap, said, the rest opens`, text(lines), 1, [['malformed_line', 4]], codexExpand());
}

/** The other single-file formats' cases of deepJson.ts, as corpus entries: no reductions, nothing hidden to search. */
const DEEP_ENTRIES: Record<string, { name: string; what: string }> = {
  'supercode-sidecar': { name: 'deep-record.sidecar.jsonl', what: `a sidecar whose message record on line 3 has tool-call arguments nested ${DEEP_LEVELS} arrays deep: the record is not read (index 1 a hole), the rest is` },
  'swe-agent-traj': { name: 'swe-deep-arguments.traj', what: `a SWE-agent trajectory whose history[2] tool call has arguments nested ${DEEP_LEVELS} arrays deep (a value, not JSON text): cut at the depth cap, said, the rest opens` },
  'mini-swe-agent-traj': { name: 'mini-deep-arguments.traj.json', what: `a mini-swe-agent trajectory whose messages[2] tool call has arguments nested ${DEEP_LEVELS} arrays deep: cut at the depth cap, said, the rest opens` },
  'inspect-json': { name: 'inspect-deep-arguments.json', what: `an Inspect AI .json log whose sample's messages[2] tool call has arguments nested ${DEEP_LEVELS} arrays deep: cut at the depth cap, said, the sample opens` },
  'inspect-eval': { name: 'inspect-deep-arguments.eval', what: `an Inspect AI .eval archive whose sample entry has tool-call arguments nested ${DEEP_LEVELS} arrays deep: cut at the depth cap, said, the sample opens` },
  'openhands-v0': { name: 'openhands-deep-arguments.json', what: `an OpenHands V0 trajectory whose run action [2] has args nested ${DEEP_LEVELS} arrays deep (shown as its arguments): cut at the depth cap, said, the rest opens` },
};

function deepEntries(): FormatBadInput[] {
  return deepCases()
    .filter((c) => c.variant === 'arguments' && DEEP_ENTRIES[c.format] !== undefined)
    .map((c) => {
      const { name, what } = DEEP_ENTRIES[c.format]!;
      return { name, what, bytes: c.files[c.open]!, error: null, findings: ['malformed_line'], finding_lines: [c.line ?? null], check_exit: 1, expand: {}, search: { query: 'FAIL', matches: 0 }, messages: c.rawMessages };
    });
}

/** The committed entries of the imported formats, in the README's order. */
export function formatBadCorpus(): FormatBadInput[] {
  return [
    ccMalformedMiddle(),
    ccTornLastLine(),
    ccInvalidUtf8(),
    ccNulBytes(),
    ccUnknownRecord(),
    ccWrongFieldTypes(),
    ccDanglingParent(),
    ccParentCycle(),
    ccCompactNowhere(),
    ccOrphanResult(),
    ccHostileNames(),
    codexMalformedMiddle(),
    codexTornLastLine(),
    codexInvalidUtf8(),
    codexNulBytes(),
    codexUnknownRecord(),
    codexWrongFieldTypes(),
    codexBadReplacement(),
    codexOrphanOutput(),
    codexHostileNames(),
    ccDeepInput(),
    codexDeepArguments(),
    ...deepEntries(),
  ];
}

/** A huge line of each format, made at test time: a 32 MiB tool output, with a marker at its end. */
export const HUGE_OUTPUT_BYTES = 32 * 1024 * 1024;
export function hugeLine(format: 'cc' | 'codex'): Buffer {
  const body = `${'x'.repeat(HUGE_OUTPUT_BYTES - 20)} HUGE-LINE-END\n`;
  if (format === 'cc') {
    const b = new SessionBuilder();
    b.user('cat the log', null);
    const [call] = b.assistant('msg_1', [toolUse('toolu_1', 'cat big.log')]);
    b.result('toolu_1', body, call);
    b.add({ type: 'system', subtype: 'microcompact_boundary', content: 'Context microcompacted', microcompactMetadata: { trigger: 'auto', preTokens: 1, tokensSaved: 1, compactedToolIds: ['toolu_1'], clearedAttachmentUUIDs: [] } });
    b.assistant('msg_2', [{ type: 'text', text: 'That log is long.' }]);
    return text(b.lines);
  }
  const lines = codexBase();
  lines[4] = item({ type: 'function_call_output', call_id: 'call_1', output: body });
  return text(lines);
}
