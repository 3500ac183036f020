/**
 * A live session: the worker's service follows a session file while a real writer process appends to it
 * (one record every 10 ms, a torn line completed later, a truncation, a replacement); its events
 * carry the new counts, and its final answers equal a fresh open's. Nothing is written.
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { EventPayload, ParsedParams, WorkerSessionMethod } from '../../shared/index';
import { parseParams } from '../../shared/index';
import { tempDir } from '../../tools/testing/files';
import { liveSessionText } from '../../tools/testing/liveSession';
import type { Writer } from '../../tools/testing/writer';
import { appendSteps, startWriter } from '../../tools/testing/writer';
import { loadSession } from '../loader/session';
import { SessionService } from './service';

const tmp = tempDir('worker-follow-');
afterAll(() => tmp.cleanup());
const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).forEach((c) => c()));

function params<M extends WorkerSessionMethod>(method: M, p: unknown): ParsedParams<M> {
  const parsed = parseParams(method, p);
  if (!parsed.ok) throw new Error(parsed.error.message);
  return parsed.params as ParsedParams<M>;
}

/** A followed service and the updates it reports; `until` resolves at the first update (past or future) that satisfies `ok`. */
function followedService() {
  const updates: EventPayload<'sessionUpdated'>[] = [];
  const waiting: { ok: (u: EventPayload<'sessionUpdated'>) => boolean; resolve: () => void }[] = [];
  const service = new SessionService({}, undefined, {
    onUpdated: (u) => {
      updates.push(u);
      for (const w of waiting.filter((x) => x.ok(u))) w.resolve();
    },
    loop: { pollMs: 100 },
  });
  cleanups.push(() => service.close());
  const until = (ok: (u: EventPayload<'sessionUpdated'>) => boolean): Promise<void> =>
    updates.some(ok) ? Promise.resolve() : new Promise((resolve) => waiting.push({ ok, resolve }));
  return { service, updates, until };
}

/** What a service answers about its session: every row, the log, the check, the calls. */
function answers(service: SessionService): unknown {
  const info = service.info;
  if (!info) throw new Error('no session');
  const rows = service.handle('rows', params('rows', { start: 0, end: info.rows }));
  return { rows, log: service.handle('log', {}), check: service.handle('check', {}), calls: service.handle('calls', {}), messages: info.messages, reductions: info.reductions };
}

async function freshAnswers(path: string): Promise<{ answers: unknown; messages: number }> {
  const fresh = new SessionService();
  const opened = await fresh.open({ paths: [path], generation: 1, follow: false });
  if (!opened.ok) throw new Error(opened.error.message);
  try {
    return { answers: answers(fresh), messages: opened.value.messages };
  } finally {
    fresh.close();
  }
}

function sha256(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

function run(writer: Writer): Writer {
  cleanups.push(() => writer.kill());
  return writer;
}

describe('a followed session written by another process', () => {
  it('records appended every 10 ms (one torn, completed later) arrive as sessionUpdated events; the end equals a fresh open; the file is what the writer wrote', async () => {
    const text = liveSessionText(12);
    const lines = text.split(/(?<=\n)/);
    const path = tmp.path('appended.sidecar.jsonl');
    // The header and the system prompt first: the file is a sidecar when it is opened.
    writeFileSync(path, lines.slice(0, 2).join(''));
    const { service, updates, until } = followedService();
    const opened = await service.open({ paths: [path], generation: 3 });
    if (!opened.ok) throw new Error(opened.error.message);
    const initial = opened.value.messages;

    const writer = run(startWriter(path, appendSteps(lines.slice(2).join(''), 5)));
    const writerSha = await writer.done;
    const fresh = await freshAnswers(path);
    await until((u) => u.info.messages === fresh.messages && u.info.rows === service.info?.rows);
    await expect.poll(() => answers(service)).toEqual(fresh.answers);

    expect(updates.length).toBeGreaterThan(0);
    expect(updates.every((u) => u.generation === 3 && u.notice === undefined)).toBe(true);
    // Each update counts the messages it added to the one before (a rewind shrinks the view: it adds none).
    let previous = initial;
    for (const u of updates) {
      expect(u.new_messages).toBe(Math.max(0, u.info.messages - previous));
      previous = u.info.messages;
    }
    const loaded = await loadSession([path]);
    if (!loaded.ok) throw new Error(loaded.error.message);
    expect(updates.at(-1)?.calls).toBe(loaded.session.calls.length);
    loaded.session.close();
    expect(sha256(path)).toBe(writerSha);
  }, 60_000);

  it('a truncation and a replacement by the writer reopen the session with a notice; the end equals a fresh open', async () => {
    const text = liveSessionText(8);
    const lines = text.split(/(?<=\n)/);
    const path = tmp.path('rewritten.sidecar.jsonl');
    writeFileSync(path, lines.slice(0, 6).join(''));
    const { service, updates, until } = followedService();
    const opened = await service.open({ paths: [path], generation: 5 });
    if (!opened.ok) throw new Error(opened.error.message);

    const kept = Buffer.byteLength(lines.slice(0, 3).join(''));
    const replacement = liveSessionText(4);
    const writer = run(startWriter(path, [...appendSteps(lines.slice(6, 10).join('')), { truncate: kept }, ...appendSteps(lines.slice(3, 12).join('')), { replace: replacement }, ...appendSteps('')]));
    await writer.step(5);
    await until((u) => u.notice?.kind === 'reopened' && u.notice.message.includes('shrank'));
    const writerSha = await writer.done;
    await until((u) => u.notice?.kind === 'reopened' && u.notice.message.includes('replaced'));
    const fresh = await freshAnswers(path);
    await expect.poll(() => answers(service)).toEqual(fresh.answers);
    expect(updates.every((u) => u.generation === 5)).toBe(true);
    expect(sha256(path)).toBe(writerSha);
    expect(readFileSync(path, 'utf8')).toBe(replacement);
  }, 60_000);

  it('with follow: false an append is not followed: no update, and reads answer file_changed (today\'s behaviour)', async () => {
    const text = liveSessionText(3);
    const path = tmp.path('not-followed.sidecar.jsonl');
    writeFileSync(path, text);
    const changes: EventPayload<'fileChanged'>[] = [];
    const updates: EventPayload<'sessionUpdated'>[] = [];
    const service = new SessionService({}, (c) => changes.push(c), { onUpdated: (u) => updates.push(u), loop: { pollMs: 1 } });
    cleanups.push(() => service.close());
    const opened = await service.open({ paths: [path], generation: 2, follow: false });
    if (!opened.ok) throw new Error(opened.error.message);
    await service.followNow();
    writeFileSync(path, `${text}${JSON.stringify({ t: 'message', i: opened.value.messages, msg: { role: 'user', content: 'more' } })}\n`);
    const reply = service.handle('rows', params('rows', { start: 0, end: 1 }));
    expect(reply).toMatchObject({ ok: false, error: { code: 'file_changed' } });
    expect(changes).toHaveLength(1);
    await service.followNow();
    expect(updates).toEqual([]);
  });
});
