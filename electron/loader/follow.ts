/**
 * Live sessions (SPEC §13): a session whose files grow while it is open is followed. The sources a
 * live load keeps open (loadLive) are indexed on from the last complete line at every `look`; the
 * session is then resolved again over everything indexed. Nothing is ever written.
 *
 * Per file, a look decides between:
 * - nothing changed (same inode, size, times, fingerprint) — only the fingerprint is read;
 * - appended: same file, no shorter than indexed, the indexed prefix's fingerprint (its first and
 *   last FINGERPRINT_BYTES) unchanged — only the new bytes are indexed, complete lines only;
 * - anything else (shrunk, replaced, prefix rewritten, a whole-document file such as a snapshot
 *   rewritten) — the session is reopened from scratch, with a notice;
 * - deleted (or no longer readable) — what is shown stays, with a notice; a file that appears again
 *   at the path is reopened.
 *
 * The torn last line rule: a last line without its newline waits while the file grows. It is
 * indexed (as `truncated_last_line`) once the file has stopped growing: at open (a file opened
 * torn may be a crashed writer's), when its bytes have not changed for `settleMs`, or at `settle()`.
 * A torn line taken that way and completed later reopens the session (a pass never takes a line
 * back). Invariant: after a look over a file that ends with a newline, or after `settle()`, the
 * session equals a fresh open of the files as they are (follow.test.ts checks it over random
 * append schedules).
 */
import { createHash } from 'node:crypto';
import type { BigIntStats } from 'node:fs';
import { statSync } from 'node:fs';
import type { LoadedSession } from '../../shared/index';
import { readExactly } from './common/lines';
import { osReason } from './common/osError';
import type { LiveSources, LoadOptions } from './session';
import { loadLive, resolveLive } from './session';
import type { LoadError, SessionSource } from './common/source';

/** The fingerprint of an indexed prefix: the hash of its first and of its last this many bytes. */
export const FINGERPRINT_BYTES = 4096;
/** A torn last line unchanged this long is taken as the file's last, truncated line. */
export const DEFAULT_SETTLE_MS = 2000;
const LF = 0x0a;
/** The least read buffer of a look's pass (a look that reads a few bytes still reads them in one go). */
const MIN_LOOK_CHUNK_BYTES = 64 * 1024;

export type FollowNoticeKind = 'reopened' | 'deleted';

/** Why the session was reopened from scratch, or that a file is gone (what is shown stays). */
export interface FollowNotice {
  kind: FollowNoticeKind;
  message: string;
}

/** What a look found: the session over what is now indexed, and a notice when it was reopened or a file is gone. */
export interface FollowUpdate {
  session: LoadedSession;
  notice?: FollowNotice;
}

export interface FollowOptions extends Omit<LoadOptions, 'onProgress' | 'onPreview' | 'signal'> {
  /** How long a torn last line must stay as it is before it is taken (default DEFAULT_SETTLE_MS). */
  settleMs?: number;
  /** The clock of the settle rule (tests drive it by hand). */
  now?: () => number;
}

/** A file's identity as stat tells it; a look reads nothing while it is the same. */
interface Seen {
  ino: bigint;
  dev: bigint;
  size: bigint;
  mtimeNs: bigint;
  ctimeNs: bigint;
}

/** What is known of one source since its last pass. */
interface Tracked {
  seen: Seen;
  /** The fingerprint of bytes [0, stop.offset). */
  fingerprint: string;
  /** The last pass took a last line without its newline. */
  tornTaken: boolean;
  /** A torn tail waiting: the file size it was seen at, and since when. */
  waiting?: { size: bigint; since: number };
}

function seenOf(s: BigIntStats): Seen {
  return { ino: s.ino, dev: s.dev, size: s.size, mtimeNs: s.mtimeNs, ctimeNs: s.ctimeNs };
}

function sameSeen(a: Seen, b: Seen): boolean {
  return a.ino === b.ino && a.dev === b.dev && a.size === b.size && a.mtimeNs === b.mtimeNs && a.ctimeNs === b.ctimeNs;
}

export class SessionFollower {
  private tracked: Tracked[] = [];
  private closed = false;
  /**
   * Set once a file is gone or could not be read again: reported once; every later look reopens
   * once something is at the path again that differs from what was last seen there.
   */
  private gone: { seen: Seen | undefined } | undefined;
  /** The look in progress: a look asked for meanwhile waits for it, then looks again. */
  private running: Promise<FollowUpdate | undefined> | undefined;
  private readonly now: () => number;
  private readonly settleMs: number;

  private constructor(
    private readonly paths: string[],
    private readonly options: FollowOptions,
    private live: LiveSources,
    private current: LoadedSession,
  ) {
    this.now = options.now ?? (() => performance.now());
    this.settleMs = options.settleMs ?? DEFAULT_SETTLE_MS;
    this.tracked = this.track(live);
  }

  /** Opens `paths` as loadSession does, to be followed; `first` tunes only this first open. */
  static async open(paths: string[], options: FollowOptions = {}, first: Pick<LoadOptions, 'onProgress' | 'onPreview' | 'signal'> = {}): Promise<{ ok: true; follower: SessionFollower } | { ok: false; error: LoadError }> {
    // Progress, preview and cancellation are the first open's; a reopen is quiet.
    const loaded = await loadLive(paths, { ...options, ...first });
    if (!loaded.ok) return loaded;
    return { ok: true, follower: new SessionFollower([...paths], options, loaded.live, loaded.session) };
  }

  /** The session over everything indexed so far. */
  get session(): LoadedSession {
    return this.current;
  }

  /** The files followed, as opened (a snapshot's sibling sidecar included). */
  get files(): readonly string[] {
    return this.live.sources.map((s) => s.file.path);
  }

  /**
   * One look at the files: indexes what was appended, reopens what changed otherwise; undefined
   * when nothing changed. Never throws for a file's sake (an I/O error makes a `deleted` notice).
   */
  look(): Promise<FollowUpdate | undefined> {
    return this.serial(() => this.lookOnce(false));
  }

  /** A look that takes a torn last line now (the file has stopped growing: the follow ends, or `check` without `--follow`). */
  settle(): Promise<FollowUpdate | undefined> {
    return this.serial(() => this.lookOnce(true));
  }

  /** Closes the files; later looks answer undefined. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.current.close();
    for (const s of this.live.opened) s.close();
  }

  private serial(body: () => Promise<FollowUpdate | undefined>): Promise<FollowUpdate | undefined> {
    const before = this.running ?? Promise.resolve(undefined);
    const next = before.then(body, body).finally(() => {
      if (this.running === next) this.running = undefined;
    });
    this.running = next;
    return next;
  }

  private track(live: LiveSources): Tracked[] {
    return live.sources.map((source, k) => {
      const offset = live.stops[k]?.offset ?? 0;
      let seen: Seen;
      try {
        seen = seenOf(statSync(source.file.path, { bigint: true }));
      } catch {
        // Gone since it was indexed: the next look says so.
        seen = { ino: -1n, dev: -1n, size: -1n, mtimeNs: -1n, ctimeNs: -1n };
      }
      return { seen, fingerprint: this.fingerprint(source, offset), tornTaken: source.appends === true && this.endsTorn(source, offset) };
    });
  }

  private fingerprint(source: SessionSource, offset: number): string {
    if (source.appends !== true) return '';
    const h = createHash('sha256');
    const headLength = Math.min(offset, FINGERPRINT_BYTES);
    const head = readExactly(source.file.fd, 0, headLength, this.live.pass.read);
    const tailStart = Math.max(0, offset - FINGERPRINT_BYTES);
    const tail = readExactly(source.file.fd, tailStart, offset - tailStart, this.live.pass.read);
    if (!head || !tail) return 'unreadable';
    h.update(head).update(tail);
    return h.digest('hex');
  }

  /** True when the byte before `offset` is not a newline: the pass that stopped there took a torn line. */
  private endsTorn(source: SessionSource, offset: number): boolean {
    if (offset === 0) return false;
    const last = readExactly(source.file.fd, offset - 1, 1, this.live.pass.read);
    return last !== undefined && last[0] !== LF;
  }

  private async lookOnce(final: boolean): Promise<FollowUpdate | undefined> {
    if (this.closed || this.live.stopped) return undefined;
    let grew = false;
    for (const [k, source] of this.live.sources.entries()) {
      const t = this.tracked[k] as Tracked;
      const path = source.file.path;
      let now: Seen;
      try {
        now = seenOf(statSync(path, { bigint: true }));
      } catch (e) {
        if (this.gone !== undefined) return undefined;
        this.gone = { seen: undefined };
        // The descriptor still reads what was indexed: the session goes on serving it.
        this.current = resolveLive(this.live, this.closer(), true);
        return { session: this.current, notice: { kind: 'deleted', message: `${path} was deleted or can no longer be read (${osReason(e)}): what was read from it is still shown` } };
      }
      if (this.gone !== undefined) {
        const last = this.gone.seen;
        return last !== undefined && sameSeen(now, last) ? undefined : this.reopen(`${path} is back`);
      }
      if (now.ino !== t.seen.ino || now.dev !== t.seen.dev) return this.reopen(`${path} was replaced by another file`);
      const stop = this.live.stops[k] as { offset: number; line: number };
      const changed = !sameSeen(now, t.seen);
      if (source.appends !== true) {
        if (changed) return this.reopen(`${path} was rewritten, and was read again`);
        continue;
      }
      const size = Number(now.size);
      if (size < stop.offset) return this.reopen(`${path} shrank from ${stop.offset} to ${size} bytes`);
      // Always compared (two reads of 4 KiB): a same-size rewrite within one tick of a coarse ctime clock moves nothing stat shows.
      if (this.fingerprint(source, stop.offset) !== t.fingerprint) return this.reopen(`the ${stop.offset} bytes already read of ${path} changed`);
      if (t.tornTaken && size > stop.offset) return this.reopen(undefined);
      t.seen = now;
      if (size === stop.offset) continue;
      // Bytes past the last complete line: index the complete lines; a torn tail waits until it settles.
      const clock = this.now();
      if (t.waiting?.size !== now.size) t.waiting = { size: now.size, since: clock };
      const take = final || clock - t.waiting.since >= this.settleMs;
      // The read buffer is sized to what was appended (an append of 100 KB reads through 100 KB, not
      // the open's 1 MiB): a buffer per look is garbage outside the heap, and RSS grew with it.
      const chunkSize = Math.min(this.live.pass.chunkSize, Math.max(MIN_LOOK_CHUNK_BYTES, size - stop.offset));
      const passed = await source.indexTo(size, { ...this.live.pass, chunkSize, progress: { add: () => undefined }, final: take });
      if (this.closed) return undefined;
      if (passed.offset !== stop.offset) {
        grew = true;
        this.live.stops[k] = passed;
        t.fingerprint = this.fingerprint(source, passed.offset);
        t.tornTaken = this.endsTorn(source, passed.offset);
      }
      if (passed.offset >= size) t.waiting = undefined;
    }
    if (!grew) return undefined;
    this.current = resolveLive(this.live, this.closer());
    return { session: this.current };
  }

  /** The first file's identity now, if it can be seen (what a failed reopen waits to see change). */
  private seenNow(): Seen | undefined {
    const path = this.live.sources[0]?.file.path;
    try {
      return path === undefined ? undefined : seenOf(statSync(path, { bigint: true }));
    } catch {
      return undefined;
    }
  }

  /** The close of every session resolved over the current sources (idempotent: the worker closes only the one it shows). */
  private closer(): () => void {
    const live = this.live;
    return () => {
      for (const s of live.opened) s.close();
    };
  }

  /** Opens the files again from scratch; `why` undefined for a torn line completed (no notice: nothing went wrong). */
  private async reopen(why: string | undefined): Promise<FollowUpdate | undefined> {
    const loaded = await loadLive(this.paths, this.options);
    if (this.closed) {
      if (loaded.ok) loaded.session.close();
      return undefined;
    }
    if (!loaded.ok) {
      const reported = this.gone !== undefined;
      this.gone = { seen: this.seenNow() };
      if (reported) return undefined;
      return { session: this.current, notice: { kind: 'deleted', message: `${why ?? 'the file changed'}; it could not be read again (${loaded.error.message}): what was read is still shown` } };
    }
    for (const s of this.live.opened) s.close();
    this.live = loaded.live;
    this.current = loaded.session;
    this.gone = undefined;
    this.tracked = this.track(loaded.live);
    return why === undefined ? { session: this.current } : { session: this.current, notice: { kind: 'reopened', message: `${why}: the session was reopened from scratch` } };
  }
}
