import { appendFileSync, readFileSync, readSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { IndexedRecords, MessageList } from '../../../shared/index';
import { makeSession, resolveSession } from '../../../shared/index';
import { makeHeader, messageRecord, tempDir, writeSidecar } from '../../../tools/testing/files';
import type { ReadSync } from '../common/lines';
import { ONE_SHOT_CACHE, loadSession } from '../session';
import { tornSidecarText } from '../../../tools/testing/tornSession';
import { isLoadError, openReadOnly } from '../common/openFile';
import type { IndexPass } from '../common/source';
import { READ_AHEAD_BYTES } from './sidecarReader';
import { SidecarSource } from './sidecarSource';

const SAMPLES = join(import.meta.dirname, '../../../samples');
const tmp = tempDir();
afterAll(() => tmp.cleanup());

function open(path: string): SidecarSource {
  const file = openReadOnly(path);
  if (isLoadError(file)) throw new Error(file.message);
  return new SidecarSource(file, readSync, 1 << 20);
}

function pass(final: boolean, chunkSize = 1 << 16): IndexPass {
  return { chunkSize, maxRecordBytes: 256 * 1024 * 1024, read: readSync, progress: { add: () => undefined }, final };
}

function contents(list: MessageList): (string | undefined)[] {
  return Array.from({ length: list.length }, (_, i) => list.at(i)?.content);
}

/** Everything a session shows of the records: the resolved lists by content, the log, the findings, the model calls (§11) and the check. */
function shown(records: IndexedRecords | undefined) {
  if (!records) throw new Error('no records indexed');
  const { header, log, logLines, modelChanges, findings, calls } = records;
  const report = makeSession(resolveSession({ files: [], records })).check();
  return { header, view: contents(records.view), recorded: contents(records.recorded), log, logLines, modelChanges, findings, calls, system: records.system()?.content, report };
}

async function onePass(path: string) {
  const source = open(path);
  try {
    await source.indexTo(source.file.size, pass(true));
    return shown(source.indexed().records);
  } finally {
    source.close();
  }
}

const torn = tmp.path('torn.sidecar.jsonl');
writeFileSync(torn, tornSidecarText((record, next) => ({ line: record.slice(0, 70) + next, consumesNext: true })));

const files = [
  join(SAMPLES, 'demo.sidecar.jsonl'),
  join(SAMPLES, 'session.sidecar.jsonl'),
  join(SAMPLES, 'legacy.sidecar.jsonl'),
  join(SAMPLES, 'broken/malformed_line.sidecar.jsonl'),
  join(SAMPLES, 'broken/truncated_last_line.sidecar.jsonl'),
  join(SAMPLES, 'broken/unknown_record.sidecar.jsonl'),
  join(SAMPLES, 'broken/model_change_count_mismatch.sidecar.jsonl'),
  torn,
];

describe('a sidecar indexed in passes', () => {
  it.each(files.map((f) => [f.slice(SAMPLES.length + 1), f] as const))('%s: two passes split anywhere give the same session as one', async (_name, path) => {
    const whole = await onePass(path);
    const bytes = readFileSync(path);
    for (let k = 1; k < 12; k++) {
      const mid = Math.floor((bytes.length * k) / 12);
      const source = open(path);
      try {
        const first = await source.indexTo(mid, pass(false, 7 + k));
        // Stopped at a line boundary at or before the split, with the right line number.
        expect(first.offset).toBeLessThanOrEqual(mid);
        expect(first.offset === 0 || bytes[first.offset - 1] === 0x0a).toBe(true);
        expect(first.line).toBe(bytes.subarray(0, first.offset).filter((b) => b === 0x0a).length + 1);
        const last = await source.indexTo(source.file.size, pass(true));
        expect(last.offset).toBe(bytes.length);
        expect(shown(source.indexed().records)).toEqual(whole);
      } finally {
        source.close();
      }
    }
  });

  it('leaves a last line without its newline for the next pass until the pass is final', async () => {
    const path = join(SAMPLES, 'session.sidecar.jsonl');
    const text = readFileSync(path, 'utf8');
    const lastStart = text.lastIndexOf('\n', text.length - 2) + 1;
    const growing = tmp.path('growing.sidecar.jsonl');
    // The writer has written half of the last record so far.
    writeFileSync(growing, text.slice(0, lastStart + 40));
    const source = open(growing);
    try {
      const first = await source.indexTo(source.file.size, pass(false));
      expect(first.offset).toBe(Buffer.byteLength(text.slice(0, lastStart)));
      const before = shown(source.indexed().records);
      expect(before.findings.map((f) => f.code)).not.toContain('truncated_last_line');
      // The writer completes the record; the next pass reads it whole.
      appendFileSync(growing, text.slice(lastStart + 40));
      await source.indexTo(Buffer.byteLength(text), pass(true));
      expect(shown(source.indexed().records)).toEqual(await onePass(path));
    } finally {
      source.close();
    }
  });

  it('hands out copies: a later pass does not change what an earlier indexed() returned', async () => {
    const path = join(SAMPLES, 'session.sidecar.jsonl');
    const source = open(path);
    try {
      await source.indexTo(Math.floor(source.file.size / 2), pass(false));
      const early = source.indexed().records;
      const earlyShown = shown(early);
      await source.indexTo(source.file.size, pass(true));
      expect(shown(early)).toEqual(earlyShown);
      expect(shown(source.indexed().records).view.length).toBeGreaterThan(earlyShown.view.length);
    } finally {
      source.close();
    }
  });
});

describe('a message the cache cannot keep', () => {
  it('is read once when the view and the history ask for it one after the other (check)', async () => {
    // Three records of 300 KB of tool-call arguments each (read whole: arguments are not kept in
    // the file), and a message cache of 64 KiB, which keeps none of them.
    const args = (k: number) => JSON.stringify({ k, data: 'x'.repeat(300_000) });
    const path = writeSidecar(tmp.path('large-calls.sidecar.jsonl'), [
      makeHeader(),
      messageRecord(0, { role: 'user', content: 'write them' }),
      ...[1, 2, 3].map((i) => messageRecord(i, { role: 'assistant', content: '', tool_calls: [{ id: `c${i}`, name: 'write', arguments: args(i) }] })),
    ]);
    const reads: number[] = [];
    const counting: ReadSync = (fd, buffer, offset, length, position) => {
      reads.push(position);
      return readSync(fd, buffer, offset, length, position);
    };
    const loaded = await loadSession([path], { readSync: counting, cacheBytes: 64 * 1024 });
    if (!loaded.ok) throw new Error(loaded.error.message);
    const session = loaded.session;
    try {
      const lines = readFileSync(path, 'utf8').split('\n');
      const offsets = lines.slice(0, -1).map((_, k) => Buffer.byteLength(lines.slice(0, k).join('\n')) + (k > 0 ? 1 : 0));
      reads.length = 0;
      const report = session.check();
      expect(report.findings).toEqual([]);
      // Each large record read back once (its offset read), not once for the view and again for the history.
      for (const line of [2, 3, 4]) expect(reads.filter((at) => at === offsets[line]), `line ${line + 1}`).toHaveLength(1);
    } finally {
      session.close();
    }
  });
});

describe('records read back in file order', () => {
  it('come from one read of the bytes ahead (or behind, walked backwards), never past what was indexed', async () => {
    const path = writeSidecar(tmp.path('many-small.sidecar.jsonl'), [makeHeader(), ...Array.from({ length: 2000 }, (_, i) => messageRecord(i, { role: i % 2 === 0 ? 'user' : 'assistant', content: `message ${i} ${'x'.repeat(i % 97)}` }))]);
    const indexedSize = readFileSync(path).length;
    const reads: [number, number][] = [];
    const counting: ReadSync = (fd, buffer, offset, length, position) => {
      const n = readSync(fd, buffer, offset, length, position);
      reads.push([position, position + n]);
      return n;
    };
    // A cache of 1 KiB keeps none of the walk: every message is read back.
    const loaded = await loadSession([path], { readSync: counting, cacheBytes: 1024 });
    if (!loaded.ok) throw new Error(loaded.error.message);
    const session = loaded.session;
    try {
      // The file grows after its index: the reads back stay within the indexed bytes.
      appendFileSync(path, `${JSON.stringify(messageRecord(2000, { role: 'user', content: 'appended' }))}\n`);
      reads.length = 0;
      for (let i = 0; i < 2000; i++) expect(session.minted.at(i)?.content).toBe(`message ${i} ${'x'.repeat(i % 97)}`);
      // About one read per READ_AHEAD_BYTES of records, not one per record.
      expect(reads.length).toBeLessThanOrEqual(Math.ceil(indexedSize / READ_AHEAD_BYTES) + 2);
      // Backwards (the estimates counted ahead walk so) the same.
      const forwards = reads.length;
      for (let i = 1999; i >= 0; i--) expect(session.minted.at(i)?.content).toBe(`message ${i} ${'x'.repeat(i % 97)}`);
      expect(reads.length - forwards).toBeLessThanOrEqual(Math.ceil(indexedSize / READ_AHEAD_BYTES) + 2);
      expect(Math.max(...reads.map(([, end]) => end))).toBeLessThanOrEqual(indexedSize);
    } finally {
      session.close();
    }
  });
});

describe('a one-shot command\'s cache', () => {
  it('keeps the messages a walk read first: a second walk in file order finds them, where a least-recently-used cache kept none', async () => {
    const text = (i: number) => `message ${i} ${'y'.repeat(200 + (i % 50))}`;
    const path = writeSidecar(tmp.path('walked-twice.sidecar.jsonl'), [makeHeader(), ...Array.from({ length: 2000 }, (_, i) => messageRecord(i, { role: i % 2 === 0 ? 'user' : 'assistant', content: text(i) }))]);
    // A budget of about a quarter of the messages' records.
    const cacheBytes = Math.floor(readFileSync(path).length / 4);
    const kept = async (options: Parameters<typeof loadSession>[1]) => {
      const loaded = await loadSession([path], options);
      if (!loaded.ok) throw new Error(loaded.error.message);
      const session = loaded.session;
      try {
        const first = Array.from({ length: 2000 }, (_, i) => session.minted.at(i));
        const again = Array.from({ length: 2000 }, (_, i) => session.minted.at(i));
        again.forEach((m, i) => expect(m?.content).toBe(text(i)));
        // A message the cache kept is the same object; one read again is a new one.
        return again.map((m, i) => (m === first[i] ? i : -1)).filter((i) => i >= 0);
      } finally {
        session.close();
      }
    };
    const firstKept = await kept({ ...ONE_SHOT_CACHE, cacheBytes });
    expect(firstKept.length).toBeGreaterThan(300);
    expect(firstKept.length).toBeLessThan(600);
    // The first messages, in order, with no gap.
    expect(firstKept).toEqual(Array.from({ length: firstKept.length }, (_, i) => i));
    expect(await kept({ cacheBytes })).toEqual([]);
  });
});
