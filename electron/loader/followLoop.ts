/**
 * Change detection for a followed session (SPEC §13): `fs.watch` on each file's folder (a file
 * renamed over or written again is seen there, not on the old inode) plus a polling fallback —
 * containers and network file systems miss events — that looks every `pollMs`. Watch events are
 * debounced (a writer appending every few milliseconds makes one look, not hundreds). Looks never
 * overlap: a trigger during a look runs one more look after it. Everything stops on `stop()`.
 *
 * A look with nothing new reads a stat and two 4 KiB blocks per file (follow.ts): the poll is what
 * idle following costs.
 */
import { watch as fsWatch } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { FollowUpdate, SessionFollower } from './follow';

export const DEFAULT_POLL_MS = 500;
export const DEFAULT_DEBOUNCE_MS = 25;

/** A folder watcher: calls `listener` with the name of an entry that changed (null when unknown). */
export type WatchFolder = (folder: string, listener: (name: string | null) => void) => { close(): void } | undefined;

/** The timers the loop uses (tests drive them by hand). */
export interface LoopTimers {
  setInterval(fn: () => void, ms: number): unknown;
  clearInterval(handle: unknown): void;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export interface FollowLoopOptions {
  pollMs?: number;
  debounceMs?: number;
  /** null: no watcher, polling only. */
  watch?: WatchFolder | null;
  timers?: LoopTimers;
  /** Hears a look that failed unexpectedly (the loop goes on). */
  onError?: (e: unknown) => void;
}

/** fs.watch on a folder, unref'd and never fatal: a folder that cannot be watched is polled. */
export const watchFolder: WatchFolder = (folder, listener) => {
  try {
    const w = fsWatch(folder, { persistent: false }, (_event, name) => listener(typeof name === 'string' ? name : null));
    w.on('error', () => w.close());
    return w;
  } catch {
    return undefined;
  }
};

const realTimers: LoopTimers = {
  setInterval: (fn, ms) => {
    const h = setInterval(fn, ms);
    h.unref();
    return h;
  },
  clearInterval: (h) => clearInterval(h as NodeJS.Timeout),
  setTimeout: (fn, ms) => {
    const h = setTimeout(fn, ms);
    h.unref();
    return h;
  },
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
};

export class FollowLoop {
  private readonly timers: LoopTimers;
  private readonly poller: unknown;
  private readonly watchers: { close(): void }[] = [];
  private debounce: unknown;
  private looking = false;
  private again = false;
  private stopped = false;
  /** Looks run so far (tests and the bench count them). */
  looks = 0;

  constructor(
    private readonly follower: SessionFollower,
    private readonly onUpdate: (update: FollowUpdate) => void,
    options: FollowLoopOptions = {},
  ) {
    this.timers = options.timers ?? realTimers;
    const watch = options.watch === undefined ? watchFolder : options.watch;
    const debounceMs = options.debounceMs ?? DEFAULT_DEBOUNCE_MS;
    this.onError = options.onError;
    if (watch) {
      const names = new Map<string, Set<string>>();
      for (const path of follower.files) {
        const folder = dirname(path);
        const set = names.get(folder) ?? new Set<string>();
        set.add(basename(path));
        names.set(folder, set);
      }
      for (const [folder, set] of names) {
        const w = watch(folder, (name) => {
          if (name === null || set.has(name)) this.soon(debounceMs);
        });
        if (w) this.watchers.push(w);
      }
    }
    this.poller = this.timers.setInterval(() => void this.trigger(), options.pollMs ?? DEFAULT_POLL_MS);
  }

  private readonly onError: ((e: unknown) => void) | undefined;

  /** A watch event: one look after `ms`, however many events come meanwhile. */
  private soon(ms: number): void {
    if (this.stopped || this.debounce !== undefined) return;
    this.debounce = this.timers.setTimeout(() => {
      this.debounce = undefined;
      void this.trigger();
    }, ms);
  }

  /** Looks now (or right after the look in progress). Resolves when the looks it caused are done. */
  trigger(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (this.looking) {
      this.again = true;
      return Promise.resolve();
    }
    this.looking = true;
    return this.run();
  }

  private async run(): Promise<void> {
    try {
      do {
        this.again = false;
        this.looks++;
        let update: FollowUpdate | undefined;
        try {
          update = await this.follower.look();
        } catch (e) {
          this.onError?.(e);
        }
        if (update && !this.stopped) this.onUpdate(update);
      } while (this.again && !this.stopped);
    } finally {
      this.looking = false;
    }
  }

  /** Stops watching and polling; the follower is the caller's to close. */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.timers.clearInterval(this.poller);
    if (this.debounce !== undefined) this.timers.clearTimeout(this.debounce);
    for (const w of this.watchers) w.close();
  }
}
