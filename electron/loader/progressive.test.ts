/**
 * Imported files (Claude Code transcripts, Codex rollouts) index in passes like a sidecar
 * (lineSource.ts): passes compose, a large file is previewed before its pass ends, progress is
 * reported along the way and a cancelled load stops.
 */
import { readdirSync, readFileSync, readSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { ChatMessage, MessageList, Reduction } from '../../shared/index';
import { tempDir, writeSidecar } from '../../tools/testing/files';
import { generateClaudeTranscript } from './claudeCode/testing/generate';
import { detectSource } from './detect';
import type { LoadedSession, LoadProgress } from './session';
import { MAX_RECORD_BYTES, PREVIEW_MIN_BYTES, loadSession } from './session';
import type { ReadSync } from './common/lines';
import type { IndexPass, SessionSource, SourceIndex } from './common/source';

const REAL = join(import.meta.dirname, '../../e2e/fixtures/real');
const ccFiles = readdirSync(join(REAL, 'claude-code'))
  .filter((n) => n.endsWith('.jsonl'))
  .map((n) => join(REAL, 'claude-code', n));
const codexFiles = readdirSync(join(REAL, 'codex'))
  .filter((n) => n.endsWith('.jsonl'))
  .map((n) => join(REAL, 'codex', n));

const tmp = tempDir();
afterAll(() => tmp.cleanup());

function open(path: string): SessionSource {
  const d = detectSource(path, { read: readSync, maxRecordBytes: MAX_RECORD_BYTES, cacheBytes: 1 << 20 });
  if ('error' in d) throw new Error(d.error.message);
  return d.source;
}

function pass(chunkSize: number, final: boolean, extra: Partial<IndexPass> = {}): IndexPass {
  return { chunkSize, maxRecordBytes: MAX_RECORD_BYTES, read: readSync, progress: { add: () => undefined }, final, ...extra };
}

/** A message as data: a text left in the file (docs/streaming-import.md) as the text it reads back, not the reader holding it. */
const plainMessage = (m: ChatMessage | undefined): unknown => (m?.large ? { ...m, large: Buffer.from(m.large.read(0, m.large.length)).toString('utf8') } : m);
const list = (l: MessageList | undefined): unknown[] => Array.from({ length: l?.length ?? 0 }, (_, i) => plainMessage(l?.at(i)));
/** A reduction as data, read while its session is open: a compaction's hash is made when first read (docs/streaming-import.md "Hashes made when read"). */
const plainReduction = (r: Reduction): unknown => ({ ...r, ptr: { ...r.ptr } });

/** What a source has indexed, as plain data (its message lists read out). */
function plain(index: SourceIndex): unknown {
  const { snapshot, records } = index;
  return {
    ...(snapshot
      ? {
          snapshot: {
            ...snapshot,
            messages: list(snapshot.messages),
            reductions: snapshot.reductions?.map(plainReduction),
            ended: snapshot.ended?.map((e) => ({ ...e, reduction: plainReduction(e.reduction) })),
          },
        }
      : {}),
    ...(records ? { records: { ...records, view: list(records.view), recorded: list(records.recorded), system: records.system() } } : {}),
    stopped: index.stopped,
  };
}

async function indexIn(path: string, cuts: number[], chunkSize: number): Promise<unknown> {
  const source = open(path);
  try {
    const size = source.file.size;
    const bytes = cuts.length > 0 ? readFileSync(path) : undefined;
    for (const cut of cuts) {
      const stop = await source.indexTo(Math.min(cut, size), pass(chunkSize, false));
      // Every pass stops at a line boundary at or before its end.
      expect(stop.offset).toBeLessThanOrEqual(Math.min(cut, size));
      expect(stop.offset === 0 || bytes?.[stop.offset - 1] === 0x0a).toBe(true);
    }
    await source.indexTo(size, pass(chunkSize, true));
    return plain(source.indexed());
  } finally {
    source.close();
  }
}

describe('imported files index in resumable passes', () => {
  for (const path of [...ccFiles, ...codexFiles]) {
    const name = path.split('/').slice(-2).join('/');
    it(`${name}: passes ending anywhere give what one pass gives, for any read size`, async () => {
      const size = readFileSync(path).length;
      const whole = await indexIn(path, [], 1024 * 1024);
      // A file of megabytes read a byte at a time takes minutes: its reads are at least 512 bytes, fewer
      // runs. Any other file is read in at most 64 Ki reads a pass (a read of at least 8 bytes for a
      // file of 500 KB, still less than a line or a four-byte character): fast-check draws small
      // sizes often, and one byte at a time over 500 KB took seconds a run.
      const large = size > 1024 * 1024;
      const smallest = large ? 512 : Math.max(1, Math.ceil(size / 65_536));
      await fc.assert(
        fc.asyncProperty(fc.array(fc.nat({ max: size }), { maxLength: 4 }), fc.integer({ min: smallest, max: 4096 }), async (cuts, chunk) => {
          expect(await indexIn(path, [...cuts].sort((a, b) => a - b), chunk)).toEqual(whole);
        }),
        { numRuns: large ? 6 : 25 },
      );
    }, 120_000);
  }

  it('a Claude Code line without its newline is left for the next pass unless the pass is final', async () => {
    const path = ccFiles[0] as string;
    const text = readFileSync(path, 'utf8');
    const cut = tmp.path('torn.jsonl');
    // The first two lines, the second without its newline.
    const [a, b] = text.split('\n');
    writeFileSync(cut, `${a}\n${b}`);
    const source = open(cut);
    try {
      const stop = await source.indexTo(source.file.size, pass(64, false));
      expect(stop).toEqual({ offset: Buffer.byteLength(`${a}\n`), line: 2 });
      const final = await source.indexTo(source.file.size, pass(64, true));
      expect(final.offset).toBe(source.file.size);
    } finally {
      source.close();
    }
  });

  it('a Claude Code record longer than maxRecordBytes is a malformed_line finding; the lines after it are read', async () => {
    const path = ccFiles[0] as string;
    const lines = readFileSync(path, 'utf8').split('\n');
    const longest = lines.reduce((k, l, i) => (Buffer.byteLength(l) > Buffer.byteLength(lines[k] as string) ? i : k), 0);
    const limit = Buffer.byteLength(lines[longest] as string) - 1;
    const whole = await loadSession([path]);
    const capped = await loadSession([path], { maxRecordBytes: limit, chunkSize: 1000 });
    if (!whole.ok || !capped.ok) throw new Error('expected both to load');
    try {
      expect(capped.session.loadFindings.filter((f) => f.code === 'malformed_line').map((f) => f.line)).toEqual([longest + 1]);
      expect(whole.session.loadFindings.some((f) => f.line === longest + 1)).toBe(false);
    } finally {
      whole.session.close();
      capped.session.close();
    }
  });
});

/** A Codex rollout of about `bytes`: a real session_meta line, then user and assistant messages. */
function writeLargeRollout(path: string, bytes: number): number {
  const first = (readFileSync(codexFiles[0] as string, 'utf8').split('\n')[0] as string) + '\n';
  const parts = [first];
  let n = first.length;
  let k = 0;
  while (n < bytes) {
    const role = k % 2 === 0 ? 'user' : 'assistant';
    const text = `message ${k} `.padEnd(20_000, 'x');
    const line = `${JSON.stringify({ timestamp: '2026-04-30T15:06:55.536Z', type: 'response_item', payload: { type: 'message', role, content: [{ type: role === 'user' ? 'input_text' : 'output_text', text }] } })}\n`;
    parts.push(line);
    n += line.length;
    k++;
  }
  writeFileSync(path, parts.join(''));
  return k;
}

describe('a large imported file opens progressively', () => {
  const cc = generateClaudeTranscript(tmp.path('cc'), { bytes: PREVIEW_MIN_BYTES + 4 * 1024 * 1024, seed: 7, compactEvery: 4 * 1024 * 1024 });
  const rollout = tmp.path('large-rollout.jsonl');
  writeLargeRollout(rollout, PREVIEW_MIN_BYTES + 4 * 1024 * 1024);

  const sidecarView: ChatMessage[] = Array.from({ length: 30_000 }, (_, i) => ({ role: i % 2 === 0 ? 'user' : 'assistant', content: `message ${i} ${'text '.repeat(60)}` }));
  const sidecar = writeSidecar(tmp.path('large.sidecar.jsonl'), [
    { t: 'header', format: 'supercode-sidecar', version: 1, session_id: 's-large', created_at: '2026-11-30T00:00:00Z', model: 'm', gate: true, policy: null },
    ...sidecarView.map((msg, i) => ({ t: 'message', i, msg })),
  ]);

  for (const [name, path] of [
    ['a Claude Code transcript', cc.path],
    ['a Codex rollout', rollout],
  ] as const) {
    it(`${name}: the preview (the rows read so far) comes before the pass ends, with progress before and after it`, async () => {
      const events: ({ preview: LoadedSession } | { progress: LoadProgress })[] = [];
      const loaded = await loadSession([path], { chunkSize: 64 * 1024, onPreview: (preview) => events.push({ preview }), onProgress: (progress) => events.push({ progress }) });
      if (!loaded.ok) throw new Error(loaded.error.message);
      const { session } = loaded;
      try {
        const at = events.findIndex((e) => 'preview' in e);
        expect(at).toBeGreaterThan(0);
        expect(events.filter((e) => 'preview' in e)).toHaveLength(1);
        const preview = (events[at] as { preview: LoadedSession }).preview;
        const before = events.slice(0, at).filter((e): e is { progress: LoadProgress } => 'progress' in e);
        const after = events.slice(at + 1).filter((e): e is { progress: LoadProgress } => 'progress' in e);
        // Indexing went on after the preview: more bytes were read, up to the whole file.
        expect(after.length).toBeGreaterThan(0);
        expect((before.at(-1) as { progress: LoadProgress }).progress.bytesRead).toBeLessThan(session.files[0]?.bytes ?? 0);
        expect((after.at(-1) as { progress: LoadProgress }).progress.bytesRead).toBe(session.files[0]?.bytes);
        // The preview is the live branch over the records read so far: the final view's first
        // messages, but for its last few (a call whose results were not read yet has fewer after
        // it). Their contents may differ: a later compaction or microcompaction stubs earlier ones.
        expect(preview.minted.length).toBeGreaterThan(0);
        expect(preview.minted.length).toBeLessThan(session.minted.length);
        expect(preview.files).toEqual(session.files);
        const shape = (m: ChatMessage | undefined) => [m?.role, m?.tool_call_id, m?.tool_calls?.map((c) => c.id)];
        for (let i = 0; i < preview.minted.length - 4; i++) expect(shape(preview.minted.at(i))).toEqual(shape(session.minted.at(i)));
      } finally {
        session.close();
      }
    });

    it(`${name}: a load cancelled at its preview answers cancelled`, async () => {
      const signal = { aborted: false };
      let previews = 0;
      const loaded = await loadSession([path], {
        chunkSize: 64 * 1024,
        signal,
        onPreview: () => {
          previews++;
          signal.aborted = true;
        },
      });
      expect(previews).toBe(1);
      expect(loaded.ok ? 'opened' : loaded.error.code).toBe('cancelled');
    });
  }

  for (const [name, path] of [
    ['a Claude Code transcript', cc.path],
    ['a Codex rollout', rollout],
    ['a sidecar', sidecar],
  ] as const) {
    it(`${name}: the preview comes even when the pass is never due to pause (a machine that indexes it within one slice)`, async () => {
      // CI once indexed the large rollout so fast that no time slice ended after its first 256 KiB:
      // no preview, and the cancelled load above ran to its end. With the clock stopped, no slice ever ends.
      const clock = vi.spyOn(performance, 'now').mockReturnValue(0);
      try {
        let previewRows = -1;
        const loaded = await loadSession([path], { chunkSize: 64 * 1024, onPreview: (preview) => (previewRows = preview.minted.length) });
        if (!loaded.ok) throw new Error(loaded.error.message);
        try {
          expect(previewRows).toBeGreaterThan(0);
          expect(previewRows).toBeLessThan(loaded.session.minted.length);
        } finally {
          loaded.session.close();
        }
      } finally {
        clock.mockRestore();
      }
    });
  }

  it("a Claude Code transcript is read once: no format's detection reads it whole", async () => {
    let bytesRead = 0;
    const counting: ReadSync = (fd, buffer, offset, length, position) => {
      const n = readSync(fd, buffer, offset, length, position);
      bytesRead += n;
      return n;
    };
    // Contents of a MiB or more stay in the file and are read again when measured (a compaction's
    // transcript hashes them: docs/large-lines.md); here every string is kept in memory, so what is
    // counted is the pass and detection.
    const loaded = await loadSession([cc.path], { readSync: counting, largeStringBytes: Number.MAX_SAFE_INTEGER, keptStringChars: Number.MAX_SAFE_INTEGER });
    if (!loaded.ok) throw new Error(loaded.error.message);
    loaded.session.close();
    // The pass reads every byte once; detection reads heads of at most 1 MiB each (native, Claude Code).
    expect(bytesRead).toBeGreaterThanOrEqual(cc.bytes);
    expect(bytesRead).toBeLessThan(cc.bytes + 2 * 1024 * 1024);
  });

  it('a small imported file gets no preview', async () => {
    let previews = 0;
    const loaded = await loadSession([ccFiles[0] as string], { chunkSize: 256, onPreview: () => previews++ });
    if (loaded.ok) loaded.session.close();
    expect(loaded.ok).toBe(true);
    expect(previews).toBe(0);
  });
});
