/**
 * An Inspect log's samples counted after the open (sessionCounts.ts): the open replies with one
 * sample counted and the others pending, requests are answered meanwhile, and the counts arrive as
 * `sessionCounts` events — through the service, and through the real worker and its client (whose
 * events are checked against the contract). Expected counts are read from the raw archive.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { EventPayload, HostEvent, SessionEntry } from '../../shared/index';
import { methods } from '../../shared/index';
import { expectedCounts } from '../loader/inspect/testing/rawSamples';
import { evalOf, syntheticSamples } from '../loader/inspect/testing/synthetic';
import { tempDir } from '../../tools/testing/files';
import type { WorkerResolverClient } from './client';
import { createResolverClient } from './client';
import { SessionService } from './service';

const POPULARITY = join(import.meta.dirname, '../../e2e/fixtures/real/inspect/2025-02-11T15-18-04-05-00_popularity_mj7khqpMM4GBCfVQozKgzB.eval');
const tmp = tempDir('session-inspector-counts-');
afterAll(() => tmp.cleanup());

const closers: (() => unknown)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

function value<T>(reply: { ok: true; value: T } | { ok: false; error: { code: string; message: string } }): T {
  if (!reply.ok) throw new Error(`expected ok, got ${reply.error.code}: ${reply.error.message}`);
  return reply.value;
}

const counts = (sessions: readonly SessionEntry[]): Map<string, number> => new Map(sessions.map((s) => [s.id, s.messages]));
const pending = (sessions: readonly SessionEntry[]): number => sessions.filter((s) => s.counting === 'pending').length;

describe('SessionService: the samples of an open log are counted after the open', () => {
  it('the open replies before any other sample is counted; rows answer meanwhile; the counts arrive as events and in the info', async () => {
    const want = expectedCounts(POPULARITY);
    const events: EventPayload<'sessionCounts'>[] = [];
    let done: () => void = () => undefined;
    const allCounted = new Promise<void>((resolve) => (done = resolve));
    const s = new SessionService({}, undefined, {}, undefined, {}, undefined, (payload) => {
      events.push(payload);
      if (pending(payload.sessions) === 0) done();
    });
    closers.push(() => s.close());
    const info = value(await s.open({ paths: [POPULARITY], generation: 7 }));
    expect(info.sessions).toHaveLength(10);
    expect(pending(info.sessions)).toBe(9);
    // The log's summary records each sample's score (and no message count: this log predates it).
    expect(info.sessions[0]).toEqual({ id: '1_epoch_1', title: expect.any(String) as string, messages: want.get('1_epoch_1'), recorded: { scores: { match: 'C' } } });
    // Requests are answered while the samples are being counted.
    expect(value(s.handle('rows', methods.rows.params.parse({ start: 0, end: 10 }))).rowCount).toBe(want.get('1_epoch_1'));
    await allCounted;
    const last = events.at(-1);
    expect(last?.generation).toBe(7);
    expect(counts(last?.sessions ?? [])).toEqual(want);
    expect(counts(s.info?.sessions ?? [])).toEqual(want);
    expect(counts(value(s.handle('check', {})).summary.sessions)).toEqual(want);
    expect(s.info?.sessions.some((x) => x.counting !== undefined)).toBe(false);
  });

  it('closing or opening another file stops the count: no event names the old generation after it', async () => {
    const s0 = syntheticSamples();
    const path = tmp.path('many.eval');
    writeFileSync(path, evalOf(Array.from({ length: 40 }, (_x, k) => ({ ...s0.compact, id: `c${k}` }))));
    const events: EventPayload<'sessionCounts'>[] = [];
    let done: () => void = () => undefined;
    const secondCounted = new Promise<void>((resolve) => (done = resolve));
    const s = new SessionService({}, undefined, {}, undefined, {}, undefined, (payload) => {
      events.push(payload);
      if (payload.generation === 2 && pending(payload.sessions) === 0) done();
    });
    closers.push(() => s.close());
    value(await s.open({ paths: [path], generation: 1 }));
    value(s.close());
    const after = events.length;
    value(await s.open({ paths: [POPULARITY], generation: 2, session: '3_epoch_1' }));
    await secondCounted;
    expect(events.slice(after).every((e) => e.generation === 2)).toBe(true);
    expect(counts(s.info?.sessions ?? [])).toEqual(expectedCounts(POPULARITY));
  });
});

describe('the real worker: sessionCounts crosses the message channel and the contract', () => {
  it('a client hears the counts of every sample of a real .eval', async () => {
    const c: WorkerResolverClient = createResolverClient();
    closers.push(() => c.dispose());
    const want = expectedCounts(POPULARITY);
    const counted = new Promise<EventPayload<'sessionCounts'>>((resolve) =>
      c.onEvent((e: HostEvent) => {
        if (e.name === 'sessionCounts' && pending(e.payload.sessions) === 0) resolve(e.payload);
      }),
    );
    const info = value(await c.open([POPULARITY], 3));
    expect(pending(info.sessions)).toBe(9);
    const last = await counted;
    expect(last.generation).toBe(3);
    expect(counts(last.sessions)).toEqual(want);
  });
});
