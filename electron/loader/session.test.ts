import { chmodSync, readFileSync, readSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { ChatMessage, Reduction, ReductionPolicy } from '../../shared/index';
import { applyCap, capNotice, mintReductions, utf8Length } from '../../shared/index';
import { assistant, makeReduction, tool, user } from '../../shared/testing/builders';
import { makeHeader, makeSnapshot, messageRecord, reductionRecord, tempDir, writeSidecar, writeSnapshot, sessionOpener, SPEC9_EXPAND_R1_31_41 } from '../../tools/testing/files';
import type { ReadSync } from './common/lines';
import type { LoadedSession, LoadProgress, LoadResult } from './session';
import { loadSession, nodeSha256, siblingSidecarPath } from './session';

const DEMO = join(import.meta.dirname, '../../samples/demo.sidecar.jsonl');
const demoText = readFileSync(DEMO, 'utf8');
const demoRecords = demoText.trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
const demoView = demoRecords.filter((r) => r.t === 'message').map((r) => r.msg as ChatMessage);
const demoLog = demoRecords.filter((r) => r.t === 'reduction').map((r) => r.r as Reduction);

const policy: ReductionPolicy = { protect_last_n_tool_results: 0, max_tool_result_bytes: 16, kept_prefix_bytes: 10, dedupe: false, clear_turns_before: null };

const tmp = tempDir();
afterAll(() => tmp.cleanup());

const { load, closeAll } = sessionOpener();
afterEach(closeAll);

async function loadError(paths: string[]): Promise<Extract<LoadResult, { ok: false }>['error']> {
  const result = await loadSession(paths);
  if (result.ok) {
    result.session.close();
    throw new Error('expected an error');
  }
  return result.error;
}

const codes = (s: LoadedSession) => s.loadFindings.map((f) => [f.code, f.line]);

describe('loadSession: a sidecar', () => {
  it('indexes the demo sidecar and resolves it', async () => {
    const s = await load([DEMO]);
    expect(s.files).toEqual([{ path: DEMO, format: 'supercode-sidecar', bytes: Buffer.byteLength(demoText) }]);
    expect(s.header).toMatchObject({ session_id: 's-demo', model: 'model-a', gate: true });
    expect(s.sessionId).toBe('s-demo');
    expect(s.model).toBe('model-a');
    expect(s.stopped).toBe(false);
    expect(s.minted.length).toBe(4);
    expect(s.minted.at(2)).toEqual(demoView[2]);
    expect(s.minted.at(4)).toBeUndefined();
    expect(s.minted.at(-1)).toBeUndefined();
    expect(s.recorded?.at(2)).toEqual(demoView[2]);
    expect(s.system()).toEqual({ role: 'system', content: 'You are supercode.' });
    expect(s.log).toEqual(demoLog);
    expect(s.logLines).toEqual([7]);
    expect(s.loadFindings).toEqual([]);
  });

  it('expands and searches the SPEC §9 example', async () => {
    const s = await load([DEMO]);
    expect(s.expand('r1', [31, 41])).toEqual({
      ok: true,
      value: SPEC9_EXPAND_R1_31_41,
    });
    const pass = s.search('PASS');
    expect(pass.ok && pass.value.matches.map((m) => m.offset)).toEqual([52]);
    const fail = s.search('FAIL');
    expect(fail.ok && fail.value).toMatchObject({ total_matches: 1, hidden_bytes_searched: 52, matches: [{ offset: 15, length: 4 }] });
  });

  it('checks the demo clean, with a summary', async () => {
    const s = await load([DEMO]);
    expect(s.check()).toEqual({
      findings: [],
      summary: {
        files: [{ path: DEMO, format: 'supercode-sidecar', bytes: Buffer.byteLength(demoText) }],
        session_id: 's-demo',
        model: 'model-a',
        gate: true,
        messages: 4,
        reductions: 1,
        reductions_by_kind: { tool_output_truncated: 1, tool_output_elided: 0, duplicate_output: 0, turns_cleared: 0, summarized: 0 },
        errors: 0,
        warnings: 0,
        format: 'supercode',
        sessions: [{ id: 's-demo', messages: 4 }],
        // SPEC §15: a native file records no usage.
        tokens: { calls_recorded: 0, max_context: null, window: null, compactions: [] },
        cache_breaks: [],
      },
    });
  });

  it('reads CRLF line ends and blank lines', async () => {
    const path = tmp.path('crlf.sidecar.jsonl');
    writeFileSync(path, demoText.trimEnd().split('\n').join('\r\n\r\n') + '\r\n');
    const s = await load([path]);
    expect(s.loadFindings).toEqual([]);
    expect(s.logLines).toEqual([13]);
    expect(s.expand('r1', [31, 41])).toMatchObject({ ok: true, value: { content: '— expecte' } });
  });

  it('reports a malformed middle line with its number and reads the records after it', async () => {
    const lines = demoText.trimEnd().split('\n');
    lines.splice(3, 0, '{"t":"message","i":1,"msg":{"role":"assistant"', 'not json at all');
    const path = writeSidecar(tmp.path('malformed.sidecar.jsonl'), lines);
    const s = await load([path]);
    expect(codes(s)).toEqual([
      ['malformed_line', 4],
      ['malformed_line', 5],
    ]);
    expect(s.loadFindings[0]?.message).toContain('line 4');
    expect(s.minted.length).toBe(4);
    expect(s.logLines).toEqual([9]);
    expect(s.expand('r1')).toMatchObject({ ok: true, value: { total_bytes: 67 } });
  });

  it('makes an unreadable message record a hole, so later addresses hold', async () => {
    const lines = demoText.trimEnd().split('\n');
    lines[3] = '{"t":"message","i":1,"msg":{"role":"nobody","content":"x"}}';
    const s = await load([writeSidecar(tmp.path('hole.sidecar.jsonl'), lines)]);
    expect(s.loadFindings).toMatchObject([{ code: 'malformed_line', line: 4, index: 1 }]);
    expect(s.minted.length).toBe(4);
    expect(s.minted.at(1)).toBeUndefined();
    expect(s.expand('r1', [31, 41])).toMatchObject({ ok: true, value: { content: '— expecte' } });
  });

  it('reports a torn last line as truncated_last_line', async () => {
    const path = writeSidecar(tmp.path('torn.sidecar.jsonl'), [...demoText.trimEnd().split('\n'), '{"t":"message","i":4,"msg":{"ro'], { trailingNewline: false });
    const s = await load([path]);
    expect(s.loadFindings).toMatchObject([{ code: 'truncated_last_line', severity: 'warning', line: 8 }]);
    expect(s.minted.length).toBe(4);
  });

  it('accepts a last record without a newline when it parses', async () => {
    const s = await load([writeSidecar(tmp.path('nonl.sidecar.jsonl'), demoText.trimEnd().split('\n'), { trailingNewline: false })]);
    expect(s.loadFindings).toEqual([]);
    expect(s.log).toHaveLength(1);
  });

  it('skips an unknown record type with a warning', async () => {
    const lines = demoText.trimEnd().split('\n');
    lines.splice(2, 0, '{"t":"telemetry","x":1}');
    const s = await load([writeSidecar(tmp.path('unknown.sidecar.jsonl'), lines)]);
    expect(s.loadFindings).toMatchObject([{ code: 'unknown_record', severity: 'warning', line: 3 }]);
    expect(s.check().findings).toHaveLength(1);
  });

  it('stops at a header of a newer version: that finding and nothing else', async () => {
    const path = writeSidecar(tmp.path('v2.sidecar.jsonl'), [makeHeader({ version: 2 }), ...demoText.trimEnd().split('\n').slice(1), 'garbage']);
    const s = await load([path]);
    expect(s.stopped).toBe(true);
    expect(s.loadFindings).toMatchObject([{ code: 'unsupported_version', severity: 'error', line: 1 }]);
    expect(s.minted.length).toBe(0);
    expect(s.log).toEqual([]);
    expect(s.header).toBeNull();
    expect(s.check().findings).toEqual(s.loadFindings);
    expect(s.check().summary.files).toEqual([{ path, format: 'supercode-sidecar', bytes: readFileSync(path).length }]);
  });

  it('reads a sidecar without a header, reporting that its first line should be one', async () => {
    const s = await load([writeSidecar(tmp.path('headless.sidecar.jsonl'), demoText.trimEnd().split('\n').slice(1))]);
    expect(s.loadFindings).toMatchObject([{ code: 'malformed_line', line: 1 }]);
    expect(s.loadFindings[0]?.message).toContain('header');
    expect(s.header).toBeNull();
    expect(s.minted.length).toBe(4);
    expect(s.check().summary).toMatchObject({ session_id: null, model: null, gate: null, messages: 4, errors: 1 });
  });

  it('reports an invalid header once, and still reads the records', async () => {
    const { version: _dropped, ...noVersion } = makeHeader();
    const s = await load([writeSidecar(tmp.path('badheader.sidecar.jsonl'), [noVersion, ...demoText.trimEnd().split('\n').slice(1)])]);
    expect(s.loadFindings).toMatchObject([{ code: 'malformed_line', line: 1 }]);
    expect(s.loadFindings[0]?.message).toContain('version');
    expect(s.header).toBeNull();
    expect(s.log).toHaveLength(1);
  });

  it('reports a record too long to decode with its size, and keeps its index as a hole', async () => {
    const lines = demoText.trimEnd().split('\n');
    lines.splice(6, 0, JSON.stringify(messageRecord(4, user('z'.repeat(500)))), JSON.stringify(messageRecord(5, user('after'))));
    const s = await load([writeSidecar(tmp.path('huge.sidecar.jsonl'), lines)], { maxRecordBytes: 400 });
    expect(s.loadFindings).toMatchObject([{ code: 'malformed_line', line: 7, index: 4 }]);
    expect(s.loadFindings[0]?.message).toMatch(/line 7 is 5\d\d bytes/);
    expect(s.minted.length).toBe(6);
    expect(s.minted.at(4)).toBeUndefined();
    expect(s.minted.at(5)?.content).toBe('after');
  });

  it('recounts reasoning artifacts at a model switch from the index alone', async () => {
    const thinking: ChatMessage = { role: 'assistant', content: 'hm', metadata: { reasoning: 'secret' } };
    const records = (filtered: number) => [makeHeader(), messageRecord(0, user('q')), messageRecord(1, thinking), { t: 'model_change', at: 2, from: 'model-a', to: 'model-c', reasoning_artifacts_filtered: filtered }];
    const good = await load([writeSidecar(tmp.path('switch-good.sidecar.jsonl'), records(1))]);
    expect(good.loadFindings).toEqual([]);
    expect(good.model).toBe('model-c');
    expect(good.modelChanges).toMatchObject([{ line: 4, recount: 1 }]);
    const bad = await load([writeSidecar(tmp.path('switch-bad.sidecar.jsonl'), records(0))]);
    expect(bad.loadFindings).toMatchObject([{ code: 'model_change_count_mismatch', line: 4 }]);
  });
});

describe('loadSession: caps, rewinds', () => {
  it('applies a legacy cap to the minted copy and expands the full bytes from recorded', async () => {
    const full = `build log\n${'warning: unused variable\n'.repeat(8)}error — the build failed\n`;
    const fullBytes = utf8Length(full);
    const cap = { kept_bytes: 60, notice: capNotice(fullBytes - 60) };
    const output = tool(full, 'call_1');
    const view = [user('build it'), assistant('', 'call_1'), applyCap(output, cap), assistant('It failed.')];
    const log = mintReductions(view, policy, [], { sha256: nodeSha256 });
    expect(log).toMatchObject([{ id: 'r1', kind: 'tool_output_truncated', ptr: { index: 2 } }]);
    const path = writeSidecar(tmp.path('capped.sidecar.jsonl'), [
      makeHeader({ gate: false, policy }),
      messageRecord(0, view[0] as ChatMessage),
      messageRecord(1, view[1] as ChatMessage),
      messageRecord(2, output, cap),
      messageRecord(3, view[3] as ChatMessage),
      ...log.map(reductionRecord),
    ]);
    const s = await load([path]);
    expect(s.minted.at(2)?.content).toBe(view[2]?.content);
    expect(s.minted.at(2)?.content).toContain('more bytes not kept');
    expect(s.recorded?.at(2)?.content).toBe(full);
    expect(s.expand('r1')).toEqual({
      ok: true,
      value: { reduction_id: 'r1', kind: 'tool_output_truncated', index: 2, role: 'tool', tool_call_id: 'call_1', content: full, range: [0, fullBytes], total_bytes: fullBytes, source: 'recorded' },
    });
    const hit = s.search('the build failed');
    expect(hit.ok && hit.value.matches).toMatchObject([{ reduction_id: 'r1', offset: full.indexOf('the build failed') + 2 }]);
    expect(s.check().findings).toEqual([]);
  });

  it('drops from the live log the reductions a rewind cuts off, and keeps the rest', async () => {
    const old = [user('go'), tool('first output that is long enough', 'call_0'), assistant('', 'call_1'), tool('second output, also long enough', 'call_1'), assistant('done')];
    const oldLog = mintReductions(old, policy, [], { sha256: nodeSha256 });
    expect(oldLog.map((r) => [r.id, r.ptr.index])).toEqual([
      ['r1', 1],
      ['r2', 3],
    ]);
    const rerun = tool('rerun output, long enough again', 'call_2');
    const newView = [...old.slice(0, 3), rerun];
    const newLog = [makeReduction(newView, { id: 'r3', kind: 'tool_output_truncated', index: 3, kept_bytes: 10 })];
    const path = writeSidecar(tmp.path('rewind.sidecar.jsonl'), [
      makeHeader(),
      ...old.map((m, i) => messageRecord(i, m)),
      ...oldLog.map(reductionRecord),
      { t: 'rewind', to: 3 },
      messageRecord(3, rerun),
      ...newLog.map(reductionRecord),
    ]);
    const s = await load([path]);
    expect(s.loadFindings).toEqual([]);
    expect(s.log.map((r) => r.id)).toEqual(['r1', 'r3']);
    expect(s.logLines).toEqual([7, 11]);
    expect(s.minted.length).toBe(4);
    expect(s.minted.at(3)?.content).toBe(rerun.content);
    // The old timeline's message 4 stays the recorded copy of its index.
    expect(s.recorded?.at(4)?.content).toBe('done');
    expect(s.expand('r2')).toMatchObject({ ok: false, error: { code: 'unknown_reduction' } });
    expect(s.expand('r3')).toMatchObject({ ok: true, value: { content: rerun.content, source: 'minted' } });
    expect(s.check().findings).toEqual([]);
  });
});

describe('loadSession: snapshots', () => {
  const snapshotOfDemo = (reductions?: Reduction[]) => makeSnapshot(demoView, reductions, { session_id: 's-demo' });

  it('opens a snapshot alone, with its sibling sidecar found automatically', async () => {
    const snap = writeSnapshot(tmp.path('auto.session.json'), snapshotOfDemo());
    writeFileSync(tmp.path('auto.sidecar.jsonl'), demoText);
    const s = await load([snap]);
    expect(s.files.map((f) => [f.path, f.format])).toEqual([
      [snap, 'supercode-snapshot'],
      [tmp.path('auto.sidecar.jsonl'), 'supercode-sidecar'],
    ]);
    expect(s.model).toBe('model-b');
    expect(s.recorded?.at(2)).toEqual(demoView[2]);
    // The snapshot has no reductions: the log is the sidecar's.
    expect(s.log).toEqual(demoLog);
    expect(s.logLines).toEqual([7]);
    expect(s.expand('r1', [31, 41])).toMatchObject({ ok: true, value: { content: '— expecte', range: [30, 41] } });
    expect(s.check().findings).toEqual([]);
  });

  it('opens a snapshot alone without a sibling: no recorded copies', async () => {
    const snap = writeSnapshot(tmp.path('lonely.session.json'), snapshotOfDemo(demoLog));
    const s = await load([snap]);
    expect(s.files).toHaveLength(1);
    expect(s.recorded).toBeUndefined();
    expect(s.header).toBeNull();
    expect(s.sessionId).toBe('s-demo');
    expect(s.log).toEqual(demoLog);
    expect(s.logLines).toBeUndefined();
    expect(s.expand('r1')).toMatchObject({ ok: true, value: { total_bytes: 67 } });
  });

  it('takes both files in either order', async () => {
    const snap = writeSnapshot(tmp.path('pair.session.json'), snapshotOfDemo(demoLog));
    for (const paths of [
      [snap, DEMO],
      [DEMO, snap],
    ]) {
      const s = await load(paths);
      expect(s.files.map((f) => f.path)).toEqual(paths);
      expect(s.files.map((f) => f.format)).toEqual(paths.map((p) => (p === DEMO ? 'supercode-sidecar' : 'supercode-snapshot')));
      expect(s.header?.session_id).toBe('s-demo');
      expect(s.recorded).toBeDefined();
      expect(s.loadFindings).toEqual([]);
      expect(s.logLines).toBeUndefined();
      expect(s.expand('r1', [31, 41])).toMatchObject({ ok: true, value: { content: '— expecte' } });
    }
  });

  it("reports log_differs when the snapshot's reductions and the sidecar's live log disagree", async () => {
    const snap = writeSnapshot(tmp.path('differs.session.json'), snapshotOfDemo([]));
    const s = await load([snap, DEMO]);
    expect(s.loadFindings).toMatchObject([{ code: 'log_differs', severity: 'warning' }]);
    expect(s.log).toEqual([]);
  });

  it('reports invalid snapshot messages as holes', async () => {
    const snap = writeSnapshot(tmp.path('badmsg.session.json'), makeSnapshot([user('a'), { role: 'robot' } as unknown as ChatMessage, user('c')]));
    const s = await load([snap]);
    expect(s.loadFindings).toMatchObject([{ code: 'malformed_line', index: 1 }]);
    expect(s.minted.length).toBe(3);
    expect(s.minted.at(1)).toBeUndefined();
  });

  it('stops at a snapshot of a newer version', async () => {
    const snap = writeSnapshot(tmp.path('v2.session.json'), makeSnapshot(demoView, demoLog, { version: 2 }));
    const s = await load([snap, DEMO]);
    expect(s.stopped).toBe(true);
    expect(s.loadFindings).toMatchObject([{ code: 'unsupported_version' }]);
    expect(s.minted.length).toBe(0);
  });

  it('names the sibling sidecar path', () => {
    expect(siblingSidecarPath('/a/b/run-7.session.json')).toBe('/a/b/run-7.sidecar.jsonl');
    expect(siblingSidecarPath('/a/b/run-7.json')).toBeUndefined();
    expect(siblingSidecarPath('.session.json')).toBeUndefined();
  });
});

describe('loadSession: telling files apart by content', () => {
  it('reads a sidecar named .json and a snapshot named .jsonl', async () => {
    const sidecar = tmp.path('x.json');
    writeFileSync(sidecar, demoText);
    const compact = writeSnapshot(tmp.path('y.jsonl'), makeSnapshot(demoView, demoLog), false);
    const pretty = writeSnapshot(tmp.path('z.jsonl'), makeSnapshot(demoView, demoLog), true);
    expect((await load([sidecar])).files[0]?.format).toBe('supercode-sidecar');
    expect((await load([compact])).files[0]?.format).toBe('supercode-snapshot');
    expect((await load([pretty])).files[0]?.format).toBe('supercode-snapshot');
    const both = await load([compact, sidecar]);
    expect(both.files.map((f) => f.format)).toEqual(['supercode-snapshot', 'supercode-sidecar']);
  });

  it.each([
    ['plain text', 'hello world\n'],
    ['a JSON array', '[{"t":"header"}]\n'],
    ['a JSON object of another kind', '{"format":"something-else","version":1}\n'],
    ['an object without t on its first line', '{"a":1}\n{"t":"header"}\n'],
    ['an empty file', ''],
    ['a torn first line', '{"t":"head'],
  ])('refuses %s as unrecognized_file, naming the path', async (_what, text) => {
    const path = tmp.path(`unrecognized-${_what.replace(/\W+/g, '-')}.jsonl`);
    writeFileSync(path, text);
    const error = await loadError([path]);
    expect(error.code).toBe('unrecognized_file');
    expect(error.message).toContain(path);
  });

  it('refuses a missing path and a directory as unreadable_file, with the reason', async () => {
    const missing = tmp.path('nope.sidecar.jsonl');
    const e1 = await loadError([missing]);
    expect(e1).toMatchObject({ code: 'unreadable_file' });
    expect(e1.message).toContain(missing);
    expect(e1.message).toContain('ENOENT');
    const e2 = await loadError([tmp.dir]);
    expect(e2).toMatchObject({ code: 'unreadable_file' });
    expect(e2.message).toContain(tmp.dir);
    expect(e2.message).toContain('directory');
  });

  it.skipIf(process.getuid?.() === 0)('refuses a file without read permission as unreadable_file', async () => {
    const path = tmp.path('secret.sidecar.jsonl');
    writeFileSync(path, demoText);
    chmodSync(path, 0o000);
    const error = await loadError([path]);
    expect(error.code).toBe('unreadable_file');
    expect(error.message).toContain('EACCES');
  });

  it('refuses the wrong number of files, two sidecars and two snapshots as usage', async () => {
    const snap = writeSnapshot(tmp.path('u.session.json'), makeSnapshot(demoView));
    expect((await loadError([])).code).toBe('usage');
    expect((await loadError([DEMO, DEMO, snap])).code).toBe('usage');
    expect(await loadError([DEMO, DEMO])).toMatchObject({ code: 'usage', message: expect.stringContaining('two sidecars') as unknown });
    expect(await loadError([snap, snap])).toMatchObject({ code: 'usage', message: expect.stringContaining('two session snapshots') as unknown });
  });
});

describe('loadSession: reading back and progress', () => {
  function countingReader(): { read: ReadSync; calls: { position: number; length: number }[] } {
    const calls: { position: number; length: number }[] = [];
    return {
      calls,
      read: (fd, buffer, offset, length, position) => {
        calls.push({ position, length });
        return readSync(fd, buffer, offset, length, position);
      },
    };
  }

  it('reads a message from the file once, then from the cache', async () => {
    const { read, calls } = countingReader();
    const s = await load([DEMO], { readSync: read });
    calls.length = 0;
    const first = s.minted.at(2);
    expect(first).toEqual(demoView[2]);
    expect(calls).toHaveLength(1);
    expect(calls[0]?.position).toBe(demoText.indexOf('{"t":"message","i":2'));
    expect(s.minted.at(2)).toBe(first);
    // The recorded copy of an uncapped message is the same record: the same cached object.
    expect(s.recorded?.at(2)).toBe(first);
    expect(calls).toHaveLength(1);
  });

  it('returns a message larger than the cache budget without caching it', async () => {
    const { read, calls } = countingReader();
    const s = await load([DEMO], { readSync: read, cacheBytes: 100 });
    calls.length = 0;
    const large = s.minted.at(2);
    expect(large).toEqual(demoView[2]);
    // A small one fits: the same message each time.
    const small = s.minted.at(0);
    expect(small).toEqual(demoView[0]);
    expect(s.minted.at(0)).toBe(small);
    // The large one was not kept: read again, a message of its own.
    const again = s.minted.at(2);
    expect(again).toEqual(demoView[2]);
    expect(again).not.toBe(large);
    // Asked for again at once, it is the message the reader read last (kept until the next read).
    expect(s.minted.at(2)).toBe(again);
    // The demo is smaller than what a read back takes ahead: its records came from two reads, one
    // from message 2's record on, one from message 0's (READ_AHEAD_BYTES).
    expect(calls).toHaveLength(2);
  });

  it('reports an I/O error in the middle of the pass as unreadable_file', async () => {
    let passReads = 0;
    const failing: ReadSync = (fd, buffer, offset, length, position) => {
      // The indexing pass reads 100-byte chunks; its third read fails as a vanished disk would.
      if (length === 100 && ++passReads === 3) throw Object.assign(new Error('EIO: i/o error, read'), { code: 'EIO', syscall: 'read', errno: -5 });
      return readSync(fd, buffer, offset, length, position);
    };
    const result = await loadSession([DEMO], { readSync: failing, chunkSize: 100 });
    expect(passReads).toBe(3);
    expect(result).toMatchObject({ ok: false, error: { code: 'unreadable_file' } });
    expect(!result.ok && result.error.message).toContain(DEMO);
  });

  it('reads nothing after close', async () => {
    const s = await load([DEMO]);
    s.close();
    expect(s.minted.at(0)).toBeUndefined();
    s.close();
  });

  it('reports progress, bounded, ending at the total', async () => {
    const records: object[] = [makeHeader()];
    const body = 'o'.repeat(9000);
    for (let i = 0; i < 800; i++) records.push(messageRecord(i, i % 2 ? tool(body, `call_${i}`) : assistant('', `call_${i + 1}`)));
    const path = writeSidecar(tmp.path('big.sidecar.jsonl'), records);
    const total = readFileSync(path).length;
    expect(total).toBeGreaterThan(3 * 1024 * 1024);
    const seen: LoadProgress[] = [];
    const s = await load([path], { onProgress: (p) => seen.push({ ...p }), chunkSize: 64 * 1024 });
    expect(s.minted.length).toBe(800);
    expect(seen[0]).toEqual({ bytesRead: 0, totalBytes: total });
    expect(seen.at(-1)).toEqual({ bytesRead: total, totalBytes: total });
    // 64 KiB reads, but at most one report per MiB (plus the first and the last).
    expect(seen.length).toBeLessThanOrEqual(Math.ceil(total / (1024 * 1024)) + 2);
    for (let k = 1; k < seen.length; k++) expect(seen[k]?.bytesRead).toBeGreaterThanOrEqual(seen[k - 1]?.bytesRead ?? 0);
  });
});

describe('--session names a session the file holds, in every format (SPEC §10.1)', () => {
  const CODEX = join(import.meta.dirname, '../../e2e/fixtures/real/codex/rollout-0.40.0-vscode-unmodified.jsonl');
  it.each([
    ['a native sidecar', DEMO],
    ['a Codex rollout', CODEX],
  ])('%s: its own id and the main session open; another id is a usage error naming the ones it holds', async (_what, path) => {
    const plain = await loadSession([path]);
    if (!plain.ok) throw new Error(plain.error.message);
    const own = plain.session.sessionId ?? '';
    plain.session.close();
    for (const asked of [own, '']) {
      const r = await loadSession([path], { session: asked });
      expect(r.ok, asked).toBe(true);
      if (r.ok) r.session.close();
    }
    const bogus = await loadSession([path], { session: 'no-such-session' });
    expect(bogus.ok).toBe(false);
    if (!bogus.ok) {
      expect(bogus.error.code).toBe('usage');
      expect(bogus.error.message).toContain('"no-such-session"');
      expect(bogus.error.message).toContain(own || '(main)');
    }
  });
});
