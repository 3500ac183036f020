/**
 * The imported formats' line pass (lineSource.ts): a line that runs on past the chunk it starts in
 * is kept in pieces up to 4 MiB, then read again in one buffer, or by range past 16 MiB (a Claude
 * Code line past a MiB is scanned window by window and its long strings left in the file:
 * docs/large-lines.md), and the
 * importer's result does not depend on the read size or the record limit's place — long lines,
 * non-ASCII ones (offsets are UTF-8 bytes), CRLF endings, a line that is not UTF-8 and a torn last
 * line included.
 */
import { readFileSync, readSync, writeFileSync } from 'node:fs';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { ChatMessage, MessageList } from '../../../shared/index';
import { tempDir } from '../../../tools/testing/files';
import { importClaudeFile } from '../claudeCode/index';
import { detectSource } from '../detect';
import { IN_MEMORY_LINE_BYTES, LINE_PIECES_BYTES, LineSource } from './lineSource';
import { loadWatchingReads } from '../testing/largeAnswers';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

const list = (l: MessageList): (ChatMessage | undefined)[] => Array.from({ length: l.length }, (_, i) => l.at(i));
const SESSION = '5d1c8b2e-0000-4000-8000-000000000001';

/** A Claude Code transcript: a prompt, then per output a tool_use and its tool_result. */
function transcript(outputs: readonly string[], eol: readonly string[] = []): { lines: string[]; text: string } {
  let parent: string | null = null;
  let n = 0;
  const rec = (type: string, message: unknown): string => {
    const uuid = `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`;
    const line = JSON.stringify({ parentUuid: parent, isSidechain: false, type, uuid, sessionId: SESSION, timestamp: `2026-04-13T13:30:${String(n % 60).padStart(2, '0')}.000Z`, message });
    parent = uuid;
    return line;
  };
  const lines = [rec('user', { role: 'user', content: 'run it — café' })];
  outputs.forEach((output, k) => {
    const id = `toolu_${k}`;
    lines.push(rec('assistant', { id: `msg_${k}`, role: 'assistant', model: 'claude-opus-4-5-20251101', content: [{ type: 'tool_use', id, name: 'Bash', input: { command: 'make' } }] }));
    lines.push(rec('user', { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: output }] }));
  });
  lines.push(rec('assistant', { id: 'msg_end', role: 'assistant', model: 'claude-opus-4-5-20251101', content: [{ type: 'text', text: 'done ✓' }] }));
  return { lines, text: lines.map((l, k) => `${l}${eol[k % Math.max(1, eol.length)] ?? '\n'}`).join('') };
}

/** A transcript written to `name` whose one long line's tool result is `big`: its path, and that line's offset and length in bytes. */
function longLineTranscript(name: string, big: string): { path: string; start: number; length: number } {
  const { lines, text } = transcript(['short', big, 'after']);
  const path = tmp.path(name);
  writeFileSync(path, text);
  const longLine = lines.findIndex((l) => l.length > 1_000_000);
  return { path, start: Buffer.byteLength(lines.slice(0, longLine).join('\n')) + 1, length: Buffer.byteLength(lines[longLine] as string) };
}

/** One final pass over the file with these read sizes and limits: the session's messages and findings. */
async function indexWith(path: string, chunkSize: number, maxRecordBytes: number, inMemoryLineBytes: number, piecesBytes = inMemoryLineBytes): Promise<{ messages: unknown; findings: unknown }> {
  const d = detectSource(path, { read: readSync, maxRecordBytes, cacheBytes: 1 << 20 });
  if ('error' in d) throw new Error(d.error.message);
  const source = d.source;
  if (!(source instanceof LineSource)) throw new Error('expected an imported file');
  try {
    source.inMemoryLineBytes = inMemoryLineBytes;
    source.piecesBytes = piecesBytes;
    await source.indexTo(source.file.size, { chunkSize, maxRecordBytes, read: readSync, progress: { add: () => undefined }, final: true });
    const snapshot = source.indexed().snapshot;
    return { messages: list(snapshot?.messages ?? { length: 0, at: () => undefined }), findings: snapshot?.findings };
  } finally {
    source.close();
  }
}

const PIECES = ['a', 'é', '中', '😀', '"', '\\', '\n', '\t', 'x'.repeat(50)];
const outputArb = fc.array(fc.constantFrom(...PIECES), { maxLength: 400 }).map((p) => p.join(''));

describe('the line pass of imported files', () => {
  it('gives the importer the same session for any read size and any record limit: long, non-ASCII, CRLF, non-UTF-8 and torn lines (fast-check)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(outputArb, { minLength: 1, maxLength: 5 }),
        fc.array(fc.constantFrom('\n', '\r\n'), { minLength: 1, maxLength: 3 }),
        fc.boolean(),
        fc.boolean(),
        fc.integer({ min: 1, max: 5000 }),
        fc.integer({ min: 50, max: 3000 }),
        fc.integer({ min: 0, max: 3000 }),
        fc.integer({ min: 0, max: 3000 }),
        async (outputs, eol, torn, broken, chunkSize, limit, threshold, kept) => {
          const { text } = transcript(outputs, eol);
          let bytes = Buffer.from(torn ? text.replace(/\r?\n$/, '') : text);
          // A byte that is not UTF-8 inside a string of the second line.
          if (broken) {
            const at = bytes.indexOf('run it');
            bytes = Buffer.concat([bytes.subarray(0, at), Buffer.from([0xff]), bytes.subarray(at)]);
          }
          const path = tmp.path('t.jsonl');
          writeFileSync(path, bytes);
          // Read in chunks of a few bytes, lines kept in pieces (or let go and read again in one
          // buffer) or read by range from a few bytes on, against one read of a MiB, with the same
          // record limit anywhere.
          const expected = await indexWith(path, 1 << 20, limit, 16 << 20);
          expect(await indexWith(path, chunkSize, limit, threshold, kept)).toEqual(expected);
          // Without a limit that cuts, the pass gives what the importer makes of the whole text.
          const whole = await indexWith(path, chunkSize, 1 << 30, threshold, kept);
          expect(whole.messages).toEqual(importClaudeFile(path, bytes.toString('utf8'))?.messages);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('a line of a few MB that runs past its chunk is read again in one buffer, not put together from pieces', async () => {
    const big = 'compiled src/ledger/post.ts in 12 ms — café ✓\n'.repeat(Math.ceil(6_000_000 / 48));
    const { path, start, length } = longLineTranscript('few-mb.jsonl', big);
    expect(length).toBeGreaterThan(LINE_PIECES_BYTES);
    expect(length).toBeLessThan(IN_MEMORY_LINE_BYTES);
    const { reads, bigConcats, value } = await loadWatchingReads(path, (_, view) => {
      const message = view.find((m) => m?.role === 'tool' && (m.large !== undefined || (m.content?.length ?? 0) > 1_000_000));
      return message?.large ? Buffer.from(message.large.read(0, message.large.length)).toString('utf8') : message?.content;
    });
    // Its pieces were let go past LINE_PIECES_BYTES; the line was read once more, whole, where it starts.
    expect(bigConcats).toEqual([]);
    expect(reads).toContainEqual({ position: start, length });
    expect(value).toBe(big);
  });

  it('a line of tens of MB is never read whole: its long string stays in the file and reads back as the file\u2019s bytes', async () => {
    // About 24 MB of UTF-8 (non-ASCII and escapes throughout), generated here, never committed.
    const unit = 'src/ledger/post.ts:120:7 error TS2345: "amount" — not assignable\n\tat café ✓ 😀\n';
    const big = unit.repeat(Math.ceil(24_000_000 / Buffer.byteLength(unit)));
    const { path, start, length } = longLineTranscript('long.jsonl', big);

    // The content's bytes are read while the session is open.
    const { reads, bigConcats, value } = await loadWatchingReads(path, (_, view) => {
      const message = view.find((m) => m?.role === 'tool' && m.large !== undefined);
      return { content: message?.content, length: message?.large?.length, bytes: Buffer.from(message?.large?.read(0, message.large.length) ?? []) };
    });
    // Read a window at a time (docs/large-lines.md); no line was put together from pieces.
    expect(reads.filter((x) => x.length > 1024 * 1024)).toEqual([]);
    expect(reads.some((x) => x.position > start && x.position < start + length)).toBe(true);
    expect(bigConcats).toEqual([]);
    expect(value.length).toBe(Buffer.byteLength(big));
    // The content's UTF-8 is the file's string body, unescaped; `content` is its first characters.
    const file = readFileSync(path);
    const body = file.subarray(start, start + length).toString('utf8');
    expect(value.bytes.equals(Buffer.from(big))).toBe(true);
    expect(big.startsWith(value.content ?? '-')).toBe(true);
    expect(body.includes(JSON.stringify(big))).toBe(true);
  });
});
