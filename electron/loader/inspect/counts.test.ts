/**
 * An Inspect log's samples counted (SPEC §10.1 `sessions`): a log's summaries hold no message
 * counts, so each sample is read, one at a time — by `check` before it reports, by the app after
 * the open. The expected counts are read here from the raw archive, with node:zlib, not through the
 * importer's reader.
 */
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../cli/testing/runCli';
import { tempDir } from '../../../tools/testing/files';
import { loadSession } from '../session';
import { inspectReadOptions } from './index';
import { expectedCounts, rawSamples } from './testing/rawSamples';
import { evalOf, syntheticSamples } from './testing/synthetic';
import type { ZipCounter } from './zip';
import { DEFAULT_ZIP_CAPS } from './zip';

const ROOT = join(import.meta.dirname, '../../..');
const POPULARITY = join(ROOT, 'e2e/fixtures/real/inspect/2025-02-11T15-18-04-05-00_popularity_mj7khqpMM4GBCfVQozKgzB.eval');
const tmp = tempDir('session-inspector-inspect-counts-');
afterAll(() => tmp.cleanup());
afterEach(() => {
  delete inspectReadOptions.caps;
  delete inspectReadOptions.counter;
});

type Listed = { id: string; messages: number; counting?: string };

async function checkSummary(args: string[]): Promise<{ code: number; sessions: Listed[]; messages: number; findings: { message: string }[] }> {
  const r = await runCli(['check', ...args]);
  const json = JSON.parse(r.stdout) as { summary: { sessions: Listed[]; messages: number }; findings: { message: string }[] };
  return { code: r.code, sessions: json.summary.sessions, messages: json.summary.messages, findings: json.findings };
}

/** A `.eval` of synthetic samples of every shape the importer reads, written to the test's folder. */
function syntheticEval(): string {
  const s = syntheticSamples();
  const path = tmp.path('shapes.eval');
  writeFileSync(path, evalOf([s.trim1, s.compact, s.trim2, s.attachments, s.damaged, s.overlap]));
  return path;
}

describe('check counts every sample of an Inspect log', () => {
  it('a real .eval: each of its ten samples lists the messages its record holds', async () => {
    const want = expectedCounts(POPULARITY);
    expect(want.size).toBe(10);
    const got = await checkSummary([POPULARITY]);
    expect(got.code).toBe(0);
    expect(got.sessions.map((s) => [s.id, s.messages, s.counting])).toEqual([...want].sort((a, b) => a[0].localeCompare(b[0], 'en', { numeric: true })).map(([id, n]) => [id, n, undefined]));
  });

  it('samples of every shape (compactions, attachments, a damaged one whose last output ends the view): each count is what the sample shows when opened', async () => {
    const path = syntheticEval();
    const want = expectedCounts(path);
    const got = await checkSummary([path]);
    expect(new Map(got.sessions.map((s) => [s.id, s.messages]))).toEqual(want);
    expect(got.sessions.some((s) => s.counting !== undefined)).toBe(false);
    // The damaged sample's last output is not in its messages: it counts one more than they are.
    expect(want.get('damaged_epoch_1')).toBe((rawSamples(path).get('damaged_epoch_1')?.messages as unknown[]).length + 1);
    for (const [id, n] of want) expect((await checkSummary(['--session', id, path])).messages, id).toBe(n);
  });
});

describe('the counts after an open (the app counts in the background)', () => {
  it('an open reads one sample; countSessions reads each other sample once, in turn, stops when aborted and goes on when asked again', async () => {
    const path = syntheticEval();
    const want = expectedCounts(path);
    const counter: ZipCounter = { bytesRead: 0, entriesOpened: [] };
    inspectReadOptions.counter = counter;
    const r = await loadSession([path]);
    if (!r.ok) throw new Error(r.error.message);
    const session = r.session;
    try {
      const listed = (): Listed[] => (session.sessions ?? []) as Listed[];
      expect(listed().map((s) => s.counting)).toEqual([undefined, 'pending', 'pending', 'pending', 'pending', 'pending']);
      expect(counter.entriesOpened.filter((n) => n.startsWith('samples/'))).toEqual(['samples/7_epoch_1.json']);
      const signal = { aborted: false };
      let heard = 0;
      await session.countSessions?.(() => {
        heard++;
        signal.aborted = heard === 2;
      }, signal);
      expect(heard).toBe(2);
      expect(listed().filter((s) => s.counting === 'pending')).toHaveLength(3);
      for (const s of listed().filter((x) => x.counting === undefined)) expect(s.messages, s.id).toBe(want.get(s.id));
      await session.countSessions?.(() => heard++, { aborted: false });
      expect(heard).toBe(5);
      expect(new Map(listed().map((s) => [s.id, s.messages]))).toEqual(want);
      expect(listed().some((s) => s.counting !== undefined)).toBe(false);
      // Every sample inflated once: the opened one at the open, each other one by the count.
      const samples = counter.entriesOpened.filter((n) => n.startsWith('samples/'));
      expect([...samples].sort()).toEqual([...want.keys()].map((id) => `samples/${id}.json`).sort());
    } finally {
      session.close();
    }
  });

  it('a session closed while its samples are counted stops counting, and its descriptor is closed after the read in flight', async () => {
    const path = syntheticEval();
    const fds = (): number => readdirSync('/proc/self/fd').length;
    const before = fds();
    const r = await loadSession([path]);
    if (!r.ok) throw new Error(r.error.message);
    expect(fds()).toBe(before + 1);
    let heard = 0;
    const counting = r.session.countSessions?.(() => heard++, { aborted: false });
    r.session.close();
    await counting;
    await new Promise((resolve) => setImmediate(resolve));
    expect(heard).toBeLessThanOrEqual(1);
    expect(fds()).toBe(before);
  });

  it('once every sample is counted the descriptor is closed; a log whose samples were all read at the open keeps none open', async () => {
    const fds = (): number => readdirSync('/proc/self/fd').length;
    const before = fds();
    const r = await loadSession([syntheticEval()]);
    if (!r.ok) throw new Error(r.error.message);
    await r.session.countSessions?.(() => undefined, { aborted: false });
    expect(fds()).toBe(before);
    r.session.close();
    const one = tmp.path('one.eval');
    writeFileSync(one, evalOf([syntheticSamples().trim1]));
    const single = await loadSession([one]);
    if (!single.ok) throw new Error(single.error.message);
    expect(single.session.sessions?.map((x) => x.counting)).toEqual([undefined]);
    expect(fds()).toBe(before);
    single.session.close();
  });
});

describe('what counting may inflate', () => {
  it('samples that together pass the cap of one open are still counted, each read once; past maxCountedRatio × the file`s size the rest fail with a finding, never a throw', async () => {
    const path = syntheticEval();
    const want = expectedCounts(path);
    const bytes = [...rawSamples(path).values()].map((s) => Buffer.byteLength(JSON.stringify(s)));
    // Enough for the open (header, summaries and the first sample), less than every sample together.
    const openCap = Math.max(...bytes) + 8 * 1024;
    expect(bytes.reduce((a, b) => a + b, 0)).toBeGreaterThan(openCap);
    inspectReadOptions.caps = { ...DEFAULT_ZIP_CAPS, maxTotalBytes: openCap };
    const counted = await loadSession([path], { countSessions: true });
    if (!counted.ok) throw new Error(counted.error.message);
    expect(new Map(counted.session.sessions?.map((s) => [s.id, s.messages]))).toEqual(want);
    counted.session.close();

    inspectReadOptions.caps = { ...DEFAULT_ZIP_CAPS, maxTotalBytes: openCap, maxCountedRatio: 0 };
    const capped = await loadSession([path], { countSessions: true });
    if (!capped.ok) throw new Error(capped.error.message);
    const sessions = (capped.session.sessions ?? []) as Listed[];
    const failed = sessions.filter((s) => s.counting === 'failed');
    expect(failed.length).toBeGreaterThan(0);
    for (const s of failed) expect(s.messages).toBe(0);
    for (const s of sessions.filter((x) => x.counting === undefined)) expect(s.messages).toBe(want.get(s.id));
    const findings = capped.session.check().findings.map((f) => f.message);
    for (const s of failed) expect(findings.some((m) => m.includes(`samples/${s.id}.json`) && /over the cap of \d+ for one archive; its messages are not counted/.test(m)), s.id).toBe(true);
    capped.session.close();
  });
});
