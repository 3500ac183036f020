/**
 * Large string values of a Codex rollout kept in the file (docs/large-lines.md): a rollout read with
 * the threshold lowered — so that most strings stay in the file and are read back by range — gives
 * the answers of the whole-line path for every command (check, log, view and view --at, expand,
 * search) and the app's rows and row texts, over generated rollouts and the real ones.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../../tools/testing/files';
import type { LoadOptions } from '../session';
import { answers, cutValueLoad, heldPreviews, largeContents, loadWatchingReads } from '../testing/largeAnswers';
import { CODEX_SYNTHETIC_DIR } from './testing/synthetic';

const tmp = tempDir('session-inspector-codex-large-lines-');
afterAll(() => tmp.cleanup());

const REAL = join(import.meta.dirname, '../../../e2e/fixtures/real/codex');
/** The whole-line path: no string is long enough to stay in the file. */
const WHOLE: LoadOptions = { largeStringBytes: Number.MAX_SAFE_INTEGER, keptStringChars: Number.MAX_SAFE_INTEGER };
/** Lines read whole, and their long texts left in the file once parsed (docs/streaming-import.md). */
const PARSED: LoadOptions = { largeStringBytes: Number.MAX_SAFE_INTEGER };

/** Text with what a JSON writer escapes, multi-byte characters and the needles. */
const piece = fc.constantFrom('a', 'b', 'needle', 'NEEDLE', ' ', '\n', '"', '\\', '/', 'é', '😀', '\t', '<', '\u0001', 'x', 'x'.repeat(40));
const text = fc.array(piece, { maxLength: 24 }).map((a) => a.join(''));
/** An output Codex cut before recording it (docs/FORMATS.md §2.10 item 1). */
const cutOutput = text.map((t) => `Original token count: 9000\nOutput:\n${t}…8000 tokens truncated…${t}`);

/** Text parts of a message or an output, with another part sometimes. */
const parts = (type: string) =>
  fc.oneof(
    fc.array(text, { minLength: 1, maxLength: 3 }).map((ts) => ts.map((t) => ({ type, text: t }))),
    text.map((t) => [{ type, text: t }, { type: 'input_image', image_url: `data:image/png;base64,iVBOR${t.length}` }]),
  );

const turn = fc.record({
  prompt: fc.oneof(text, parts('input_text')),
  developer: fc.option(text, { nil: undefined }),
  reasoning: fc.option(text, { nil: undefined }),
  said: fc.option(text, { nil: undefined }),
  calls: fc.array(fc.record({ custom: fc.boolean(), command: text, output: fc.oneof(text, cutOutput, parts('input_text')), aggregated: text }), { maxLength: 3 }),
  compact: fc.option(fc.record({ summary: text, keep: fc.array(fc.boolean(), { maxLength: 12 }), reinject: fc.option(text, { nil: undefined }), escaped: fc.boolean() }), { nil: undefined }),
});
type Turn = typeof turn extends fc.Arbitrary<infer T> ? T : never;

/**
 * A rollout of `turns`: prompts, developer messages, responses with reasoning and parallel calls,
 * outputs (strings, text parts, cut ones), the UI's exec events, compactions keeping earlier items
 * (re-escaped sometimes: a kept copy is the same value, not always the same bytes) and re-injecting new ones.
 */
function rolloutOf(turns: readonly Turn[]): string {
  const lines: string[] = [];
  const rec = (type: string, payload: Record<string, unknown>): void => void lines.push(JSON.stringify({ timestamp: '2026-01-01T00:00:00.000Z', type, payload }));
  const items: Record<string, unknown>[] = [];
  const item = (payload: Record<string, unknown>): void => {
    items.push(payload);
    rec('response_item', payload);
  };
  rec('session_meta', { id: 'a1b2c3d4-0000-4000-8000-000000000001', cwd: '/work', originator: 'codex_cli_rs', cli_version: '0.118.0', instructions: 'You are Codex.' });
  rec('turn_context', { cwd: '/work', model: 'gpt-5-codex' });
  let call = 0;
  for (const t of turns) {
    if (t.developer !== undefined) item({ type: 'message', role: 'developer', content: [{ type: 'input_text', text: t.developer }] });
    item({ type: 'message', role: 'user', content: t.prompt });
    if (t.reasoning !== undefined) item({ type: 'reasoning', summary: [{ type: 'summary_text', text: t.reasoning }], encrypted_content: 'gAAAA' });
    if (t.said !== undefined) item({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: t.said }] });
    const ids = t.calls.map(() => `call_${++call}`);
    t.calls.forEach((c, i) => item(c.custom ? { type: 'custom_tool_call', call_id: ids[i], name: 'apply_patch', input: c.command } : { type: 'function_call', call_id: ids[i], name: 'shell', arguments: JSON.stringify({ command: ['bash', '-lc', c.command] }) }));
    rec('event_msg', { type: 'token_count', info: null });
    t.calls.forEach((c, i) => {
      rec('event_msg', { type: 'exec_command_end', call_id: ids[i], aggregated_output: c.aggregated, exit_code: 0 });
      item({ type: c.custom ? 'custom_tool_call_output' : 'function_call_output', call_id: ids[i], output: c.output });
    });
    if (t.compact !== undefined) {
      const c = t.compact;
      const kept = items.filter((_, k) => c.keep[k % Math.max(1, c.keep.length)] === true);
      const history = [...kept.slice(0, 1), ...(c.reinject !== undefined ? [{ type: 'message', role: 'developer', content: [{ type: 'input_text', text: c.reinject }] }] : []), ...kept.slice(1), { type: 'message', role: 'user', content: [{ type: 'input_text', text: c.summary }] }];
      const line = JSON.stringify({ timestamp: '2026-01-01T00:00:00.000Z', type: 'compacted', payload: { message: c.summary, replacement_history: history } });
      // Escapes JSON.stringify never writes, keys and types included: the same values in longer bodies.
      lines.push(c.escaped ? line.replaceAll('é', '\\u00e9').replaceAll('/', '\\/').replaceAll('x', '\\u0078') : line);
    }
  }
  item({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'done ✓' }] });
  return `${lines.join('\n')}\n`;
}

const NEEDLES = ['needle', 'é😀', '"\\', 'tokens truncated'];

/** fast-check: generated rollouts give, loaded with `options(n)` for n from 1 to 24, the answers they give read whole and in memory. */
async function answersAsWhole(name: string, options: (n: number) => LoadOptions): Promise<void> {
  let k = 0;
  await fc.assert(
    fc.asyncProperty(fc.array(turn, { minLength: 1, maxLength: 4 }), fc.integer({ min: 1, max: 24 }), async (turns, n) => {
      const path = tmp.path(`${name}${k++}.jsonl`);
      writeFileSync(path, rolloutOf(turns));
      expect(await answers(path, options(n), NEEDLES)).toEqual(await answers(path, WHOLE, NEEDLES));
    }),
    { numRuns: 20 },
  );
}

/** Every real rollout (the compressed one written out as `name`) and every synthetic fixture. */
function realAndSynthetic(name: string): string[] {
  const compaction = tmp.path(name);
  writeFileSync(compaction, gunzipSync(readFileSync(join(REAL, 'rollout-0.118-remote-compaction-subagent-ENTIRE.jsonl.gz'))));
  const real = readdirSync(REAL).filter((f) => f.endsWith('.jsonl')).map((f) => join(REAL, f));
  const synthetic = readdirSync(CODEX_SYNTHETIC_DIR).filter((f) => f.endsWith('.jsonl')).map((f) => join(CODEX_SYNTHETIC_DIR, f));
  return [...real, compaction, ...synthetic];
}

describe('texts left in the file once their line is parsed (docs/streaming-import.md)', () => {
  it('a rollout gives the same answers with its texts read back from the file as kept in memory (generated)', async () => {
    await answersAsWhole('kept', (chars) => ({ ...PARSED, keptStringChars: chars, cacheBytes: 64 }));
  }, 600_000);

  it('real rollouts and the synthetic fixtures give the same answers, texts kept', async () => {
    for (const path of realAndSynthetic('kept-remote-compaction.jsonl')) {
      expect(await largeContents(path, { ...PARSED, keptStringChars: 16 }), path).toBeGreaterThan(0);
      expect(await answers(path, { ...PARSED, keptStringChars: 16, cacheBytes: 4096 }, ['error', 'the']), path).toEqual(await answers(path, WHOLE, ['error', 'the']));
    }
  }, 600_000);

  it('a tool output of 100 KB is not held once its line is parsed: its message reads it from the file, no preview held', async () => {
    const path = tmp.path('kept-output.jsonl');
    const output = `${'log line — é 😀 "quoted"\n'.repeat(4000)}the end`;
    writeFileSync(path, rolloutOf([{ prompt: 'show the log', developer: undefined, reasoning: undefined, said: 'short answer', calls: [{ custom: false, command: 'cat log', output, aggregated: 'short' }], compact: undefined }]));
    expect(await largeContents(path, PARSED)).toBe(1);
    expect(await largeContents(path, WHOLE)).toBe(0);
    expect(await heldPreviews(path, PARSED)).toBe(0);
  });
});

describe('large string values of a Codex rollout read from the file', () => {
  it('a rollout gives the same answers with its strings kept in the file as read whole (generated)', async () => {
    await answersAsWhole('g', (threshold) => ({ largeStringBytes: threshold }));
  }, 600_000);

  it('a line of tens of MB is never read whole: its long output stays in the file and reads back as the file\u2019s bytes', async () => {
    // About 24 MB of UTF-8 (non-ASCII and escapes throughout), generated here, never committed.
    const unit = 'src/ledger/post.ts:120:7 error TS2345: "amount" — not assignable\n\tat café ✓ 😀\n';
    const big = unit.repeat(Math.ceil(24_000_000 / Buffer.byteLength(unit)));
    const path = tmp.path('long-output.jsonl');
    writeFileSync(path, rolloutOf([{ prompt: 'build it', developer: undefined, reasoning: undefined, said: undefined, calls: [{ custom: false, command: 'npm run build', output: big, aggregated: 'short' }], compact: undefined }]));
    // The content's bytes are read while the session is open.
    const { reads, bigConcats, value } = await loadWatchingReads(path, (session, view) => {
      const message = view.find((m) => m?.role === 'tool');
      return { content: message?.content, length: message?.large?.length, bytes: Buffer.from(message?.large?.read(0, message.large.length) ?? []), findings: session.check().findings };
    });
    // Read a window at a time (docs/large-lines.md); no line was put together from pieces.
    expect(reads.filter((x) => x.length > 1024 * 1024)).toEqual([]);
    expect(bigConcats).toEqual([]);
    expect(value.length).toBe(Buffer.byteLength(big));
    // The content's UTF-8 is the file's string body, unescaped; `content` is its first characters.
    expect(value.bytes.equals(Buffer.from(big))).toBe(true);
    expect(big.startsWith(value.content ?? '-')).toBe(true);
    expect(readFileSync(path, 'utf8').includes(JSON.stringify(big))).toBe(true);
    expect(value.findings).toEqual([]);
  });

  it('the threshold keeps texts and outputs in the file: the low one gives large contents, the whole-line path none', async () => {
    const path = tmp.path('kept.jsonl');
    writeFileSync(path, rolloutOf([{ prompt: 'a prompt long enough to stay in the file', developer: undefined, reasoning: 'thinking it over', said: 'running it now', calls: [{ custom: false, command: 'cat log', output: [{ type: 'input_text', text: 'first part of the output' }, { type: 'input_text', text: 'second part' }], aggregated: 'first part of the output' }], compact: undefined }]));
    // The prompt, the response (its text and call), the output, the last answer.
    expect(await largeContents(path, { largeStringBytes: 8 })).toBe(4);
    expect(await largeContents(path, WHOLE)).toBe(0);
  });

  it('an output longer than the preview: rows and row texts read past it from the file', async () => {
    const path = tmp.path('long.jsonl');
    const output = `${'log line — é 😀 "quoted"\n'.repeat(6000)}needle at the end`;
    writeFileSync(path, rolloutOf([{ prompt: 'show the log', developer: undefined, reasoning: undefined, said: undefined, calls: [{ custom: false, command: 'cat log', output, aggregated: output }], compact: { summary: 'the log was shown', keep: [true, false, true], reinject: 'AGENTS.md again', escaped: true } }]));
    expect(await answers(path, { largeStringBytes: 1024 }, ['needle', 'quoted'])).toEqual(await answers(path, WHOLE, ['needle', 'quoted']));
  }, 120_000);

  it('real rollouts and the synthetic fixtures give the same answers', async () => {
    for (const path of realAndSynthetic('remote-compaction.jsonl')) {
      expect(await largeContents(path, { largeStringBytes: 16 }), path).toBeGreaterThan(0);
      expect(await answers(path, { largeStringBytes: 16 }, ['error', 'the']), path).toEqual(await answers(path, WHOLE, ['error', 'the']));
    }
  }, 600_000);

  it('a call arguments longer than the cap are not read whole: cut to their preview and said; the rest is the whole-line path', async () => {
    const path = tmp.path('huge-arguments.jsonl');
    const big = `${'argument — é 😀 '.repeat(200_000)}the end`;
    writeFileSync(path, rolloutOf([{ prompt: 'run it', developer: undefined, reasoning: 'thinking', said: undefined, calls: [{ custom: false, command: big, output: 'ran', aggregated: 'ran' }], compact: undefined }]));
    // Line 5: after the session's meta, its context, the prompt and the reasoning.
    const r = await cutValueLoad(path, big, 1024 * 1024);
    // The line pass and the scan read the line; its value is not read whole again (that is 2.3× or more).
    expect(r.valueBytesRead).toBeLessThan(r.valueBytes * 2);
    const whole = r.whole.args[0] ?? '';
    expect(r.cut.cutFindings).toEqual([{ code: 'value_too_large', severity: 'warning', line: 5, message: expect.stringContaining(`payload.arguments is ${Buffer.byteLength(whole)} bytes`) as string }]);
    const shown = r.cut.args[0] ?? '';
    expect(Buffer.byteLength(shown)).toBeGreaterThan(60_000);
    expect(Buffer.byteLength(shown)).toBeLessThanOrEqual(64 * 1024);
    expect(whole.startsWith(shown)).toBe(true);
    expect(whole).toBe(JSON.stringify({ command: ['bash', '-lc', big] }));
    expect(r.whole.cutFindings).toEqual([]);
    expect(r.cut.rest).toEqual(r.whole.rest);
  }, 120_000);
});
