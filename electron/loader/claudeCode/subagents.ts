/**
 * Where a Claude Code session's subagent transcripts are (docs/FORMATS.md §1.1 and docs/FORMATS.md §1.9), read-only. Three
 * layouts, each a further session of the file:
 *
 * - 2.1.x: `<dir>/<stem>/subagents/agent-<agentId>.jsonl`; id = agentId.
 * - workflow subagents: `<dir>/<stem>/subagents/workflows/<wf_id>/agent-<agentId>.jsonl` (beside a
 *   `journal.jsonl`, which is not a session); id = `workflows/<wf_id>/<agentId>`. A plain
 *   subagent's id is part of one file name and so never holds a `/`: the two cannot collide.
 * - 2.0.x: `<dir>/agent-<hex>.jsonl` beside the session file, in a project folder that holds the
 *   agents of every session. Only those whose records name this session's `sessionId` belong to it:
 *   the head of each candidate (HEAD_BYTES) is read to check, for at most MAX_BESIDE candidates.
 */
import { closeSync, readSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { listWithin, openWithin } from '../common/safeRead';

export interface SubagentFile {
  /** The session id `--session` takes. */
  id: string;
  path: string;
}

/** Bytes read from the head of a 2.0.x candidate: the envelope (with `sessionId`) precedes the message. */
export const HEAD_BYTES = 4096;
/** 2.0.x candidates looked at, at most (so at most MAX_BESIDE × HEAD_BYTES bytes read to list them). */
export const MAX_BESIDE = 2048;

const AGENT_FILE = /^agent-([^/\\]+)\.jsonl$/;
const BESIDE_FILE = /^agent-([0-9a-f]{6,40})\.jsonl$/i;

/** A companion file or folder that was not read (safeRead.ts), and why. */
export interface RefusedCompanion {
  path: string;
  refused: string;
}

const byId = (a: SubagentFile, b: SubagentFile): number => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** The names in `dir` when it resolves inside `roots`; a folder that does not is noted in `refused` and lists nothing. */
function list(dir: string, roots: readonly string[], refused: RefusedCompanion[]): string[] {
  const listed = listWithin(dir, roots);
  if ('names' in listed) return listed.names;
  if ('refused' in listed) refused.push({ path: dir, refused: listed.refused });
  return [];
}

function agentsIn(dir: string, prefix: string, roots: readonly string[], refused: RefusedCompanion[]): SubagentFile[] {
  return list(dir, roots, refused)
    .map((n) => AGENT_FILE.exec(n))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ id: `${prefix}${m[1]!}`, path: join(dir, m[0]) }));
}

/** The first `HEAD_BYTES` of a file as text (safeRead.ts: a regular file inside `roots`, non-blocking), or why not. */
function head(path: string, roots: readonly string[]): string | { refused: string; missing?: true } {
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

/** The session id of a transcript's text: the first record's that names one (the whole text is not parsed). */
export function transcriptSessionId(text: string): string | undefined {
  let start = 0;
  for (let k = 0; k < 50 && start < text.length; k++) {
    const nl = text.indexOf('\n', start);
    const line = text.slice(start, nl < 0 ? text.length : nl);
    start = nl < 0 ? text.length : nl + 1;
    const id = headSessionId(`${line}\n`);
    if (id !== undefined) return id;
  }
  return undefined;
}

/** The session id of a transcript already parsed: the first of its first 50 records that names one. */
function parsedSessionId(records: readonly Record<string, unknown>[]): string | undefined {
  return records.slice(0, 50).map((r) => r.sessionId).find((id): id is string => typeof id === 'string');
}

/**
 * Every subagent transcript of the session file at `path` whose text is `text`, sorted by id within
 * each layout: 2.1.x, then workflow, then 2.0.x. An id found twice keeps its first file. Folders
 * and 2.0.x candidates are looked at only inside `roots` (docs/safe-reads.md); those refused are
 * `refused`, with why.
 */
export function subagentFiles(path: string, text: string | { readonly records: readonly Record<string, unknown>[] }, roots: readonly string[]): { files: SubagentFile[]; refused: RefusedCompanion[] } {
  const refused: RefusedCompanion[] = [];
  const stem = basename(path).replace(/\.jsonl$/, '');
  const sub = join(dirname(path), stem, 'subagents');
  const found = agentsIn(sub, '', roots, refused).sort(byId);
  const workflows = list(join(sub, 'workflows'), roots, refused).filter((wf) => !wf.includes('/') && !wf.includes('\\'));
  found.push(...workflows.flatMap((wf) => agentsIn(join(sub, 'workflows', wf), `workflows/${wf}/`, roots, refused)).sort(byId));
  // A 2.0.x agent file opened on its own is not the parent of its siblings.
  const sessionId = AGENT_FILE.test(basename(path)) ? undefined : typeof text === 'string' ? transcriptSessionId(text) : parsedSessionId(text.records);
  if (sessionId !== undefined && sessionId !== '') {
    const candidates = list(dirname(path), roots, refused)
      .filter((n) => BESIDE_FILE.test(n))
      .sort()
      .slice(0, MAX_BESIDE);
    const beside: SubagentFile[] = [];
    for (const n of candidates) {
      const h = head(join(dirname(path), n), roots);
      if (typeof h !== 'string') {
        if (h.missing !== true) refused.push({ path: join(dirname(path), n), refused: h.refused });
        continue;
      }
      if (headSessionId(h) === sessionId) beside.push({ id: BESIDE_FILE.exec(n)![1]!, path: join(dirname(path), n) });
    }
    found.push(...beside);
  }
  const seen = new Set<string>();
  return { files: found.filter((a) => !seen.has(a.id) && seen.add(a.id)), refused };
}
