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
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { ChatMessage, MessageList, Reduction } from '../../../shared/index';
import { tempDir } from '../../../tools/testing/files';
import { importClaudeFile } from '../claudeCode/index';
import { detectSource } from '../detect';
import { IN_MEMORY_LINE_BYTES, LINE_PIECES_BYTES, LineSource } from './lineSource';
import { loadWatchingReads } from '../testing/largeAnswers';
import { LARGE_STRING_BYTES } from '../content/largeStrings';

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
async function indexWith(
  path: string,
  chunkSize: number,
  maxRecordBytes: number,
  inMemoryLineBytes: number,
  piecesBytes = inMemoryLineBytes,
  /** Its long lines scanned on the scan-ahead thread, started after the pass scanned this many itself; undefined: none. */
  aheadAfter: number | undefined = undefined,
  /** Each message's large content as the text it reads back, not the object that reads it (its file's descriptor is the source's own). */
  readBack = false,
): Promise<{ messages: unknown; findings: unknown; scannedAheadLines: number }> {
  const d = detectSource(path, { read: readSync, maxRecordBytes, cacheBytes: 1 << 20 });
  if ('error' in d) throw new Error(d.error.message);
  const source = d.source;
  if (!(source instanceof LineSource)) throw new Error('expected an imported file');
  try {
    source.inMemoryLineBytes = inMemoryLineBytes;
    source.piecesBytes = piecesBytes;
    // Its long lines scanned on the scan-ahead thread, each waited for (scanAhead.ts).
    if (aheadAfter !== undefined) {
      source.scanAheadMinBytes = 0;
      source.scanAheadAfterLines = aheadAfter;
      source.waitsForScans = true;
    }
    await source.indexTo(source.file.size, { chunkSize, maxRecordBytes, read: readSync, progress: { add: () => undefined }, final: true });
    const snapshot = source.indexed().snapshot;
    const messages = list(snapshot?.messages ?? { length: 0, at: () => undefined });
    const read = (m: ChatMessage | undefined) => (m?.large ? { ...m, large: Buffer.from(m.large.read(0, m.large.length)).toString('utf8') } : m);
    return { messages: readBack ? messages.map(read) : messages, findings: snapshot?.findings, scannedAheadLines: source.scannedAheadLines };
  } finally {
    source.close();
  }
}

/** The lines of LARGE_STRING_BYTES or more (a `\r` before the `\n` counted): those a Claude Code pass scans. */
function longLines(bytes: Buffer): number {
  let n = 0;
  let start = 0;
  for (let nl = bytes.indexOf(0x0a); nl !== -1; nl = bytes.indexOf(0x0a, start)) {
    if (nl - start >= LARGE_STRING_BYTES) n++;
    start = nl + 1;
  }
  return n;
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

  it('a pass with its long lines scanned on the scan-ahead thread gives the same session, each scan taken from the thread (fast-check)', async () => {
    // Outputs of 4–40 KB with escapes and non-ASCII, some lines past the chunk, some past the in-memory bound (read by range).
    const longOutput = fc.array(fc.constantFrom(...PIECES, 'y'.repeat(900)), { minLength: 60, maxLength: 500 }).map((p) => p.join(''));
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.oneof(outputArb, longOutput), { minLength: 1, maxLength: 12 }),
        fc.array(fc.constantFrom('\n', '\r\n'), { minLength: 1, maxLength: 3 }),
        fc.integer({ min: 512, max: 70_000 }),
        fc.integer({ min: 4096, max: 40_000 }),
        fc.integer({ min: 0, max: 3 }),
        async (outputs, eol, chunkSize, threshold, after) => {
          const { text } = transcript(outputs, eol);
          const path = tmp.path('ahead.jsonl');
          writeFileSync(path, text);
          const here = await indexWith(path, chunkSize, 1 << 30, threshold, threshold, undefined, true);
          // The thread started with the pass, or once the pass scanned `after` long lines itself (from the next line, mid-read).
          const ahead = await indexWith(path, chunkSize, 1 << 30, threshold, threshold, after, true);
          expect(ahead.messages).toEqual(here.messages);
          expect(ahead.findings).toEqual(here.findings);
          expect(here.scannedAheadLines).toBe(0);
          expect(ahead.scannedAheadLines).toBe(Math.max(0, longLines(Buffer.from(text)) - after));
        },
      ),
      { numRuns: 25 },
    );
  });

  it('real Claude Code transcripts and Codex rollouts read with their long lines scanned ahead give the same session', async () => {
    const REAL = join(import.meta.dirname, '../../../e2e/fixtures/real');
    const files = ['claude-code/cc-2.1.17-microcompactions-then-compact.jsonl', 'claude-code/cc-2.1.91-persisted-output.jsonl', 'codex/rollout-0.126-desktop-websearch-customtool-ENTIRE.jsonl', 'codex/rollout-0.118-exec-parallel-calls-ENTIRE.jsonl'];
    // Values of 512 bytes or more stay in the file: most lines are scanned.
    const LOW = 512;
    const index = async (path: string, ahead: boolean) => {
      const d = detectSource(path, { read: readSync, maxRecordBytes: 1 << 30, cacheBytes: 1 << 20, largeStringBytes: LOW });
      if ('error' in d) throw new Error(d.error.message);
      const source = d.source;
      if (!(source instanceof LineSource)) throw new Error('expected an imported file');
      try {
        if (ahead) {
          source.scanAheadMinBytes = 0;
          source.scanAheadAfterLines = 0;
          source.waitsForScans = true;
        }
        await source.indexTo(source.file.size, { chunkSize: 64 * 1024, maxRecordBytes: 1 << 30, read: readSync, progress: { add: () => undefined }, final: true });
        const snapshot = source.indexed().snapshot;
        const messages = list(snapshot?.messages ?? { length: 0, at: () => undefined }).map((m) => (m?.large ? { ...m, large: Buffer.from(m.large.read(0, m.large.length)).toString('utf8') } : m));
        // A compaction's hash is made when first read: here, while the session is open.
        const plainReduction = (r: Reduction) => ({ ...r, ptr: { ...r.ptr } });
        const reductions = snapshot?.reductions?.map(plainReduction);
        const ended = snapshot?.ended?.map((e) => ({ ...e, reduction: plainReduction(e.reduction) }));
        return { messages, reductions, ended, findings: snapshot?.findings, scanned: source.scannedAheadLines };
      } finally {
        source.close();
      }
    };
    for (const file of files) {
      const path = join(REAL, file);
      const here = await index(path, false);
      const ahead = await index(path, true);
      expect(ahead.messages, file).toEqual(here.messages);
      expect(ahead.reductions, file).toEqual(here.reductions);
      expect(ahead.ended, file).toEqual(here.ended);
      expect(ahead.findings, file).toEqual(here.findings);
      // Every line ended by its newline (a last line without one the pass scans itself).
      const long = readFileSync(path, 'utf8').split('\n').slice(0, -1).filter((l) => Buffer.byteLength(l) >= LOW).length;
      expect(ahead.scanned, file).toBe(long);
      expect(long, file).toBeGreaterThan(20);
    }
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
