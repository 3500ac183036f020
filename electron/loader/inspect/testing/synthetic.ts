/**
 * Synthetic Inspect AI logs (`e2e/fixtures/synthetic/inspect/`), written by `writeInspectSynthetic`:
 * the branches the real logs lack (compaction of each type, truncated tool output, attachments,
 * several samples and epochs, damage), in the shapes inspect_ai's writer uses (see
 * e2e/fixtures/real/inspect/README.md). A test fails when the committed files drift from this
 * builder. Also a small test-only zip *writer* (reading is yauzl's): entries stored, deflated, or
 * under any method number, with sizes, CRC and names that may lie.
 */
import { closeSync, mkdirSync, openSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { deflateRawSync } from 'node:zlib';
import { crc32 } from '../zip';
import { centralHeader, endRecord, localHeader } from '../../../bundle/evalArchive';

export const INSPECT_SYNTHETIC_DIR = join(import.meta.dirname, '../../../../e2e/fixtures/synthetic/inspect');

type Obj = Record<string, unknown>;

export interface ZipEntrySpec {
  name: string;
  data: Buffer;
  /** 0 stored, 8 deflate (default), 93 zstd (`zstdFrame`), anything else written as stored bytes under that number. */
  method?: number;
  /** The entry's bytes as written, when not made from `data` by its method (a lying or damaged body). */
  body?: Buffer;
  /** Declared inflated size (default the true one). */
  declaredSize?: number;
  crc?: number;
}

/**
 * A Zstandard frame (RFC 8878) holding `data` in raw blocks: single segment, content size in 8
 * bytes, no checksum. Every zstd decoder reads it; writing it needs no compressor (a test-only writer).
 * `rle` instead writes `rle.count` copies of one byte as RLE blocks of 128 KiB (a zstd bomb's body).
 */
export function zstdFrame(data: Buffer, rle?: { byte: number; count: number; declared?: number }): Buffer {
  const BLOCK = 128 * 1024;
  const size = rle ? rle.count : data.length;
  const head = Buffer.alloc(4 + 1 + 8);
  head.writeUInt32LE(0xfd2fb528, 0);
  head.writeUInt8(0xe0, 4); // content size in 8 bytes, single segment
  head.writeBigUInt64LE(BigInt(rle?.declared ?? size), 5);
  const parts: Buffer[] = [head];
  let at = 0;
  do {
    const n = Math.min(BLOCK, size - at);
    const last = at + n >= size ? 1 : 0;
    const header = Buffer.alloc(3);
    header.writeUIntLE(last | ((rle ? 1 : 0) << 1) | (n << 3), 0, 3);
    parts.push(header, rle ? Buffer.from([rle.byte]) : data.subarray(at, at + n));
    at += n;
  } while (at < size);
  return Buffer.concat(parts);
}

/**
 * A Zstandard frame whose header declares no content size and a window of `windowDescriptor`
 * (RFC 8878 §3.1.1.1.2: exponent in the high 5 bits, mantissa in the low 3), holding `data` in
 * one raw block. 0xA7 declares 1.875 GiB: a decoder that sizes its window from the header
 * allocates that much for a few bytes of content (a zstd window bomb).
 */
export function zstdWindowFrame(data: Buffer, windowDescriptor: number): Buffer {
  const head = Buffer.alloc(4 + 1 + 1 + 3);
  head.writeUInt32LE(0xfd2fb528, 0);
  head.writeUInt8(0x00, 4); // no content size, not single segment, no checksum, no dictionary
  head.writeUInt8(windowDescriptor, 5);
  head.writeUIntLE(1 | (data.length << 3), 6, 3); // the last block, raw
  return Buffer.concat([head, data]);
}

/** Where an entry's data lies in a written archive. */
export interface ZipLayoutEntry {
  name: string;
  dataStart: number;
  compressedSize: number;
}

/**
 * Writes a zip archive of `entries` through `write`, one entry at a time (an iterable may make each
 * entry only when it is reached, so a large archive is never held whole), and answers where each
 * entry's data lies.
 */
export function writeZip(entries: Iterable<ZipEntrySpec>, write: (bytes: Buffer) => void): ZipLayoutEntry[] {
  const central: Buffer[] = [];
  const layout: ZipLayoutEntry[] = [];
  let offset = 0;
  for (const e of entries) {
    const method = e.method ?? 8;
    const body = e.body ?? (method === 8 ? deflateRawSync(e.data) : method === 93 ? zstdFrame(e.data) : e.data);
    const name = Buffer.from(e.name, 'utf8');
    const crc = e.crc ?? crc32(e.data);
    const size = e.declaredSize ?? e.data.length;
    write(Buffer.concat([localHeader(method, crc, body.length, size, name.length), name]));
    write(body);
    central.push(centralHeader(method, crc, body.length, size, name.length, offset), name);
    layout.push({ name: e.name, dataStart: offset + 30 + name.length, compressedSize: body.length });
    offset += 30 + name.length + body.length;
  }
  const cdBytes = Buffer.concat(central);
  write(Buffer.concat([cdBytes, endRecord(layout.length, cdBytes.length, offset)]));
  return layout;
}

/** A zip archive of `entries` and where each entry's data lies in it. */
export function zipLayout(entries: readonly ZipEntrySpec[]): { bytes: Buffer; layout: ZipLayoutEntry[] } {
  const parts: Buffer[] = [];
  const layout = writeZip(entries, (b) => parts.push(b));
  return { bytes: Buffer.concat(parts), layout };
}

/**
 * A zip archive of `entries` whose last one's local header and data are written once while the
 * central directory lists them `count` times, under `names(k)` (k from 1), every one at the same
 * offset: an overlapping-entries zip (each listed entry inflates the same bytes again).
 */
export function overlappingZip(entries: readonly ZipEntrySpec[], count: number, names: (k: number) => string): Buffer {
  const { bytes } = zipLayout(entries);
  const cdStart = bytes.readUInt32LE(bytes.length - 6);
  const firstCdLength = entries.slice(0, -1).reduce((n, e) => n + 46 + Buffer.byteLength(e.name, 'utf8'), 0);
  const sharedCd = bytes.subarray(cdStart + firstCdLength, bytes.length - 22);
  const central: Buffer[] = [bytes.subarray(cdStart, cdStart + firstCdLength)];
  for (let k = 1; k <= count; k++) {
    const name = Buffer.from(names(k), 'utf8');
    const h = Buffer.from(sharedCd.subarray(0, 46));
    h.writeUInt16LE(name.length, 28);
    central.push(h, name);
  }
  const cd = Buffer.concat(central);
  return Buffer.concat([bytes.subarray(0, cdStart), cd, endRecord(Math.min(entries.length - 1 + count, 0xffff), cd.length, cdStart)]);
}

/** A zip archive of `entries` (local headers, data, central directory, end record). */
export function zipOf(entries: readonly ZipEntrySpec[]): Buffer {
  return zipLayout(entries).bytes;
}

const json = (v: unknown): Buffer => Buffer.from(JSON.stringify(v), 'utf8');

// Messages in inspect_ai's ChatMessage shapes.
const sys = (id: string): Obj => ({ id, role: 'system', content: 'You are a careful software agent.', source: 'input' });
const user = (id: string, text: string): Obj => ({ id, role: 'user', content: text, source: 'input' });
const asst = (id: string, callId: string | undefined, text: string): Obj => ({
  id,
  role: 'assistant',
  content: [{ type: 'reasoning', reasoning: `thinking about ${text}` }, { type: 'text', text }],
  source: 'generate',
  ...(callId ? { tool_calls: [{ id: callId, function: 'bash', arguments: { cmd: text }, type: 'function' }] } : {}),
});
const tool = (id: string, callId: string, text: string): Obj => ({ id, role: 'tool', content: text, tool_call_id: callId, function: 'bash' });

let clock = 0;
const modelEvent = (input: Obj[], output: Obj, refs?: [number, number][]): Obj => ({
  uuid: `ev-model-${++clock}`,
  event: 'model',
  model: 'openai/gpt-synthetic',
  input: refs ? [] : input,
  ...(refs ? { input_refs: refs } : {}),
  tools: [],
  tool_choice: 'auto',
  config: {},
  output: { model: 'gpt-synthetic', choices: [{ message: output, stop_reason: 'stop' }] },
});
const compactionEvent = (type: 'summary' | 'edit' | 'trim'): Obj => ({ uuid: `ev-compaction-${++clock}`, event: 'compaction', type, tokens_before: 9000, tokens_after: 3000, source: 'inspect' });
const toolEvent = (callId: string, messageId: string, truncated?: [number, number]): Obj => ({ uuid: `ev-tool-${++clock}`, event: 'tool', type: 'function', id: callId, function: 'bash', arguments: {}, result: '…', message_id: messageId, ...(truncated ? { truncated } : {}) });

/** A long tool output (what the edit compaction clears). */
export const LONG_LISTING = Array.from({ length: 60 }, (_, i) => `src/module_${i}.py`).join('\n');
export const SUMMARY_TEXT = 'The following is a summary of work completed on this task so far:\n\n<summary>\nListed the sources; module_3 holds the bug.\n</summary>\n\n';
export const REMOVED = '(Tool result removed to save context)';
export const CUT_OUTPUT = 'The output of your call to bash was too long to be displayed.\nHere is a truncated version:\n<START_TOOL_OUTPUT>\nline 1\nline 2\n<END_TOOL_OUTPUT>\n';
export const CUT_RAW_BYTES = 50_000;
export const LONG_INPUT_TEXT = 'Fix the failing test in module_3; '.repeat(40);

/**
 * Sample `compact` (id "compact", epoch 1): summary compaction before call 3 (messages 2–5 become
 * the summary), an edit compaction before call 4 (tool message 7 cleared, with a new id), a tool
 * output truncated by the tool (message 9). Inputs via input_refs into `events_data.messages`.
 */
function compactSample(): Obj {
  const m: Obj[] = [
    sys('s0'),
    user('u1', LONG_INPUT_TEXT),
    asst('a2', 'c1', 'ls'),
    tool('t3', 'c1', LONG_LISTING),
    asst('a4', 'c2', 'cat module_3.py'),
    tool('t5', 'c2', 'def f():\n    return 1\n'),
    asst('a6', 'c3', 'pytest'),
    tool('t7', 'c3', LONG_LISTING.toUpperCase()),
    asst('a8', 'c4', 'pytest -x'),
    tool('t9', 'c4', CUT_OUTPUT),
    asst('a10', undefined, 'Fixed: module_3 returns 2.'),
  ];
  const summary: Obj = { id: 'sum1', role: 'user', content: SUMMARY_TEXT, metadata: { summary: true } };
  const cleared: Obj = { ...m[7], id: 'edited-t7', content: REMOVED };
  // The message pool: each distinct message once, in order of first use.
  const pool: Obj[] = [...m.slice(0, 10), summary, cleared];
  const events: Obj[] = [
    { uuid: 'ev-init', event: 'sample_init', sample: {} },
    modelEvent([], m[2] as Obj, [[0, 2]]),
    toolEvent('c1', 't3'),
    modelEvent([], m[4] as Obj, [[0, 4]]),
    toolEvent('c2', 't5'),
    compactionEvent('summary'),
    { ...modelEvent([], { id: 'sum-out', role: 'assistant', content: 'Listed the sources; module_3 holds the bug.' }, [[0, 6]]), role: 'compaction' },
    modelEvent([], m[6] as Obj, [
      [0, 2],
      [10, 11],
    ]),
    toolEvent('c3', 't7'),
    compactionEvent('edit'),
    modelEvent([], m[8] as Obj, [
      [0, 2],
      [10, 11],
      [6, 7],
      [11, 12],
    ]),
    toolEvent('c4', 't9', [CUT_RAW_BYTES, 16384]),
    modelEvent([], m[10] as Obj, [
      [0, 2],
      [10, 11],
      [6, 7],
      [11, 12],
      [8, 10],
    ]),
  ];
  return { id: 'compact', epoch: 1, input: LONG_INPUT_TEXT, target: '', messages: m, events, events_data: { messages: pool, calls: [] }, attachments: {} };
}

/** Sample `trim` (epoch 1 and 2): a trim compaction before call 3 drops messages 2–3. Inline inputs. */
function trimSample(epoch: number): Obj {
  const m: Obj[] = [sys('s0'), user('u1', `Trim task, epoch ${epoch}`), asst('a2', 'c1', 'ls'), tool('t3', 'c1', LONG_LISTING), asst('a4', 'c2', 'cat x'), tool('t5', 'c2', 'x = 1'), asst('a6', undefined, 'done')];
  const events: Obj[] = [modelEvent(m.slice(0, 2), m[2] as Obj), modelEvent(m.slice(0, 4), m[4] as Obj), compactionEvent('trim'), modelEvent([m[0], m[1], m[4], m[5]] as Obj[], m[6] as Obj)];
  return { id: 'trim', epoch, input: `Trim task, epoch ${epoch}`, target: '', messages: m, events, attachments: {} };
}

/** Sample 7 (numeric id): attachments in a message, a tool call's arguments and an event input; one reference names no attachment. */
function attachmentSample(): Obj {
  const big = 'A long document stored once as an attachment. '.repeat(20);
  const m: Obj[] = [user('u0', 'attachment://d0c'), { ...asst('a1', 'c1', 'read'), tool_calls: [{ id: 'c1', function: 'read', arguments: { text: 'attachment://d0c' }, type: 'function' }] }, tool('t2', 'c1', 'attachment://missing'), asst('a3', undefined, 'ok')];
  const events: Obj[] = [modelEvent([m[0] as Obj], m[1] as Obj), modelEvent(m.slice(0, 3), m[3] as Obj)];
  return { id: 7, epoch: 1, input: 'attachment://d0c', target: '', messages: m, events, attachments: { d0c: big } };
}

/** Sample `damaged`: a message that is no object, one of an unknown role, a model event whose refs leave the pool, and one whose last output is not in the history. */
function damagedSample(): Obj {
  const m: unknown[] = [user('u0', 'Damaged task'), 42, { id: 'x2', role: 'narrator', content: 'aside' }, asst('a3', undefined, 'first')];
  const events: Obj[] = [modelEvent([], m[3] as Obj, [[0, 99]]), modelEvent(m.slice(0, 4) as Obj[], { id: 'late', role: 'assistant', content: 'the last word' })];
  return { id: 'damaged', epoch: 1, input: 'Damaged task', target: '', messages: m, events, message_pool: [m[0]], attachments: {} };
}

/**
 * Sample `overlap`: a summary compaction before call 3 (messages 2–3), then a trim before call 4
 * that drops messages 2–5 — over the summarized run: one view cannot show both, so the second is a
 * finding — and call 4 is given tool message 7 cut to a prefix with no compaction of that type
 * before it: a derived reduction.
 */
function overlapSample(): Obj {
  const m: Obj[] = [sys('s0'), user('u1', 'Overlap task'), asst('a2', 'c1', 'ls'), tool('t3', 'c1', LONG_LISTING), asst('a4', 'c2', 'cat x'), tool('t5', 'c2', 'x = 1'), asst('a6', 'c3', 'ls -R'), tool('t7', 'c3', LONG_LISTING), asst('a8', undefined, 'done')];
  const summary: Obj = { id: 'sum2', role: 'user', content: SUMMARY_TEXT, metadata: { summary: true } };
  const cut: Obj = { ...m[7], content: `${LONG_LISTING.slice(0, 64)}${CUT_MARK}` };
  const events: Obj[] = [
    modelEvent(m.slice(0, 2), m[2] as Obj),
    modelEvent(m.slice(0, 4), m[4] as Obj),
    compactionEvent('summary'),
    modelEvent([m[0], m[1], summary, m[4], m[5]] as Obj[], m[6] as Obj),
    compactionEvent('trim'),
    modelEvent([m[0], m[1], m[6], cut] as Obj[], m[8] as Obj),
  ];
  return { id: 'overlap', epoch: 1, input: 'Overlap task', target: '', messages: m, events, attachments: {} };
}
export const CUT_MARK = '\n[output cut]';

const header = (samples: number): Obj => ({ version: 2, status: 'success', eval: { task: 'synthetic', model: 'openai/gpt-synthetic', dataset: { samples } }, plan: {}, results: {}, stats: {} });
const summaryOf = (s: Obj): Obj => ({ id: s.id, epoch: s.epoch, input: s.input, target: s.target });
const sampleName = (s: Obj): string => `samples/${String(s.id)}_epoch_${String(s.epoch)}.json`;

/** A `.eval` of `samples` as inspect_ai writes a finished log (journal first, samples, summaries, header). */
export function evalOf(samples: readonly Obj[], extra: readonly ZipEntrySpec[] = []): Buffer {
  return zipOf([
    { name: '_journal/start.json', data: json({ version: 2, eval: header(samples.length).eval, plan: {} }) },
    ...samples.map((s) => ({ name: sampleName(s), data: json(s) })),
    { name: '_journal/summaries/1.json', data: json(samples.map(summaryOf)) },
    { name: 'summaries.json', data: json(samples.map(summaryOf)) },
    ...extra,
    { name: 'header.json', data: json(header(samples.length)) },
  ]);
}

export function jsonOf(samples: readonly Obj[]): string {
  return `${JSON.stringify({ ...header(samples.length), samples }, null, 2)}\n`;
}

export const syntheticSamples = (): { compact: Obj; trim1: Obj; trim2: Obj; attachments: Obj; damaged: Obj; overlap: Obj } => {
  clock = 0;
  return { compact: compactSample(), trim1: trimSample(1), trim2: trimSample(2), attachments: attachmentSample(), damaged: damagedSample(), overlap: overlapSample() };
};

/** Every committed synthetic file, by name. */
export function inspectSynthetic(): Record<string, Buffer> {
  const s = syntheticSamples();
  const small = json(s.trim1);
  return {
    'compact.eval': evalOf([s.compact, s.trim1, s.trim2, s.attachments]),
    'compact.json': Buffer.from(jsonOf([s.compact, s.trim1, s.trim2, s.attachments]), 'utf8'),
    'damaged.json': Buffer.from(jsonOf([s.damaged]), 'utf8'),
    'overlap.json': Buffer.from(jsonOf([s.overlap]), 'utf8'),
    'stored.eval': zipOf([{ name: 'header.json', data: json(header(1)), method: 0 }, { name: sampleName(s.trim1), data: small, method: 0 }]),
    // Inspect AI writes zstd entries since 2025: one that reads, one that lies about its size, one damaged, one of an unsupported method.
    'zstd.eval': zipOf([{ name: 'header.json', data: json(header(1)), method: 93 }, { name: sampleName(s.trim1), data: small, method: 93 }]),
    'zstd-bomb.eval': zipOf([
      { name: 'header.json', data: json(header(1)) },
      { name: sampleName(s.trim1), data: small, method: 93, body: zstdFrame(Buffer.alloc(0), { byte: 0x20, count: 16 * 1024 * 1024 }) },
    ]),
    'zstd-damaged.eval': zipOf([{ name: 'header.json', data: json(header(1)) }, { name: sampleName(s.trim1), data: small, method: 93, body: Buffer.concat([zstdFrame(small).subarray(0, 13), Buffer.from('not a zstd block')]) }]),
    'bzip2.eval': zipOf([{ name: 'header.json', data: json(header(1)) }, { name: sampleName(s.trim1), data: small, method: 12 }]),
    'traversal.eval': zipOf([{ name: 'header.json', data: json(header(2)) }, { name: '../samples/evil_epoch_1.json', data: small }, { name: 'samples\\back_epoch_1.json', data: small }, { name: '/abs/samples/x_epoch_1.json', data: small }, { name: sampleName(s.trim1), data: small }]),
    'bad-crc.eval': zipOf([{ name: 'header.json', data: json(header(1)) }, { name: sampleName(s.trim1), data: small, crc: 0x12345678 }]),
    'lying-size.eval': zipOf([{ name: 'header.json', data: json(header(1)) }, { name: sampleName(s.trim1), data: Buffer.concat([small, Buffer.alloc(200_000, 0x20)]), declaredSize: 1000 }]),
    'truncated.eval': evalOf([s.trim1]).subarray(0, 300),
    'not-a-zip.eval': Buffer.from('this .eval is plain text, not an archive\n', 'utf8'),
  };
}

export function writeInspectSynthetic(dir: string = INSPECT_SYNTHETIC_DIR): void {
  mkdirSync(dir, { recursive: true });
  for (const [name, bytes] of Object.entries(inspectSynthetic())) writeFileSync(join(dir, name), bytes);
}

/**
 * Writes a `.eval` at `path` holding `samples` and one more stored entry `bigName` of `bigBytes`
 * zero bytes left as a hole in the file (sparse where the file system allows): a log of any size
 * at almost no cost. Its CRC is left 0: a reader that inflates it fails the check, one that does not never notices.
 */
export function writeEvalWithHole(path: string, samples: readonly Obj[], bigName: string, bigBytes: number): void {
  const small = evalOf(samples);
  // The small archive's entries, then the big one's local header at the end of their data.
  const cdStart = small.readUInt32LE(small.length - 6);
  const cdLength = small.readUInt32LE(small.length - 10);
  const count = small.readUInt16LE(small.length - 12);
  const name = Buffer.from(bigName, 'utf8');
  const local = localHeader(0, 0, bigBytes, bigBytes, name.length);
  const cd = centralHeader(0, 0, bigBytes, bigBytes, name.length, cdStart);
  const dataEnd = cdStart + 30 + name.length + bigBytes;
  const newCd = Buffer.concat([small.subarray(cdStart, cdStart + cdLength), cd, name]);
  const end = endRecord(count + 1, newCd.length, dataEnd);
  const fd = openSync(path, 'w');
  try {
    writeSync(fd, small, 0, cdStart, 0);
    writeSync(fd, Buffer.concat([local, name]), 0, 30 + name.length, cdStart);
    writeSync(fd, Buffer.concat([newCd, end]), 0, newCd.length + 22, dataEnd);
  } finally {
    closeSync(fd);
  }
}
