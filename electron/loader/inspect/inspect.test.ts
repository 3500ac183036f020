/** The Inspect AI importer (SPEC §10, docs/FORMATS.md §5) over real and synthetic logs, through the real loader and CLI. */
import { createHash } from 'node:crypto';
import { readFileSync, readSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { ViewEntry } from '../../../shared/index';
import { runCli } from '../../cli/testing/runCli';
import { tempDir } from '../../../tools/testing/files';
import { FORMAT_ADAPTERS } from '../detect';
import { isLoadError, openReadOnly, safeClose } from '../common/openFile';
import { loadSession } from '../session';
import type { DetectContext } from '../common/source';
import { messageOf } from './build';
import { inspectFormat, inspectReadOptions } from './index';
import { loadEvalLog } from './source';
import { CUT_MARK, CUT_RAW_BYTES, INSPECT_SYNTHETIC_DIR, REMOVED, SUMMARY_TEXT, evalOf, inspectSynthetic, overlappingZip, syntheticSamples, writeEvalWithHole, zipOf, zstdFrame, zstdWindowFrame } from './testing/synthetic';
import type { ZipCaps, ZipCounter } from './zip';
import { DEFAULT_ZIP_CAPS, inflateRaw, listZip, readZipEntry } from './zip';
import { ZSTD_WINDOW_FLOOR, windowSize, zstdFrames } from './zstdFrames';

const ROOT = join(import.meta.dirname, '../../..');
const REAL_DIR = join(ROOT, 'e2e/fixtures/real/inspect');
const DEDUP = join(REAL_DIR, 'log_message_deduplication.eval');
const POPULARITY = join(REAL_DIR, '2025-02-11T15-18-04-05-00_popularity_mj7khqpMM4GBCfVQozKgzB.eval');
const SECURITY = join(REAL_DIR, '2025-05-12T20-28-26-04-00_security-guide.json');
const TOOL_ERROR = join(REAL_DIR, 'log_tool_call_error.json');
const synthetic = (name: string) => join(INSPECT_SYNTHETIC_DIR, name);
const tmp = tempDir('session-inspector-inspect-');
afterAll(() => tmp.cleanup());

type Obj = Record<string, unknown>;
type View = { call: number | null; calls: number; messages: ViewEntry[] };

async function cli(args: string[]): Promise<{ code: number; json: Obj; stderr: string }> {
  const r = await runCli(args);
  return { code: r.code, json: (r.stdout ? JSON.parse(r.stdout) : {}) as Obj, stderr: r.stderr };
}
async function viewAt(path: string, n: number | undefined, session?: string): Promise<View> {
  const r = await cli(['view', ...(n === undefined ? [] : ['--at', String(n)]), ...(session ? ['--session', session] : []), path]);
  expect(r.code, r.stderr).toBe(0);
  return r.json as unknown as View;
}

/** The JSON of one archive entry, read through the importer's yauzl reader. */
async function entryJson(path: string, name: string): Promise<unknown> {
  const file = openReadOnly(path);
  if (isLoadError(file)) throw new Error(file.message);
  try {
    const z = await listZip(file.fd, file.size);
    if ('error' in z) throw new Error(z.error);
    const e = z.entries.find((x) => x.name === name);
    if (!e) throw new Error(`no entry ${name}`);
    const got = await readZipEntry(z, e, DEFAULT_ZIP_CAPS);
    if ('error' in got) throw new Error(got.error);
    return JSON.parse(got.bytes.toString('utf8')) as unknown;
  } finally {
    safeClose(file.fd);
  }
}

/** The first entry of `zip` (written to the test's folder), read through the importer's reader. */
async function readFirstEntry(name: string, zip: Buffer): Promise<{ bytes: Buffer } | { error: string }> {
  const path = tmp.path(name);
  writeFileSync(path, zip);
  const file = openReadOnly(path);
  if (isLoadError(file)) throw new Error(file.message);
  try {
    const opened = await listZip(file.fd, file.size);
    if ('error' in opened) throw new Error(opened.error);
    return await readZipEntry(opened, opened.entries[0]!, DEFAULT_ZIP_CAPS);
  } finally {
    safeClose(file.fd);
  }
}

/** The recorded inputs of a sample's main calls, computed here from the raw sample: refs expanded over the pool, side calls (output not in messages) left out. */
function recordedInputs(sample: Obj): { role: string; content: string }[][] {
  const pool = ((sample.events_data as Obj | undefined)?.messages ?? sample.message_pool ?? []) as unknown[];
  const ids = new Set((sample.messages as Obj[]).map((m) => m.id));
  const out: { role: string; content: string }[][] = [];
  for (const e of sample.events as Obj[]) {
    if (e.event !== 'model') continue;
    const output = ((e.output as Obj).choices as Obj[])[0]?.message as Obj;
    if (!ids.has(output.id)) continue;
    const input = (e.input as unknown[]).length > 0 ? (e.input as unknown[]) : (e.input_refs as [number, number][]).flatMap(([a, b]) => pool.slice(a, b));
    out.push(input.map((m) => ({ role: (m as Obj).role as string, content: messageOf(m, '', undefined).content })));
  }
  return out;
}

/** The sample with every `attachment://<hash>` string replaced by its attachment (here, independently of the importer). */
function withAttachments(sample: Obj): Obj {
  const att = (sample.attachments ?? {}) as Record<string, string>;
  return JSON.parse(JSON.stringify(sample), (_k, v: unknown) => (typeof v === 'string' && v.startsWith('attachment://') && att[v.slice(13)] !== undefined ? att[v.slice(13)] : v)) as Obj;
}

/** A view's rows as role and content, leaving out a trim's empty row (the model was given nothing there). */
function rows(v: View): { role: string; content: string }[] {
  return v.messages.filter((m) => !(m.role === null && m.content === '')).map((m) => ({ role: m.role ?? 'user', content: m.content }));
}

describe('fixtures', () => {
  it('the committed synthetic files are what the builder writes, and nothing else', () => {
    for (const [name, bytes] of Object.entries(inspectSynthetic())) expect(readFileSync(synthetic(name)).equals(bytes), name).toBe(true);
    expect(readdirSync(INSPECT_SYNTHETIC_DIR).sort()).toEqual(Object.keys(inspectSynthetic()).sort());
  });

  it('the real fixtures README names every real log with its size in bytes, its source commit and licence', () => {
    const readme = readFileSync(join(REAL_DIR, 'README.md'), 'utf8');
    expect(readme).toContain('499e6152e7b8fc8cbd8ac5283536572aa6e4ab17');
    expect(readme).toContain('MIT');
    for (const name of readdirSync(REAL_DIR).filter((n) => n !== 'README.md')) {
      expect(readme).toContain(`\`${name}\``);
      expect(readme).toContain(statSync(join(REAL_DIR, name)).size.toLocaleString('en-US'));
    }
  });
});

describe('what the real logs say beyond the documented shape of the format (docs/FORMATS.md §5)', () => {
  it('the committed .eval entries are deflate (method 8); model inputs may be input_refs into message_pool; a JSON log may have no events', async () => {
    for (const path of [DEDUP, POPULARITY]) {
      const file = openReadOnly(path);
      if (isLoadError(file)) throw new Error(file.message);
      const z = await listZip(file.fd, file.size);
      safeClose(file.fd);
      if ('error' in z) throw new Error(z.error);
      expect(new Set(z.entries.map((e) => e.entry.compressionMethod))).toEqual(new Set([8]));
      expect(z.entries.map((e) => e.name)).toEqual(expect.arrayContaining(['header.json', 'summaries.json', '_journal/start.json']));
    }
    const sample = (await entryJson(DEDUP, 'samples/0_epoch_1.json')) as Obj;
    const models = (sample.events as Obj[]).filter((e) => e.event === 'model');
    expect(models.length).toBeGreaterThan(0);
    for (const m of models) {
      expect(m.input).toEqual([]);
      expect(Array.isArray(m.input_refs)).toBe(true);
    }
    expect(Array.isArray(sample.message_pool)).toBe(true);
    const doc = JSON.parse(readFileSync(TOOL_ERROR, 'utf8')) as { samples: Obj[] };
    expect(doc.samples[0]?.events).toBeUndefined();
  });
});

describe('real logs', () => {
  it('view --at N reproduces every call`s recorded input (input_refs over the message pool) byte for byte', async () => {
    const sample = (await entryJson(DEDUP, 'samples/0_epoch_1.json')) as Obj;
    const inputs = recordedInputs(withAttachments(sample));
    const latest = await viewAt(DEDUP, undefined);
    expect(latest.calls).toBe(inputs.length);
    for (let n = 1; n <= inputs.length; n++) expect(rows(await viewAt(DEDUP, n)), `call ${n}`).toEqual(inputs[n - 1]);
  });

  it('every sample of a .eval is a session, in id order, with its summary`s input as title; --session picks one', async () => {
    const check = await cli(['check', POPULARITY]);
    expect(check.code, check.stderr).toBe(0);
    const summary = check.json.summary as { format: string; session_id: string; sessions: { id: string; title?: string; messages: number }[] };
    expect(summary.format).toBe('inspect');
    const summaries = (await entryJson(POPULARITY, 'summaries.json')) as Obj[];
    const ids = summaries.map((s) => `${String(s.id)}_epoch_${String(s.epoch)}`).sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
    expect(summary.sessions.map((s) => s.id)).toEqual(ids);
    expect(summary.session_id).toBe(ids[0]);
    for (const s of summary.sessions) expect(s.title).toBeTruthy();
    const tenth = await cli(['check', '--session', '10_epoch_1', POPULARITY]);
    const sample = (await entryJson(POPULARITY, 'samples/10_epoch_1.json')) as Obj;
    expect((tenth.json.summary as Obj).session_id).toBe('10_epoch_1');
    expect((tenth.json.summary as Obj).messages).toBe((sample.messages as unknown[]).length);
    const view = await viewAt(POPULARITY, undefined, '10_epoch_1');
    expect(view.messages.map((m) => m.content)).toEqual((sample.messages as Obj[]).map((m) => messageOf(m, '', undefined).content));
  });

  it('a .json log: a scorer`s model call is no call of the history, and every sample opens', async () => {
    const doc = JSON.parse(readFileSync(SECURITY, 'utf8')) as { samples: Obj[] };
    for (const sample of doc.samples) {
      const id = `${String(sample.id)}_epoch_${String(sample.epoch)}`;
      const models = (sample.events as Obj[]).filter((e) => e.event === 'model');
      const inputs = recordedInputs(withAttachments(sample));
      expect(inputs.length).toBeLessThan(models.length);
      const v = await viewAt(SECURITY, undefined, id);
      expect(v.calls).toBe((sample.messages as Obj[]).filter((m) => m.role === 'assistant').length);
      for (let n = 1; n <= inputs.length; n++) expect(rows(await viewAt(SECURITY, n, id))).toEqual(inputs[n - 1]);
    }
  });

  it('tool results keep their tool_call_id and function name, and the tool error goes to metadata', async () => {
    const doc = JSON.parse(readFileSync(TOOL_ERROR, 'utf8')) as { samples: { messages: Obj[] }[] };
    const raw = doc.samples[0]?.messages ?? [];
    const r = await loadSession([TOOL_ERROR]);
    if (!r.ok) throw new Error(r.error.message);
    const minted = Array.from({ length: r.session.minted.length }, (_x, i) => r.session.minted.at(i));
    r.session.close();
    expect(minted.map((m) => [m?.role, m?.tool_call_id, m?.name, m?.metadata?.inspect_error])).toEqual(raw.map((m) => ['tool', m.tool_call_id, m.function, m.error]));
  });
});

describe('synthetic logs: compaction, truncation, attachments', () => {
  const s = syntheticSamples();

  it('each compaction type is a recorded reduction of its kind, origin the compaction event; a tool-cut output is original_unavailable with its stated size', async () => {
    const log = await cli(['log', '--session', 'compact_epoch_1', synthetic('compact.eval')]);
    const reductions = (log.json.reductions as Obj[]).map((r) => ({ kind: r.kind, provenance: r.provenance, origin: r.origin, status: r.status, stub: r.stub, hash_origin: r.hash_origin, bytes: (r.ptr as Obj).bytes, ...(r.summary_role !== undefined ? { summary_role: r.summary_role } : {}) }));
    const compactions = (s.compact.events as Obj[]).filter((e) => e.event === 'compaction');
    // The summary message of the pool: its role is how the model was given the summary.
    const given = ((s.compact.events_data as { messages: Obj[] }).messages).find((m) => (m.metadata as Obj | undefined)?.summary === true);
    expect(reductions).toEqual([
      { kind: 'summarized', provenance: 'recorded', origin: { event: compactions[0]?.uuid }, status: 'verified', stub: SUMMARY_TEXT, hash_origin: 'import', bytes: expect.any(Number) as unknown, summary_role: given?.role },
      { kind: 'tool_output_elided', provenance: 'recorded', origin: { event: compactions[1]?.uuid }, status: 'verified', stub: REMOVED, hash_origin: 'import', bytes: expect.any(Number) as unknown },
      { kind: 'tool_output_truncated', provenance: 'recorded', origin: { event: expect.stringMatching(/^ev-tool-/) as unknown }, status: 'original_unavailable', stub: expect.any(String) as unknown, hash_origin: null, bytes: CUT_RAW_BYTES },
    ]);
    const trim = await cli(['log', '--session', 'trim_epoch_2', synthetic('compact.eval')]);
    expect((trim.json.reductions as Obj[]).map((r) => [r.kind, r.provenance, r.stub, r.ptr && (r.ptr as Obj).index, r.end])).toEqual([['turns_cleared', 'recorded', '', 2, 4]]);
  });

  it('view --at N gives each call its recorded input, in the .eval and the .json alike', async () => {
    for (const [sample, id] of [
      [s.compact, 'compact_epoch_1'],
      [s.trim2, 'trim_epoch_2'],
      [s.attachments, '7_epoch_1'],
    ] as const) {
      const inputs = recordedInputs(withAttachments(sample));
      for (const file of ['compact.eval', 'compact.json']) {
        expect((await viewAt(synthetic(file), undefined, id)).calls).toBe(inputs.length);
        for (let n = 1; n <= inputs.length; n++) expect(rows(await viewAt(synthetic(file), n, id)), `${file} ${id} call ${n}`).toEqual(inputs[n - 1]);
      }
    }
  });

  it('expand: a summary gives back the transcript of what it replaced; a cut output says the file keeps only its size', async () => {
    const log = (await cli(['log', '--session', 'compact_epoch_1', synthetic('compact.eval')])).json.reductions as Obj[];
    const summary = await cli(['expand', '--id', String(log[0]?.id), '--session', 'compact_epoch_1', synthetic('compact.eval')]);
    expect(summary.code, summary.stderr).toBe(0);
    const msgs = (s.compact.messages as Obj[]).slice(2, 6).map((m) => messageOf(m, '', undefined));
    expect(summary.json.content).toBe(msgs.map((m) => `⟨${m.role}${m.tool_call_id ? ` ${m.tool_call_id}` : ''}⟩\n${m.content}\n`).join(''));
    const cut = await cli(['expand', '--id', String(log[2]?.id), '--session', 'compact_epoch_1', synthetic('compact.eval')]);
    expect(cut.code).not.toBe(0);
    expect(JSON.stringify(cut.json)).toContain('original_unavailable');
    expect(JSON.stringify(cut.json)).toContain(String(CUT_RAW_BYTES));
    const search = await cli(['search', '--query', 'module_3.py', '--session', 'compact_epoch_1', synthetic('compact.eval')]);
    expect(search.code, search.stderr).toBe(0);
    expect((search.json.matches as Obj[]).length).toBeGreaterThan(0);
    expect(search.json.reductions_unavailable).toBe(1);
  });

  it('attachment references are resolved in messages and tool-call arguments; a missing one is a finding', async () => {
    const v = await viewAt(synthetic('compact.json'), undefined, '7_epoch_1');
    const text = (s.attachments.attachments as Obj).d0c as string;
    expect(v.messages[0]?.content).toBe(text);
    expect(v.messages[1]?.tool_calls?.[0]?.arguments).toBe(JSON.stringify({ text }));
    const check = await cli(['check', '--session', '7_epoch_1', synthetic('compact.eval')]);
    expect((check.json.findings as Obj[]).map((f) => f.message).join('\n')).toMatch(/attachment reference.*missing/);
  });

  it('damaged samples still open: findings for what is unknown, the last output missing from messages ends the view', async () => {
    const check = await cli(['check', synthetic('damaged.json')]);
    const codes = (check.json.findings as Obj[]).map((f) => f.code);
    expect(codes.filter((c) => c === 'unknown_record').length).toBeGreaterThanOrEqual(3);
    const v = await viewAt(synthetic('damaged.json'), undefined);
    expect(v.messages.at(-1)?.content).toBe('the last word');
    expect(v.messages).toHaveLength((s.damaged.messages as unknown[]).length + 1);
  });

  it('a compaction over an earlier one is a finding (one view cannot show both); a changed input with no compaction of its kind is derived', async () => {
    const log = (await cli(['log', synthetic('overlap.json')])).json.reductions as Obj[];
    const modelEvents = (s.overlap.events as Obj[]).filter((e) => e.event === 'model');
    expect(log.map((r) => [r.kind, r.provenance, r.origin])).toEqual([
      ['summarized', 'recorded', { event: (s.overlap.events as Obj[])[2]?.uuid }],
      ['tool_output_truncated', 'derived', { event: modelEvents[3]?.uuid }],
    ]);
    expect(log[1]?.kept_bytes).toBe(64);
    expect(log[1]?.stub).toBe(CUT_MARK);
    const check = await cli(['check', synthetic('overlap.json')]);
    expect((check.json.findings as Obj[]).map((f) => f.message).join('\n')).toMatch(/messages\[2\] is given reduced a second, different way \(turns_cleared\)/);
  });

  it('--session with an id the log does not hold is a usage error naming its sessions', async () => {
    const r = await cli(['check', '--session', 'nope_epoch_1', synthetic('compact.eval')]);
    expect(r.code).not.toBe(0);
    expect(`${JSON.stringify(r.json)}${r.stderr}`).toContain('compact_epoch_1');
  });
});

describe('a small archive read whole and a large one read by ranges give the same answers', () => {
  /** Everything a listing and a read of every entry say, under `caps`. */
  const readAll = async (path: string, caps: ZipCaps): Promise<unknown> => {
    const file = openReadOnly(path);
    if (isLoadError(file)) throw new Error(file.message);
    try {
      const z = await listZip(file.fd, file.size, undefined, caps);
      if ('error' in z) return { error: z.error };
      const entries: unknown[] = [];
      for (const e of z.entries) {
        const got = await readZipEntry(z, e, caps);
        entries.push([e.name, 'error' in got ? got.error : createHash('sha256').update(got.bytes).digest('hex')]);
      }
      return { findings: z.findings.map((f) => f.message), entries };
    } finally {
      safeClose(file.fd);
    }
  };

  it('a damaged deflate stream that both runs past its stated size and ends early gets the same answer both ways', async () => {
    // Found by the property below (seed 659296479): the whole read inflated at once said "unexpected
    // end of file" where the ranged read, inflating on the thread pool, said "too many bytes".
    const bytes = zipOf([{ name: 'aa___a_/a.json', data: Buffer.from([0, 0, 0, 144, 0]), method: 8 }]);
    bytes[77670718 % bytes.length] = 48;
    const path = tmp.path('early-end-and-past.eval');
    writeFileSync(path, bytes);
    const whole = await readAll(path, DEFAULT_ZIP_CAPS);
    expect(whole).toEqual(await readAll(path, { ...DEFAULT_ZIP_CAPS, smallArchiveBytes: 0 }));
    expect(JSON.stringify(whole)).toMatch(/is damaged/);
  });

  it('any archive of stored, deflated and zstd entries, whole or damaged (bytes changed, cut short, sizes lied about)', async () => {
    const entry = fc.record({
      name: fc.stringMatching(/^[a-z_]{1,8}(\/[a-z]{1,6})?\.json$/),
      // Up to some 40 KB in all: past the 16 KiB a ranged read reads ahead.
      data: fc.oneof(fc.uint8Array({ maxLength: 3000 }), fc.uint8Array({ minLength: 5000, maxLength: 8000 })).map((a) => Buffer.from(a)),
      method: fc.constantFrom(0, 8, 8, 93),
      lie: fc.option(fc.integer({ min: 0, max: 5000 }), { nil: undefined, freq: 4 }),
    });
    const damage = fc.option(fc.record({ at: fc.nat(), byte: fc.integer({ min: 0, max: 255 }), cut: fc.boolean() }), { nil: undefined, freq: 2 });
    let n = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(entry, { minLength: 1, maxLength: 5 }), damage, async (specs, harm) => {
        let bytes = zipOf(specs.map((e) => ({ name: e.name, data: e.data, method: e.method, ...(e.lie !== undefined ? { declaredSize: e.lie } : {}) })));
        if (harm) {
          const at = harm.at % bytes.length;
          bytes = harm.cut ? bytes.subarray(0, at) : Buffer.from(bytes);
          if (!harm.cut) bytes[at] = harm.byte;
        }
        const path = tmp.path(`same-answers-${n++}.eval`);
        writeFileSync(path, bytes);
        const byRanges = await readAll(path, { ...DEFAULT_ZIP_CAPS, smallArchiveBytes: 0 });
        const whole = await readAll(path, DEFAULT_ZIP_CAPS);
        expect(whole).toEqual(byRanges);
        // An archive written whole, its sizes true, reads back every entry's bytes (the answers are not merely alike).
        if (!harm && specs.every((e) => e.lie === undefined)) expect(whole).toEqual({ findings: [], entries: specs.map((e) => [e.name, createHash('sha256').update(e.data).digest('hex')]) });
      }),
      { numRuns: 200 },
    );
  });
});

describe('bad archives are findings, never a throw, a hang or a write', () => {
  const findingsOf = async (path: string): Promise<string[]> => {
    const r = await loadSession([path]);
    if (!r.ok) throw new Error(r.error.message);
    try {
      return r.session.check().findings.map((f) => f.message);
    } finally {
      r.session.close();
    }
  };

  it.each([
    ['truncated.eval', /cannot be opened.*(truncated|End of central directory)/],
    ['bad-crc.eval', /fails its CRC-32 check/],
    ['lying-size.eval', /too many bytes/],
    ['zstd-bomb.eval', /is not read: its zstd data declares 16777216 bytes of content/],
    ['zstd-damaged.eval', /is damaged/],
    ['bzip2.eval', /compression method 12 \(bzip2\)/],
  ])('%s', async (name, expected) => {
    expect((await findingsOf(synthetic(name))).join('\n')).toMatch(expected);
  });

  it('zstd entries (what Inspect AI writes since 2025) read like deflated ones', async () => {
    expect(await findingsOf(synthetic('zstd.eval'))).toEqual([]);
    const a = await viewAt(synthetic('zstd.eval'), undefined);
    const b = await viewAt(synthetic('compact.eval'), undefined, 'trim_epoch_1');
    expect(a.messages).toEqual(b.messages);
  });

  it('a zstd frame made by the zstd tool (compressed blocks, a checksum) decodes to its bytes, CRC checked', async () => {
    // `zstd -19` of 40 copies of one tool message (3,280 bytes), made once with zstd 1.5.
    const text = Buffer.from('{"role":"tool","content":"PASS a.test.ts\\nFAIL b.test.ts — expected 3, got 4\\n"}'.repeat(40), 'utf8');
    const body = Buffer.from('KLUv/WTQC7UCAKQEeyJyb2xlIjoidG9vbCIsImNvbnRlbnQiOiJQQVNTIGEudGVzdC50c1xuRkFJTCBiIOKAlCBleHBlY3RlZCAzLCBnb3QgNFxuIn0CAO6xCn7AvHMPybOdDQ==', 'base64');
    expect(createHash('sha256').update(text).digest('hex')).toBe('d6430b1eb46601d0af59237bfdc18bf28670946a48440e5020273b6f25e66965');
    const read = await readFirstEntry('real-zstd.eval', zipOf([{ name: 'x.json', data: text, method: 93, body }]));
    expect('bytes' in read && read.bytes.equals(text)).toBe(true);
  });

  it('path-traversal, absolute and backslash names are ignored with a finding; the rest of the log opens', async () => {
    const messages = await findingsOf(synthetic('traversal.eval'));
    expect(messages.filter((m) => /is ignored/.test(m))).toHaveLength(3);
    const check = await cli(['check', synthetic('traversal.eval')]);
    expect(((check.json.summary as Obj).sessions as Obj[]).map((x) => x.id)).toEqual(['trim_epoch_1']);
  });

  it('stored entries read like deflated ones', async () => {
    const a = await viewAt(synthetic('stored.eval'), undefined);
    const b = await viewAt(synthetic('compact.eval'), undefined, 'trim_epoch_1');
    expect(a.messages).toEqual(b.messages);
  });

  it('a .eval that is not a zip is unrecognized_file', async () => {
    const r = await loadSession([synthetic('not-a-zip.eval')]);
    expect(r.ok ? 'ok' : r.error.code).toBe('unrecognized_file');
  });

  it('a zip bomb entry (small, declaring a huge size) and a huge entry are refused before any of their data is read', async () => {
    const { trim1 } = syntheticSamples();
    // Highly compressible, declaring what it would inflate to: 100 MiB from a few hundred bytes, over 200×.
    const bomb = zipOf([{ name: 'header.json', data: Buffer.from('{}') }, { name: 'samples/a_epoch_1.json', data: Buffer.alloc(64 * 1024, 0x20), declaredSize: 100 * 1024 * 1024 }]);
    const path = tmp.path('bomb.eval');
    writeFileSync(path, bomb);
    const counter: ZipCounter = { bytesRead: 0, entriesOpened: [] };
    const file = openReadOnly(path);
    if (isLoadError(file)) throw new Error(file.message);
    const loaded = await loadEvalLog(file.fd, file.size, undefined, DEFAULT_ZIP_CAPS, counter);
    safeClose(file.fd);
    expect(loaded.findings.map((f) => f.message).join('\n')).toMatch(/likely zip bomb/);
    expect(counter.entriesOpened).toEqual(['header.json']);
    // A huge entry, under a small cap (the default is 512 MiB): refused by its declared size.
    const huge = tmp.path('huge.eval');
    writeFileSync(huge, evalOf([trim1]));
    const capped = await (async () => {
      const f = openReadOnly(huge);
      if (isLoadError(f)) throw new Error(f.message);
      try {
        return await loadEvalLog(f.fd, f.size, undefined, { ...DEFAULT_ZIP_CAPS, maxEntryBytes: 1000 });
      } finally {
        safeClose(f.fd);
      }
    })();
    expect(capped.findings.map((f) => f.message).join('\n')).toMatch(/over the cap of 1000/);
    expect(capped.built).toBeUndefined();
  });

  it('a 200 MB .eval opens reading only its directory, header, summaries and the chosen sample', async () => {
    const { trim1, trim2 } = syntheticSamples();
    const path = tmp.path('big.eval');
    const big = 200 * 1024 * 1024;
    writeEvalWithHole(path, [trim1, trim2], 'samples/zz_epoch_1.json', big);
    expect(statSync(path).size).toBeGreaterThan(big);
    const counter: ZipCounter = { bytesRead: 0, entriesOpened: [] };
    inspectReadOptions.counter = counter;
    try {
      const r = await loadSession([path]);
      if (!r.ok) throw new Error(r.error.message);
      expect(r.session.sessions?.map((x) => x.id)).toEqual(['trim_epoch_1', 'trim_epoch_2', 'zz_epoch_1']);
      r.session.close();
    } finally {
      delete inspectReadOptions.counter;
    }
    expect(counter.entriesOpened).toEqual(['header.json', 'summaries.json', 'samples/trim_epoch_1.json']);
    // yauzl reads the last 64 KiB looking for the end record; the rest is a few kilobytes of entries.
    expect(counter.bytesRead).toBeLessThan(256 * 1024);
  });

  it('load, check, log, expand and search leave every log byte for byte as it was', async () => {
    const paths = [synthetic('compact.eval'), synthetic('compact.json'), DEDUP, synthetic('truncated.eval')];
    const before = paths.map((p) => createHash('sha256').update(readFileSync(p)).digest('hex'));
    for (const p of paths) {
      await runCli(['check', p]);
      await runCli(['log', p]);
      await runCli(['search', '--query', 'module', p]);
    }
    await runCli(['expand', '--id', 'inspect-e7-r2-6', '--session', 'compact_epoch_1', synthetic('compact.eval')]);
    expect(paths.map((p) => createHash('sha256').update(readFileSync(p)).digest('hex'))).toEqual(before);
  });
});

/** Loads a `.eval` written to the test's folder through `loadEvalLog`, counting what it reads and sampling memory while it runs. */
async function loadCounted(name: string, bytes: Buffer, caps: ZipCaps = DEFAULT_ZIP_CAPS): Promise<{ loaded: Awaited<ReturnType<typeof loadEvalLog>>; counter: ZipCounter; grew: number; ms: number }> {
  const path = tmp.path(name);
  writeFileSync(path, bytes);
  const counter: ZipCounter = { bytesRead: 0, entriesOpened: [] };
  const file = openReadOnly(path);
  if (isLoadError(file)) throw new Error(file.message);
  const before = process.memoryUsage();
  let peak = 0;
  const sample = (): void => {
    const m = process.memoryUsage();
    peak = Math.max(peak, m.arrayBuffers - before.arrayBuffers, m.heapUsed - before.heapUsed);
  };
  const timer = setInterval(sample, 5);
  const t0 = performance.now();
  try {
    const loaded = await loadEvalLog(file.fd, file.size, undefined, caps, counter);
    sample();
    return { loaded, counter, grew: peak, ms: performance.now() - t0 };
  } finally {
    clearInterval(timer);
    safeClose(file.fd);
  }
}

describe('zstd frames are checked before a decoder sizes anything from them', () => {
  const { trim1 } = syntheticSamples();
  const small = Buffer.from(JSON.stringify(trim1), 'utf8');
  const header = Buffer.from(JSON.stringify({ version: 2, eval: { task: 't', model: 'm' } }), 'utf8');

  it('a frame declaring a 1.875 GiB window over a few bytes is refused, naming the entry, before any of it is decoded', async () => {
    expect(windowSize(0xa7)).toBe(1.875 * 1024 ** 3);
    const bomb = zipOf([{ name: 'header.json', data: header }, { name: 'samples/a_epoch_1.json', data: small, method: 93, body: zstdWindowFrame(small, 0xa7) }]);
    expect(bomb.length).toBeLessThan(small.length + 400);
    const { loaded, grew } = await loadCounted('window-bomb.eval', bomb);
    expect(loaded.findings.map((f) => [f.code, f.message])).toEqual([['malformed_line', expect.stringMatching(/^archive entry samples\/a_epoch_1\.json is not read: its zstd data declares a window of 2013265920 bytes/) as unknown]]);
    expect(loaded.built).toBeUndefined();
    // The log still opens: its header and its sample list.
    expect(loaded.model).toBe('m');
    expect(loaded.sessions.map((x) => x.id)).toEqual(['a_epoch_1']);
    expect(grew).toBeLessThan(64 * 1024 * 1024);
  });

  it('a frame declaring more content than the entry states is refused; one that states none reads with the window streaming writers declare', async () => {
    const lying = zipOf([{ name: 'header.json', data: header }, { name: 'samples/a_epoch_1.json', data: small, method: 93, body: zstdFrame(small, { byte: 0x20, count: 1, declared: 2 ** 31 - 1 }) }]);
    expect((await loadCounted('fcs-bomb.eval', lying)).loaded.findings.map((f) => f.message).join('\n')).toMatch(/declares 2147483647 bytes of content .* more than the \d+ the archive states/);
    // 0x58: 2 MiB, what zstd's default level writes when it does not know the size (Python's zipfile streams).
    const streamed = zipOf([{ name: 'header.json', data: header }, { name: 'samples/a_epoch_1.json', data: small, method: 93, body: zstdWindowFrame(small, 0x58) }]);
    const read = await loadCounted('streamed.eval', streamed);
    expect(read.loaded.findings).toEqual([]);
    expect(read.loaded.built?.view.length).toBe((trim1.messages as unknown[]).length);
  });

  it('every frame of an entry is checked and decoded in turn; skippable frames are stepped over; bytes after the frames are damage', async () => {
    const a = small.subarray(0, 100);
    const b = small.subarray(100);
    const skippable = Buffer.from([0x50, 0x2a, 0x4d, 0x18, 3, 0, 0, 0, 1, 2, 3]);
    const body = Buffer.concat([zstdFrame(a), skippable, zstdFrame(b)]);
    const got = await readFirstEntry('two-frames.eval', zipOf([{ name: 'x.json', data: small, method: 93, body }]));
    expect('bytes' in got && got.bytes.equals(small)).toBe(true);
    expect(zstdFrames(body, small.length)).toMatchObject({ frames: [{ start: 0, contentSize: 100 }, { contentSize: small.length - 100 }] });
    // The second frame's window declares 1.875 GiB: refused though the first is fine.
    expect(zstdFrames(Buffer.concat([zstdFrame(a), zstdWindowFrame(b, 0xa7)]), small.length)).toMatchObject({ hostile: true, error: expect.stringMatching(/window of 2013265920 bytes in the frame at byte \d+/) as unknown });
    expect(zstdFrames(Buffer.concat([zstdFrame(small), Buffer.from('junk')]), small.length)).toMatchObject({ error: expect.stringMatching(/holds no zstd frame at byte/) as unknown });
    expect(zstdFrames(Buffer.concat([zstdFrame(small), Buffer.from('junk')]), small.length)).not.toHaveProperty('hostile');
    // RLE blocks that make more than the entry states are told from their headers.
    expect(zstdFrames(zstdFrame(Buffer.alloc(0), { byte: 0x20, count: 1024 * 1024, declared: 10 }), 10)).toMatchObject({ hostile: true });
  });

  it('the window a header declares is the RFC 8878 one; a window over max(the stated size, 128 MiB) is refused, any other passes', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 64 * 1024 * 1024 }), (descriptor, stated) => {
        const exponent = descriptor >> 3;
        const expected = 2 ** (10 + exponent) * (1 + (descriptor & 7) / 8);
        expect(windowSize(descriptor)).toBe(expected);
        const data = Buffer.alloc(Math.min(stated, 16), 0x41);
        const got = zstdFrames(zstdWindowFrame(data, descriptor), data.length);
        if (expected > Math.max(data.length, ZSTD_WINDOW_FLOOR)) expect(got).toMatchObject({ hostile: true });
        else expect(got).toMatchObject({ frames: [{ window: expected }] });
      }),
    );
  });
});

describe('entries that share bytes, too many entries, too many bytes', () => {
  const { trim1, trim2 } = syntheticSamples();
  const header = Buffer.from(JSON.stringify({ version: 2, eval: { task: 't', model: 'm' } }), 'utf8');

  it('65,535 entries listing the same compressed bytes: one is read, the others are findings, in seconds and without inflating them again', async () => {
    // 1 MiB of summaries, from a few KiB of deflate, listed 65,534 times: 64 GiB if each were inflated.
    const summary = Buffer.from(JSON.stringify([{ id: 'x', epoch: 1, input: 'a'.repeat(1024 * 1024) }]), 'utf8');
    const zip = overlappingZip([{ name: 'header.json', data: header }, { name: '_journal/summaries/1.json', data: summary }], 65_534, (k) => `_journal/summaries/${k}.json`);
    const { loaded, counter, grew, ms } = await loadCounted('overlapping-65535.eval', zip);
    expect(counter.entriesOpened).toEqual(['header.json', '_journal/summaries/1.json']);
    const messages = loaded.findings.map((f) => f.message);
    expect(messages[0]).toMatch(/^archive entry _journal\/summaries\/2\.json is ignored: its local header \(byte \d+\) lies inside the bytes of entry _journal\/summaries\/1\.json/);
    expect(messages.filter((m) => /^65513 more archive entries are ignored/.test(m))).toHaveLength(1);
    expect(messages.filter((m) => /is ignored: its local header/.test(m))).toHaveLength(20);
    expect(loaded.findings.filter((f) => /ignored/.test(f.message)).every((f) => f.code === 'malformed_line' && f.severity === 'error')).toBe(true);
    expect(grew).toBeLessThan(256 * 1024 * 1024);
    expect(ms).toBeLessThan(20_000);
  }, 60_000);

  it('two entries at one offset: the one the directory lists first is read, the other is ignored with a finding; the rest of the log opens', async () => {
    const sampleA = Buffer.from(JSON.stringify(trim1), 'utf8');
    // samples/zz… is listed second, at the offset of trim_epoch_1's local header.
    const zip = overlappingZip([{ name: 'header.json', data: header }, { name: 'samples/trim_epoch_1.json', data: sampleA }], 2, (k) => (k === 1 ? 'samples/trim_epoch_1.json' : 'samples/zz_epoch_1.json'));
    const { loaded } = await loadCounted('overlapping-samples.eval', zip);
    expect(loaded.sessions.map((x) => x.id)).toEqual(['trim_epoch_1']);
    expect(loaded.built?.view.length).toBe((trim1.messages as unknown[]).length);
    expect(loaded.findings.map((f) => f.message)).toEqual([expect.stringMatching(/^archive entry samples\/zz_epoch_1\.json is ignored: its local header/) as unknown]);
  });

  it('an entry whose data runs into the next entry`s local header is not read; the entries read inflate to at most maxTotalBytes together', async () => {
    const { bytes } = { bytes: evalOf([trim1, trim2]) };
    // Make the first sample's compressed size in the directory reach past the next local header (by its own bytes: the listing cannot tell from 30 + name + size alone).
    const zipped = Buffer.from(bytes);
    const cdStart = zipped.readUInt32LE(zipped.length - 6);
    let at = cdStart;
    for (;;) {
      const nameLength = zipped.readUInt16LE(at + 28);
      const name = zipped.subarray(at + 46, at + 46 + nameLength).toString('utf8');
      if (name === 'samples/trim_epoch_1.json') break;
      at += 46 + nameLength + zipped.readUInt16LE(at + 30) + zipped.readUInt16LE(at + 32);
    }
    const local = zipped.readUInt32LE(at + 42);
    // An extra field in the local header only (yauzl's listing never reads it) moves the data 8 bytes on.
    const withExtra = Buffer.concat([zipped.subarray(0, local + 28), Buffer.from([8, 0]), zipped.subarray(local + 30, local + 30 + zipped.readUInt16LE(local + 26)), Buffer.alloc(8), zipped.subarray(local + 30 + zipped.readUInt16LE(local + 26))]);
    // Every later offset moves by 8 bytes: the directory's and the end record's.
    const shifted = Buffer.from(withExtra);
    const cd = cdStart + 8;
    shifted.writeUInt32LE(cd, shifted.length - 6);
    for (let p = cd; p < shifted.length - 22; ) {
      const offset = shifted.readUInt32LE(p + 42);
      if (offset > local) shifted.writeUInt32LE(offset + 8, p + 42);
      p += 46 + shifted.readUInt16LE(p + 28) + shifted.readUInt16LE(p + 30) + shifted.readUInt16LE(p + 32);
    }
    // …and the directory says the next entry starts 8 bytes earlier than it now does: inside the first one's data.
    for (let p = cd; p < shifted.length - 22; ) {
      if (shifted.readUInt32LE(p + 42) > local) {
        shifted.writeUInt32LE(shifted.readUInt32LE(p + 42) - 8, p + 42);
        break;
      }
      p += 46 + shifted.readUInt16LE(p + 28) + shifted.readUInt16LE(p + 30) + shifted.readUInt16LE(p + 32);
    }
    const { loaded } = await loadCounted('runs-into-next.eval', shifted);
    expect(loaded.findings.map((f) => f.message).join('\n')).toMatch(/archive entry samples\/trim_epoch_1\.json is not read: its data \(bytes \d+–\d+\) runs into the next entry's local header at byte \d+/);
    // A total cap smaller than the header, summaries and sample together: the sample is refused, named.
    const whole = evalOf([trim1, trim2]);
    const capped = await loadCounted('total-cap.eval', whole, { ...DEFAULT_ZIP_CAPS, maxTotalBytes: 4000 });
    expect(capped.loaded.findings.map((f) => f.message).join('\n')).toMatch(/archive entry samples\/trim_epoch_1\.json is not read: with its \d+ bytes, the entries read from this archive would inflate to \d+, over the cap of 4000 for one archive/);
    expect(capped.loaded.model).toBe('openai/gpt-synthetic');
  });

  it('an archive listing more entries than maxEntries: the first are read, the rest are one finding', async () => {
    const zip = evalOf([trim1, trim2]);
    const { loaded } = await loadCounted('many.eval', zip, { ...DEFAULT_ZIP_CAPS, maxEntries: 2 });
    expect(loaded.findings.map((f) => f.message)[0]).toMatch(/^the archive lists 6 entries, over the cap of 2; the 4 after entry 2 are not read/);
    expect(loaded.sessions.map((x) => x.id)).toEqual(['trim_epoch_1']);
  });
});

describe('detection', () => {
  const all = (dir: string): string[] => readdirSync(dir, { withFileTypes: true }).flatMap((d) => (d.isDirectory() ? all(join(dir, d.name)) : d.name === 'README.md' ? [] : [join(dir, d.name)]));
  const context: DetectContext = { read: readSync, maxRecordBytes: 64 * 1024 * 1024, cacheBytes: 1024 * 1024 };

  it('Inspect claims its logs and no other fixture; no other format claims an Inspect log', () => {
    for (const path of all(join(ROOT, 'e2e/fixtures'))) {
      const rel = relative(ROOT, path);
      const file = openReadOnly(path);
      if (isLoadError(file)) continue;
      try {
        const ours = (/\/inspect\//.test(rel) || /\/bad\/inspect-/.test(rel)) && !rel.endsWith('not-a-zip.eval');
        for (const adapter of FORMAT_ADAPTERS) {
          const d = adapter.detect(file, context);
          if (d.ok) d.source.indexed();
          const claims = d.ok || d.error.code !== 'unrecognized_file';
          if (adapter === inspectFormat) expect(claims, rel).toBe(ours);
          else if (ours) expect(claims, `${adapter.name} claims ${rel}`).toBe(false);
        }
      } finally {
        safeClose(file.fd);
      }
    }
  });
});

describe('an entry inflated on the thread pool', () => {
  it('in one trip answers as node:zlib inflating it 16 KiB at a time does: the same bytes, or the same error (damaged, cut short, its size lied about)', async () => {
    const { deflateRawSync, inflateRaw: zlibInflateRaw } = await import('node:zlib');
    const WORDS = ['sample', 'tool', 'café', 'output', '{"role":"user"}', '\n', '42', 'naïve', 'données', 'assistant'];
    const text = (size: number, seed: number): Buffer => {
      const parts: string[] = [];
      let n = 0;
      let x = seed >>> 0;
      while (n < size) {
        x = (Math.imul(x, 1103515245) + 12345) >>> 0;
        const w = WORDS[x % WORDS.length]!;
        parts.push(w, ' ');
        n += Buffer.byteLength(w) + 1;
      }
      return Buffer.from(parts.join(''), 'utf8');
    };
    const settle = async (inflate: () => Promise<Buffer> | Buffer): Promise<{ sha256: string } | { code: unknown; message: string }> => {
      try {
        return { sha256: createHash('sha256').update(await inflate()).digest('hex') };
      } catch (e) {
        return { code: (e as { code?: unknown }).code, message: (e as Error).message };
      }
    };
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1024 * 1024 + 1, max: 3 * 1024 * 1024 }),
        fc.integer(),
        fc.option(fc.record({ at: fc.nat(), byte: fc.integer({ min: 0, max: 255 }), cut: fc.boolean() }), { nil: undefined, freq: 2 }),
        fc.option(fc.integer({ min: -4096, max: 4096 }), { nil: undefined, freq: 2 }),
        async (size, seed, harm, lie) => {
          const data = text(size, seed);
          let raw = deflateRawSync(data);
          if (harm) {
            const at = harm.at % raw.length;
            raw = harm.cut ? raw.subarray(0, at) : Buffer.from(raw);
            if (!harm.cut) raw[at] = harm.byte;
          }
          // Stated over 1 MiB: the entries inflated on the pool.
          const stated = Math.max(1024 * 1024 + 1, data.length + (lie ?? 0));
          const ours = await settle(() => inflateRaw(raw, stated));
          const theirs = await settle(() => new Promise<Buffer>((resolve, reject) => zlibInflateRaw(raw, { maxOutputLength: stated }, (err, out) => (err ? reject(err) : resolve(out)))));
          expect(ours).toEqual(theirs);
          if (!harm && lie === undefined) expect(ours).toEqual({ sha256: createHash('sha256').update(data).digest('hex') });
        },
      ),
      { numRuns: 20 },
    );
  });
});

describe('zip checksum', () => {
  it("crc32, node:zlib's or slicing by 8, equals the CRC-32 node:zlib writes into a gzip trailer, whole and resumed at any split", async () => {
    const { gzipSync } = await import('node:zlib');
    const { randomBytes } = await import('node:crypto');
    const { crc32: chosen, slicedCrc32 } = await import('./zip');
    for (const n of [0, 1, 7, 8, 9, 15, 16, 17, 4099]) {
      const b = randomBytes(n);
      const g = gzipSync(b);
      const want = g.readUInt32LE(g.length - 8);
      for (const [name, crc32] of [['crc32', chosen], ['slicedCrc32', slicedCrc32]] as const) {
        expect(crc32(b), `${name}, ${n} bytes`).toBe(want);
        for (const cut of [0, 1, Math.floor(n / 3), n]) if (cut <= n) expect(crc32(b.subarray(cut), crc32(b.subarray(0, cut))), `${name}, ${n} bytes cut at ${cut}`).toBe(want);
      }
    }
  });
});
