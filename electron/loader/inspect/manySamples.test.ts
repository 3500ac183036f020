/**
 * An Inspect `.eval` of many samples (docs/formats/inspect.md): `check` lists and counts every
 * sample, each with what the log's own summary records of it (message_count, scores, models,
 * tokens, limit), and an open inflates only the sample it shows. The expected values are read here
 * from the raw archive (the central directory walked by hand, node:zlib, JSON.parse), never
 * through the importer's reader.
 */
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { RecordedSample, SessionEntry } from '../../../shared/resolver/session';
import { runCli } from '../../cli/testing/runCli';
import { tempDir } from '../../../tools/testing/files';
import { loadSession } from '../session';
import { inspectReadOptions } from './index';
import { writeManySamplesEval } from './testing/generateMany';
import { expectedCounts, rawEntries } from './testing/rawSamples';
import type { ZipCounter } from './zip';

type Obj = Record<string, unknown>;
const ROOT = join(import.meta.dirname, '../../..');
const POPULARITY = join(ROOT, 'e2e/fixtures/real/inspect/2025-02-11T15-18-04-05-00_popularity_mj7khqpMM4GBCfVQozKgzB.eval');
const DEDUPLICATION = join(ROOT, 'e2e/fixtures/real/inspect/log_message_deduplication.eval');
const tmp = tempDir('session-inspector-inspect-many-');
afterAll(() => tmp.cleanup());
afterEach(() => {
  delete inspectReadOptions.counter;
});

const generated = (() => {
  let made: string | undefined;
  return (): string => (made ??= writeManySamplesEval(tmp.path('many.eval'), { samples: 30, sampleBytes: 3_000_000, seed: 7 }).path);
})();

/** What each summary of the raw `summaries.json` records, by session id, computed by hand. */
function recordedByHand(path: string): Map<string, RecordedSample> {
  const list = rawEntries(path, (n) => n === 'summaries.json').get('summaries.json') as Obj[];
  return new Map(
    list.map((s) => {
      const usage = (s.model_usage ?? {}) as Record<string, { total_tokens?: number }>;
      const scores = Object.fromEntries(Object.entries((s.scores ?? {}) as Record<string, { value: unknown }>).map(([k, v]) => [k, String(v.value)]));
      const r: RecordedSample = {
        ...(typeof s.message_count === 'number' ? { messages: s.message_count } : {}),
        ...(Object.keys(scores).length > 0 ? { scores } : {}),
        ...(Object.keys(usage).length > 0 ? { models: Object.keys(usage), tokens: Object.values(usage).reduce((n, u) => n + (u.total_tokens ?? 0), 0) } : {}),
        ...(typeof s.limit === 'string' ? { limit: s.limit } : {}),
      };
      return [`${String(s.id)}_epoch_${String(s.epoch)}`, r];
    }),
  );
}

async function checkOf(args: string[]): Promise<{ code: number; sessions: SessionEntry[]; messages: number; session_id: string }> {
  const r = await runCli(['check', ...args]);
  const json = JSON.parse(r.stdout) as { summary: { sessions: SessionEntry[]; messages: number; session_id: string } };
  return { code: r.code, ...json.summary };
}

describe('check of a many-sample .eval counts and describes every sample', () => {
  it('a generated 30-sample log: every sample listed once, counted as it shows when opened, with what its summary records', async () => {
    const path = generated();
    const counts = expectedCounts(path);
    const recorded = recordedByHand(path);
    expect(counts.size).toBe(30);
    const got = await checkOf([path]);
    expect(got.code).toBe(0);
    expect(got.sessions.map((s) => s.id)).toEqual([...counts.keys()].sort((a, b) => Number(a.split('_')[0]) - Number(b.split('_')[0])));
    for (const s of got.sessions) {
      expect(s.counting, s.id).toBeUndefined();
      expect(s.messages, s.id).toBe(counts.get(s.id));
      expect(s.recorded, s.id).toEqual(recorded.get(s.id));
    }
    // A sample stopped by its token limit: its last call's output is not in its history, so the view shows one message more than the log's message_count.
    const limited = got.sessions.find((s) => s.recorded?.limit === 'token');
    expect(limited?.messages).toBe((limited?.recorded?.messages ?? -1) + 1);
    expect(got.sessions.filter((s) => s.recorded?.limit === undefined).every((s) => s.messages === s.recorded?.messages)).toBe(true);
  });

  it('real logs: scores and the message count as their summaries record them (message_count only where Inspect wrote it)', async () => {
    const popularity = await checkOf([POPULARITY]);
    const byHand = recordedByHand(POPULARITY);
    expect(popularity.sessions).toHaveLength(10);
    for (const s of popularity.sessions) expect(s.recorded, s.id).toEqual(byHand.get(s.id));
    expect(popularity.sessions.every((s) => s.recorded?.messages === undefined && s.recorded?.scores?.match !== undefined)).toBe(true);
    const dedup = await checkOf([DEDUPLICATION]);
    const counts = expectedCounts(DEDUPLICATION);
    expect(dedup.sessions.map((s) => [s.id, s.messages, s.recorded?.messages])).toEqual([...counts].map(([id, n]) => [id, n, recordedByHand(DEDUPLICATION).get(id)?.messages]));
    expect(dedup.sessions[0]?.recorded?.messages).toBe(12);
  });
});

describe('an open of a many-sample .eval', () => {
  it('inflates only the sample it shows, and lists every other with what its summary records before any of them is read', async () => {
    const path = generated();
    const recorded = recordedByHand(path);
    const counter: ZipCounter = { bytesRead: 0, entriesOpened: [] };
    inspectReadOptions.counter = counter;
    const r = await loadSession([path], { session: '17_epoch_1' });
    if (!r.ok) throw new Error(r.error.message);
    try {
      expect(counter.entriesOpened.filter((n) => n.startsWith('samples/'))).toEqual(['samples/17_epoch_1.json']);
      const listed = r.session.sessions ?? [];
      expect(listed).toHaveLength(30);
      for (const s of listed) {
        expect(s.recorded, s.id).toEqual(recorded.get(s.id));
        expect(s.counting, s.id).toBe(s.id === '17_epoch_1' ? undefined : 'pending');
      }
    } finally {
      r.session.close();
    }
  });
});
