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
 *   the head of each candidate (HEAD_BYTES) is read to check, for at most MAX_BESIDE candidates,
 *   once per state of the folder (./besideAgents.ts).
 */
import { basename, dirname, join } from 'node:path';
import { listWithin } from '../common/safeRead';
import type { RefusedCompanion, SubagentFile } from './besideAgents';
import { BesideAgents, headSessionId } from './besideAgents';

const AGENT_FILE = /^agent-([^/\\]+)\.jsonl$/;

/** The 2.0.x agents of the folders looked into, kept while their folder stays as it was (./besideAgents.ts). */
const beside = new BesideAgents();

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
  if (sessionId !== undefined && sessionId !== '') found.push(...beside.of(dirname(path), sessionId, roots, refused));
  const seen = new Set<string>();
  return { files: found.filter((a) => !seen.has(a.id) && seen.add(a.id)), refused };
}
