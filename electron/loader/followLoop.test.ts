/** Change detection of a followed session — watch events debounced, a polling fallback, stopped on close. */
import { appendFileSync, writeFileSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../tools/testing/files';
import { liveSessionText } from '../../tools/testing/liveSession';
import type { FollowUpdate } from './follow';
import { SessionFollower } from './follow';
import type { LoopTimers, WatchFolder } from './followLoop';
import { FollowLoop } from './followLoop';

const tmp = tempDir('follow-loop-');
afterAll(() => tmp.cleanup());

/** Timers run by hand: `fire` runs what is due, in order. */
function handTimers() {
  let next = 1;
  const intervals = new Map<number, () => void>();
  const timeouts = new Map<number, () => void>();
  const timers: LoopTimers = {
    setInterval: (fn) => (intervals.set(next, fn), next++),
    clearInterval: (h) => void intervals.delete(h as number),
    setTimeout: (fn) => (timeouts.set(next, fn), next++),
    clearTimeout: (h) => void timeouts.delete(h as number),
  };
  return {
    timers,
    intervals,
    timeouts,
    tickPoll: () => [...intervals.values()].forEach((fn) => fn()),
    fireTimeouts: () => {
      const due = [...timeouts];
      timeouts.clear();
      for (const [, fn] of due) fn();
    },
  };
}

/** A folder watcher the test fires by hand. */
function handWatch() {
  const listeners: { folder: string; listener: (name: string | null) => void; closed: boolean }[] = [];
  const watch: WatchFolder = (folder, listener) => {
    const entry = { folder, listener, closed: false };
    listeners.push(entry);
    return { close: () => void (entry.closed = true) };
  };
  return { watch, listeners, emit: (name: string | null) => listeners.filter((l) => !l.closed).forEach((l) => l.listener(name)) };
}

async function followed(name: string, turns = 2): Promise<{ path: string; follower: SessionFollower }> {
  const path = tmp.path(name);
  writeFileSync(path, liveSessionText(turns));
  const opened = await SessionFollower.open([path]);
  if (!opened.ok) throw new Error(opened.error.message);
  return { path, follower: opened.follower };
}

/** Resolves at the next update the loop delivers. */
function nextUpdate(): { onUpdate: (u: FollowUpdate) => void; next: () => Promise<FollowUpdate> } {
  let waiting: ((u: FollowUpdate) => void) | undefined;
  const queued: FollowUpdate[] = [];
  return {
    onUpdate: (u) => (waiting ? (waiting(u), (waiting = undefined)) : queued.push(u)),
    next: () => {
      const u = queued.shift();
      return u ? Promise.resolve(u) : new Promise((resolve) => (waiting = resolve));
    },
  };
}

describe('FollowLoop', () => {
  it('many watch events for the file make one debounced look; events for other names none', async () => {
    const { path, follower } = await followed('debounce.sidecar.jsonl');
    const hand = handTimers();
    const w = handWatch();
    const updates: FollowUpdate[] = [];
    const loop = new FollowLoop(follower, (u) => updates.push(u), { timers: hand.timers, watch: w.watch });
    try {
      expect(w.listeners.map((l) => l.folder)).toEqual([dirname(path)]);
      appendFileSync(path, `${JSON.stringify({ t: 'message', i: follower.session.minted.length, msg: { role: 'user', content: 'appended' } })}\n`);
      for (let k = 0; k < 50; k++) w.emit(basename(path));
      w.emit('another-file.jsonl');
      expect(hand.timeouts.size).toBe(1);
      expect(loop.looks).toBe(0);
      hand.fireTimeouts();
      await expect.poll(() => loop.looks).toBe(1);
      await expect.poll(() => updates.length).toBe(1);
    } finally {
      loop.stop();
      follower.close();
    }
  });

  it('the poll looks without any watch event (a file system that sends none), and nothing is reported while nothing changed', async () => {
    const { path, follower } = await followed('poll.sidecar.jsonl');
    const hand = handTimers();
    const { onUpdate, next } = nextUpdate();
    const loop = new FollowLoop(follower, onUpdate, { timers: hand.timers, watch: null });
    try {
      hand.tickPoll();
      await expect.poll(() => loop.looks).toBe(1);
      const messages = follower.session.minted.length;
      appendFileSync(path, `${JSON.stringify({ t: 'message', i: messages, msg: { role: 'user', content: 'one more' } })}\n`);
      hand.tickPoll();
      const update = await next();
      expect(update.session.minted.length).toBe(messages + 1);
      expect(loop.looks).toBe(2);
    } finally {
      loop.stop();
      follower.close();
    }
  });

  it('stop() clears the poll and the pending debounce and closes the watchers; later triggers look no more', async () => {
    const { follower } = await followed('stop.sidecar.jsonl');
    const hand = handTimers();
    const w = handWatch();
    const loop = new FollowLoop(follower, () => undefined, { timers: hand.timers, watch: w.watch });
    w.emit(null);
    loop.stop();
    expect(hand.intervals.size).toBe(0);
    expect(hand.timeouts.size).toBe(0);
    expect(w.listeners.every((l) => l.closed)).toBe(true);
    await loop.trigger();
    expect(loop.looks).toBe(0);
    follower.close();
  });

  it('with the real fs.watch and no poll, an append is seen', async () => {
    const { path, follower } = await followed('real.sidecar.jsonl');
    const { onUpdate, next } = nextUpdate();
    const loop = new FollowLoop(follower, onUpdate, { pollMs: 3_600_000 });
    try {
      const messages = follower.session.minted.length;
      appendFileSync(path, `${JSON.stringify({ t: 'message', i: messages, msg: { role: 'user', content: 'seen by the watcher' } })}\n`);
      expect((await next()).session.minted.length).toBe(messages + 1);
    } finally {
      loop.stop();
      follower.close();
    }
  });
});
