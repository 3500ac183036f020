/**
 * Large string values kept in the file (docs/large-lines.md): a transcript read with the threshold
 * lowered — so that most strings stay in the file and are read back by range — gives the answers of
 * the whole-line path for every command (check, log, view and view --at, expand, search) and the
 * app's rows and row texts, over generated transcripts and the real-records files.
 */
import { readSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { tempDir } from '../../../tools/testing/files';
import type { LoadOptions } from '../session';
import { loadSession } from '../session';
import { answers, cutValueLoad, heldPreviews, largeContents } from '../testing/largeAnswers';
import type { Rec } from './testing/build';
import { SessionBuilder, persistedStub, toolUse } from './testing/build';
import { keepContentOut } from './importer';
import { generateClaudeTranscript } from './testing/generate';

const tmp = tempDir('session-inspector-large-lines-');
afterAll(() => tmp.cleanup());

const REAL = join(import.meta.dirname, '../../../e2e/fixtures/real/claude-code');
/** The whole-line path: no string is long enough to stay in the file. */
const WHOLE: LoadOptions = { largeStringBytes: Number.MAX_SAFE_INTEGER };

/**
 * A session of one tool call whose result is `content` (`more` on the result's record) and a short
 * answer after it, written as `name` (through `rewrite`, for bytes no JSON writer makes); its path.
 */
function oneResult(name: string, content: unknown, more: Rec = {}, rewrite = (text: string): string => text): string {
  const path = tmp.path(name);
  const b = new SessionBuilder();
  b.user('show the log');
  const [call] = b.assistant('msg_1', [toolUse('toolu_1', 'cat log')]);
  b.result('toolu_1', content, call, more);
  b.assistant('msg_2', [{ type: 'text', text: 'short answer' }]);
  writeFileSync(path, rewrite(b.text()));
  return path;
}

/** Text with what a JSON writer escapes, multi-byte characters and the needles. */
const piece = fc.constantFrom('a', 'b', 'needle', 'NEEDLE', ' ', '\n', '"', '\\', '/', 'é', '😀', '\t', '<', '\u0001', 'x'.repeat(40));
const text = fc.array(piece, { maxLength: 24 }).map((a) => a.join(''));

/** A tool result's content: a string, or text blocks (with an image sometimes). */
const resultContent = fc.oneof(
  text,
  fc.array(text, { minLength: 1, maxLength: 3 }).map((ts) => ts.map((t) => ({ type: 'text', text: t }))),
  text.map((t) => [{ type: 'text', text: t }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: `iVBOR${t.length}` } }]),
);

const turn = fc.record({
  prompt: fc.oneof(text, fc.array(text, { minLength: 1, maxLength: 2 }).map((ts) => ts.map((t) => ({ type: 'text', text: t })))),
  thinking: fc.option(text, { nil: undefined }),
  said: fc.option(text, { nil: undefined }),
  calls: fc.array(fc.record({ command: text, result: resultContent, isError: fc.boolean(), persisted: fc.option(text, { nil: undefined }) }), { maxLength: 3 }),
  microcompact: fc.boolean(),
  compact: fc.option(text, { nil: undefined }),
});

/** A transcript of `turns`: prompts, split responses with parallel calls, results, persisted outputs, (micro)compactions. */
type Turn = typeof turn extends fc.Arbitrary<infer T> ? T : never;

function transcriptOf(turns: readonly Turn[]): string {
  const b = new SessionBuilder();
  let call = 0;
  turns.forEach((t, k) => {
    b.user(t.prompt);
    const blocks: Rec[] = [];
    if (t.thinking !== undefined) blocks.push({ type: 'thinking', thinking: t.thinking, signature: 'sig' });
    if (t.said !== undefined) blocks.push({ type: 'text', text: t.said });
    const ids = t.calls.map(() => `toolu_${++call}`);
    t.calls.forEach((c, i) => blocks.push(toolUse(ids[i] as string, c.command)));
    if (blocks.length === 0) blocks.push({ type: 'text', text: '' });
    const uuids = b.assistant(`msg_${k}`, blocks);
    const last = uuids[uuids.length - 1];
    t.calls.forEach((c, i) => {
      const id = ids[i] as string;
      if (c.persisted !== undefined) {
        const full = `${c.persisted}${'output line\n'.repeat(3)}`;
        b.result(id, persistedStub(`${id}.txt`, '0.1KB', full.slice(0, 5)), last, { toolUseResult: { stdout: full, stderr: '', persistedOutputSize: full.length } });
      } else {
        b.add({ type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: c.result, ...(c.isError ? { is_error: true } : {}) }] }, toolUseResult: { stdout: typeof c.result === 'string' ? c.result : '', stderr: '' } }, last);
      }
    });
    if (t.microcompact && ids.length > 0) b.add({ type: 'system', subtype: 'microcompact_boundary', content: 'Context microcompacted', microcompactMetadata: { trigger: 'auto', compactedToolIds: [ids[0]] } });
    if (t.compact !== undefined) {
      const before = b.last;
      const boundary = b.add({ type: 'system', subtype: 'compact_boundary', content: 'Conversation compacted', logicalParentUuid: before, compactMetadata: { trigger: 'auto' } }, null);
      b.user(t.compact, boundary, { isCompactSummary: true, isVisibleInTranscriptOnly: true });
    }
  });
  b.assistant('msg_end', [{ type: 'text', text: 'done ✓' }]);
  return b.text();
}

describe('large string values read from the file', () => {
  it('a transcript gives the same answers with its strings kept in the file as read whole (generated)', async () => {
    let k = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(turn, { minLength: 1, maxLength: 4 }), fc.integer({ min: 1, max: 24 }), async (turns, threshold) => {
        const path = tmp.path(`g${k++}.jsonl`);
        writeFileSync(path, transcriptOf(turns));
        const needles = ['needle', 'é😀', '"\\'];
        expect(await answers(path, { largeStringBytes: threshold }, needles)).toEqual(await answers(path, WHOLE, needles));
      }),
      { numRuns: 20 },
    );
  }, 600_000);

  it('the threshold keeps strings in the file: the low one gives large contents, the whole-line path none', async () => {
    const path = tmp.path('kept.jsonl');
    const b = new SessionBuilder();
    b.user('a prompt long enough to stay in the file');
    const [call] = b.assistant('msg_1', [toolUse('toolu_1', 'cat log')]);
    b.result('toolu_1', [{ type: 'text', text: 'first part of the output' }, { type: 'text', text: 'second part' }], call);
    writeFileSync(path, b.text());
    expect(await largeContents(path, { largeStringBytes: 8 })).toBe(2);
    expect(await largeContents(path, WHOLE)).toBe(0);
  });

  it('a content longer than the preview: rows and row texts read past it from the file', async () => {
    const path = tmp.path('long.jsonl');
    const b = new SessionBuilder();
    b.user('show the log');
    const [call] = b.assistant('msg_1', [toolUse('toolu_1', 'cat log')]);
    b.result('toolu_1', `${'log line — é 😀 "quoted"\n'.repeat(6000)}needle at the end`, call);
    writeFileSync(path, b.text());
    expect(await answers(path, { largeStringBytes: 1024 }, ['needle', 'quoted'])).toEqual(await answers(path, WHOLE, ['needle', 'quoted']));
  }, 120_000);

  it('real transcripts and a generated session of real record shapes give the same answers', async () => {
    const files = readdirSync(REAL).filter((f) => f.endsWith('.jsonl')).map((f) => join(REAL, f));
    const generated = generateClaudeTranscript(tmp.path('generated'), { bytes: 400_000, seed: 7, compactEvery: 150_000 });
    for (const path of [...files, generated.path]) {
      expect(await answers(path, { largeStringBytes: 64 }, ['error', 'the'])).toEqual(await answers(path, WHOLE, ['error', 'the']));
    }
  }, 600_000);

  it('a long value holding a raw control character or a lone surrogate escape gets the whole line\'s answer (not left in the file)', async () => {
    for (const [name, raw] of [
      ['tab', '\t'],
      ['lone surrogate', '\\ud800'],
    ] as const) {
      // The output written with one raw character JSON.stringify would have escaped (a tab), or a lone surrogate's escape.
      const path = oneResult(`raw-${name.replace(' ', '-')}.jsonl`, `${'log line\n'.repeat(20_000)}MARK the end`, {}, (text) => text.replace('MARK', raw));
      expect(await answers(path, {}, ['the end'])).toEqual(await answers(path, WHOLE, ['the end']));
    }
  });

  it('a tool call input longer than the cap is not read whole: cut to its preview and said; the rest is the whole-line path', async () => {
    const path = tmp.path('huge-input.jsonl');
    const big = `${'input — é 😀 '.repeat(200_000)}the end`;
    const b = new SessionBuilder();
    b.user('write the file');
    const [call] = b.assistant('msg_1', [toolUse('toolu_1', big)]);
    b.result('toolu_1', 'written', call);
    writeFileSync(path, b.text());
    const r = await cutValueLoad(path, big, 1024 * 1024);
    // The line pass and the scan read the line; its value is not read whole again (that is 2.3× or more).
    expect(r.valueBytesRead).toBeLessThan(r.valueBytes * 2);
    expect(r.cut.cutFindings).toEqual([{ code: 'value_too_large', severity: 'warning', line: 2, message: expect.stringContaining(`message.content[0].input.command is ${Buffer.byteLength(big)} bytes`) as string }]);
    const shown = (JSON.parse(r.cut.args[0] ?? '{}') as { command: string }).command;
    expect(Buffer.byteLength(shown)).toBeGreaterThan(60_000);
    expect(Buffer.byteLength(shown)).toBeLessThanOrEqual(64 * 1024);
    expect(big.startsWith(shown)).toBe(true);
    expect((JSON.parse(r.whole.args[0] ?? '{}') as { command: string }).command).toBe(big);
    expect(r.whole.cutFindings).toEqual([]);
    expect(r.cut.rest).toEqual(r.whole.rest);
  }, 120_000);
});

/** Every message text in memory: the importer keeps them all as it parsed them. */
const IN_MEMORY: LoadOptions = { keptStringChars: Number.MAX_SAFE_INTEGER };

describe('message texts left in the file once their line is parsed (docs/streaming-import.md)', () => {
  it('a transcript gives the same answers with its message texts read back from the file as kept in memory (generated)', async () => {
    let k = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(turn, { minLength: 1, maxLength: 4 }), fc.integer({ min: 1, max: 24 }), async (turns, chars) => {
        const path = tmp.path(`kept${k++}.jsonl`);
        writeFileSync(path, transcriptOf(turns));
        const needles = ['needle', 'é😀', '"\\'];
        expect(await answers(path, { ...WHOLE, keptStringChars: chars, cacheBytes: 64 }, needles)).toEqual(await answers(path, { ...WHOLE, ...IN_MEMORY }, needles));
      }),
      { numRuns: 20 },
    );
  }, 600_000);

  it('real transcripts and a generated session of real record shapes give the same answers', async () => {
    const files = readdirSync(REAL).filter((f) => f.endsWith('.jsonl')).map((f) => join(REAL, f));
    const generated = generateClaudeTranscript(tmp.path('generated-kept'), { bytes: 400_000, seed: 11, compactEvery: 150_000 });
    for (const path of [...files, generated.path]) {
      expect(await answers(path, { keptStringChars: 16, cacheBytes: 4096 }, ['error', 'the'])).toEqual(await answers(path, { ...WHOLE, ...IN_MEMORY }, ['error', 'the']));
    }
  }, 600_000);

  it('a kept output longer than its 64 KiB preview is searched, restored and checked whole, inside a compacted and a cleared range', async () => {
    const big = `${'log line — é 😀 "quoted" needle\n'.repeat(6000)}the last needle`;
    expect(Buffer.byteLength(big)).toBeGreaterThan(2 * 64 * 1024);
    const path = tmp.path('kept-past-preview.jsonl');
    writeFileSync(path, transcriptOf([{ prompt: 'show the log', thinking: undefined, said: 'reading it', calls: [{ command: 'cat log', result: big, isError: false, persisted: undefined }], microcompact: true, compact: 'the log was shown' }]));
    const kept = await answers(path, { ...WHOLE, cacheBytes: 4096 }, ['needle', 'the last needle']);
    expect(kept).toEqual(await answers(path, { ...WHOLE, ...IN_MEMORY }, ['needle', 'the last needle']));
    // Every occurrence is counted, the one past the preview included.
    expect((kept as Record<string, { out: { total_matches: number } }>)['search the last needle']?.out.total_matches).toBeGreaterThan(0);
  }, 120_000);

  it('offers the persisted-output copy of a toolUseResult to be kept, as every message text', () => {
    const offered: string[] = [];
    const record = { type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: 'the stub' }] }, toolUseResult: { stdout: 'the whole output', stderr: 'its errors', content: 'what Grep found', persistedOutputSize: 16 } };
    keepContentOut(record, (value) => {
      offered.push(value);
      return undefined;
    });
    expect(offered.sort()).toEqual(['its errors', 'the stub', 'the whole output', 'what Grep found']);
  });

  it('a tool output of 100 KB is not held once its line is parsed: its message reads it from the file', async () => {
    const path = oneResult('kept-output.jsonl', `${'log line — é 😀 "quoted"\n'.repeat(4000)}the end`);
    expect(await largeContents(path, {})).toBe(1);
    expect(await largeContents(path, { ...WHOLE, ...IN_MEMORY })).toBe(0);
    // Nor is its preview: the message's content is read from the file when asked for.
    expect(await heldPreviews(path, {})).toBe(0);
  });

  it('a line holding a tool output of 100 KB is parsed without it: the output is never decoded, only scanned (LARGE_STRING_BYTES)', async () => {
    const output = `${'log line — é 😀 "quoted"\n'.repeat(4000)}the end`;
    const path = oneResult('unread-output.jsonl', output, { toolUseResult: { stdout: output, stderr: '', interrupted: false, isImage: false } });
    const parsed: number[] = [];
    const parse = JSON.parse;
    const spy = vi.spyOn(JSON, 'parse').mockImplementation((text: string, reviver?: (this: unknown, key: string, value: unknown) => unknown) => {
      parsed.push(text.length);
      return parse(text, reviver) as unknown;
    });
    try {
      expect(await largeContents(path, {})).toBe(1);
    } finally {
      spy.mockRestore();
    }
    // Every line was parsed (four records), none with the output in it.
    expect(parsed.length).toBeGreaterThanOrEqual(4);
    expect(Math.max(...parsed)).toBeLessThan(output.length);
    expect(await answers(path, {}, ['the end', 'log line'])).toEqual(await answers(path, { ...WHOLE, ...IN_MEMORY }, ['the end', 'log line']));
  });

  it('nor is one in a list of text blocks (a subagent\'s answer) of a line asked as it is parsed whether it holds a persisted output', async () => {
    // Under LARGE_STRING_BYTES raw: not left unread by the long-line path, but found in the parsed line.
    const answer = `${'an answer — é 😀 "quoted"\n'.repeat(1500)}the end`;
    const blocks = [{ type: 'text', text: answer }, { type: 'text', text: 'agentId: abc1234 (for resuming)' }];
    // A toolUseResult: what has the line asked, as it is parsed, whether its result is a persisted output's stub.
    const path = oneResult('kept-blocks.jsonl', blocks, { toolUseResult: { stdout: answer, stderr: '', interrupted: false, isImage: false } });
    expect(await largeContents(path, {})).toBe(1);
    expect(await largeContents(path, { ...WHOLE, ...IN_MEMORY })).toBe(0);
    expect(await answers(path, {}, ['the end', 'agentId'])).toEqual(await answers(path, { ...WHOLE, ...IN_MEMORY }, ['the end', 'agentId']));
  });

  it('a result of text blocks kept in the file is not read back to build its message: no more is read than for the same text as one string', async () => {
    const first = `${'a log line — é 😀 "quoted"\n'.repeat(4000)}the end`;
    const second = `${'another line\n'.repeat(8000)}done`;
    const asBlocks = oneResult('read-blocks.jsonl', [{ type: 'text', text: first }, { type: 'text', text: second }]);
    const asString = oneResult('read-string.jsonl', `${first}\n${second}`);
    /** Every byte the load reads of the file. */
    const readAtLoad = async (path: string): Promise<number> => {
      let bytes = 0;
      const loaded = await loadSession([path], {
        readSync: (fd, buffer, offset, length, position) => {
          const n = readSync(fd, buffer, offset, length, position);
          bytes += n;
          return n;
        },
      });
      if (!loaded.ok) throw new Error(loaded.error.message);
      loaded.session.close();
      return bytes;
    };
    // The two files differ by the block list's framing (about a hundred bytes, read a few times over
    // by the pass); reading the texts back would be some 250 KB more.
    const framing = statSync(asBlocks).size - statSync(asString).size;
    expect(framing).toBeLessThan(200);
    expect(await readAtLoad(asBlocks)).toBeLessThanOrEqual((await readAtLoad(asString)) + 4 * 1024);
    // Both texts stay in the file, and answer as read whole.
    expect(await largeContents(asBlocks, {})).toBe(1);
    expect(await answers(asBlocks, {}, ['the end', 'done'])).toEqual(await answers(asBlocks, { ...WHOLE, ...IN_MEMORY }, ['the end', 'done']));
  });
});
