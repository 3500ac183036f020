/**
 * Claude Code 2.0.x agent files (`agent-<hex>.jsonl`) beside the sessions of a project folder, by the
 * session whose `sessionId` their head names (docs/FORMATS.md §1.9). A folder holds the agents of
 * every session in it, so finding one session's agents reads the head of every candidate: a library
 * indexing the folder's N sessions would read its M heads N times. What a folder's heads name is
 * therefore kept per state of the folder (docs/library.md "2.0.x agent files, read once per
 * folder"):
 *
 * - kept under the folder's real path, device, inode, mtime and ctime, and the roots it was read
 *   within: a file added, removed, renamed or replaced in the folder changes its mtime and ctime;
 * - used again only when the folder's mtime was at least RACY_MS older than the moment it was
 *   listed (a file added in the same clock tick as the listing leaves the mtime as it was);
 * - a candidate whose head named a session is kept; any other (empty, still being written, not a
 *   transcript, refused) is looked at again at each lookup;
 * - at most MEMO_FOLDERS folders, the least recently used dropped first.
 */
import type { Stats } from 'node:fs';
import { closeSync, readSync } from 'node:fs';
import { join } from 'node:path';
import type { Refused } from '../common/safeRead';
import { folderWithin, namesIn, openWithin } from '../common/safeRead';

export interface SubagentFile {
  /** The session id `--session` takes. */
  id: string;
  path: string;
}

/** A companion file or folder that was not read (safeRead.ts), and why. */
export interface RefusedCompanion {
  path: string;
  refused: string;
}

/** Bytes read from the head of a 2.0.x candidate: the envelope (with `sessionId`) precedes the message. */
export const HEAD_BYTES = 4096;
/** 2.0.x candidates looked at, at most (so at most MAX_BESIDE × HEAD_BYTES bytes read to list them). */
export const MAX_BESIDE = 2048;
/** A folder modified less than this before it was listed is listed again at the next lookup. */
export const RACY_MS = 2000;
/** Folders whose agents are kept, at most. */
const MEMO_FOLDERS = 16;

const BESIDE_FILE = /^agent-([0-9a-f]{6,40})\.jsonl$/i;

/** Reads the head of a candidate: its text, or why not (`missing` when it is gone). */
export type HeadReader = (path: string, roots: readonly string[]) => string | Refused;

/** The first `HEAD_BYTES` of a file as text (safeRead.ts: a regular file inside `roots`, non-blocking), or why not. */
export function readHead(path: string, roots: readonly string[]): string | Refused {
  const opened = openWithin(path, roots);
  if ('refused' in opened) return opened;
  try {
    const buf = Buffer.alloc(Math.min(HEAD_BYTES, opened.size));
    const n = readSync(opened.fd, buf, 0, buf.length, 0);
    return buf.subarray(0, n).toString('utf8');
  } catch (e) {
    return { refused: (e as Error).message };
  } finally {
    try {
      closeSync(opened.fd);
    } catch {
      // Closing a descriptor opened for reading cannot lose anything.
    }
  }
}

/**
 * The `sessionId` a Claude Code file's head names: the first whole line's, else (a first line longer
 * than the head) the first `"sessionId":"…"` of the envelope. Undefined when there is none.
 */
export function headSessionId(text: string): string | undefined {
  const lines = text.split('\n');
  for (let i = 0; i < lines.length - 1 && i < 20; i++) {
    try {
      const v: unknown = JSON.parse(lines[i]!);
      if (typeof v === 'object' && v !== null && typeof (v as { sessionId?: unknown }).sessionId === 'string') return (v as { sessionId: string }).sessionId;
    } catch {
      continue;
    }
  }
  return /^\{[^\n]*?"sessionId":"([^"\\\n]*)"/.exec(lines[0] ?? '')?.[1];
}

interface Candidate {
  /** The agent id (the hex of its name). */
  id: string;
  path: string;
  /** The session its head names, once it names one. */
  session?: string;
}

interface Kept {
  key: string;
  /** The folder's mtime was RACY_MS or more before it was listed: what the listing found can be used again while the key holds. */
  settled: boolean;
  /** The first MAX_BESIDE candidates, in name order. */
  candidates: Candidate[];
}

const keyOf = (real: string, stats: Stats, roots: readonly string[]): string => [real, stats.dev, stats.ino, stats.mtimeMs, stats.ctimeMs, ...roots].join('\u0000');

/** The 2.0.x agents of project folders, each folder's heads read once per state of the folder. */
export class BesideAgents {
  private readonly kept = new Map<string, Kept>();

  constructor(private readonly head: HeadReader = readHead) {}

  /**
   * The agent files in `dir` whose head names `sessionId`, in name order; candidates and a folder
   * that could not be read are added to `refused` (a candidate simply gone is not).
   */
  of(dir: string, sessionId: string, roots: readonly string[], refused: RefusedCompanion[]): SubagentFile[] {
    const folder = folderWithin(dir, roots);
    if (!('real' in folder)) {
      if ('refused' in folder) refused.push({ path: dir, refused: folder.refused });
      return [];
    }
    const key = keyOf(folder.real, folder.stats, roots);
    let entry = this.kept.get(dir);
    if (entry === undefined || entry.key !== key || !entry.settled) {
      const settled = Date.now() - folder.stats.mtimeMs >= RACY_MS;
      const listed = namesIn(folder.real);
      if ('refused' in listed) {
        refused.push({ path: dir, refused: listed.refused });
        this.kept.delete(dir);
        return [];
      }
      const names = listed.names
        .filter((n) => BESIDE_FILE.test(n))
        .sort()
        .slice(0, MAX_BESIDE);
      entry = { key, settled, candidates: names.map((n) => ({ id: BESIDE_FILE.exec(n)![1]!, path: join(dir, n) })) };
    }
    this.kept.delete(dir);
    this.kept.set(dir, entry);
    while (this.kept.size > MEMO_FOLDERS) this.kept.delete(this.kept.keys().next().value as string);
    const found: SubagentFile[] = [];
    for (const c of entry.candidates) {
      if (c.session === undefined) {
        const h = this.head(c.path, roots);
        if (typeof h !== 'string') {
          if (h.missing !== true) refused.push({ path: c.path, refused: h.refused });
          continue;
        }
        const named = headSessionId(h);
        if (named === undefined) continue;
        c.session = named;
      }
      if (c.session === sessionId) found.push({ id: c.id, path: c.path });
    }
    return found;
  }
}
