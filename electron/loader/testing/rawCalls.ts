/**
 * The model calls a foreign file records, read from its own records with plain `JSON.parse` for the
 * tests (not through the importers): each rule is the format's fact in docs/FORMATS.md, written
 * again here from the file. A call is named by the "line" SPEC §11 gives it: the 1-based file line
 * of its first record (Claude Code), the 1-based position of its event (OpenHands), or the
 * position of its message in the recorded list (SWE-agent's `history`, where message i is line
 * i + 1).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** A file's JSON lines as records, with their 1-based line; a line that is not a JSON object holds none. */
function jsonLines(path: string): { line: number; rec: Obj }[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .flatMap((text, i) => {
      if (text.trim() === '') return [];
      try {
        const rec: unknown = JSON.parse(text);
        return isObj(rec) ? [{ line: i + 1, rec }] : [];
      } catch {
        return [];
      }
    });
}

/** One Claude Code API response on the live branch. */
export interface RawClaudeCall {
  /** Its `message.id`. */
  id: string;
  /** The first line of its records on the live branch. */
  line: number;
  /** Its `requestId`s: Claude Code's own account of the request that returned it. */
  requests: string[];
}

/**
 * The calls of a Claude Code transcript (docs/FORMATS.md §1.3–1.5): the live branch is the chain
 * of `parentUuid` from the last `user`/`assistant` record of the session (a sidechain is another
 * session; a file whose every message is a sidechain is a subagent's own), crossing a
 * `compact_boundary` through its `logicalParentUuid`. On it, each distinct `message.id` of an
 * `assistant` record is one API response, one call — except a message Claude Code wrote itself
 * (`model: "<synthetic>"`, e.g. "No response requested." after a local command), which no request
 * returned: it has no `requestId`.
 */
export function rawClaudeCodeCalls(path: string): RawClaudeCall[] {
  const all = jsonLines(path);
  const isMessage = (r: Obj): boolean => r.type === 'user' || r.type === 'assistant';
  const subagentFile = all.some(({ rec }) => isMessage(rec)) && all.every(({ rec }) => !isMessage(rec) || rec.isSidechain === true);
  const session = all.filter(({ rec }) => subagentFile || rec.isSidechain !== true);
  const byUuid = new Map<string, { line: number; rec: Obj }>();
  for (const r of session) {
    const uuid = str(r.rec.uuid);
    if (uuid !== undefined) byUuid.set(uuid, r);
  }
  const leaf = [...session].reverse().find(({ rec }) => isMessage(rec));
  const chain: { line: number; rec: Obj }[] = [];
  const seen = new Set<Obj>();
  for (let cur = leaf; cur && !seen.has(cur.rec); ) {
    seen.add(cur.rec);
    chain.unshift(cur);
    const parent = str(cur.rec.parentUuid) ?? (cur.rec.subtype === 'compact_boundary' ? str(cur.rec.logicalParentUuid) : undefined);
    cur = parent === undefined ? undefined : byUuid.get(parent);
  }
  const calls = new Map<string, RawClaudeCall>();
  for (const { line, rec } of chain) {
    const message = isObj(rec.message) ? rec.message : {};
    const id = str(message.id);
    if (rec.type !== 'assistant' || id === undefined || message.model === '<synthetic>') continue;
    const call = calls.get(id) ?? { id, line, requests: [] };
    calls.set(id, call);
    const request = str(rec.requestId);
    if (request !== undefined && !call.requests.includes(request)) call.requests.push(request);
  }
  return [...calls.values()];
}

/** The document of a JSON file, or undefined when it is not JSON (a torn file). */
function jsonDocument(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * The calls of a SWE-agent trajectory (docs/FORMATS.md §3): each `trajectory` step is one model
 * call, its `response` SWE-agent's record of what the model answered; `history` holds the
 * conversation, the k-th step's response as its k-th `assistant` message. SWE-agent does not add
 * the last step (the `submit`) to `history` in every version: a step history does not hold comes
 * after all of it; an item of another shape is no step. A `history` without steps is its own account. `mismatched` lists the steps whose
 * response is not the text of their history message (none, in a file read right).
 */
export function rawSweAgentCalls(path: string): { lines: number[]; mismatched: number[] } | undefined {
  const doc = jsonDocument(path);
  if (!isObj(doc)) return undefined;
  const history = Array.isArray(doc.history) ? doc.history : [];
  // A step is SWE-agent's TrajectoryStep: what the model answered (`response`, `thought`, `action`).
  const steps = (Array.isArray(doc.trajectory) ? doc.trajectory : []).filter((s) => isObj(s) && ['response', 'thought', 'action'].some((f) => f in s));
  const assistants = history.flatMap((m, i) => (isObj(m) && m.role === 'assistant' ? [i] : []));
  const textOf = (c: unknown): string | undefined => (typeof c === 'string' ? c : Array.isArray(c) ? c.map((p) => (isObj(p) ? (str(p.text) ?? '') : '')).join('') : undefined);
  const mismatched = steps.flatMap((s, k) => {
    const at = assistants[k];
    const m: unknown = at === undefined ? undefined : history[at];
    return isObj(s) && isObj(m) && str(s.response) !== undefined && s.response !== textOf(m.content) ? [k] : [];
  });
  const lines = assistants.map((i) => i + 1);
  for (let k = assistants.length; k < steps.length; k++) lines.push(history.length + 1 + (k - assistants.length));
  return { lines, mismatched };
}

/**
 * The calls of an OpenHands conversation (docs/FORMATS.md §6, docs/formats/openhands.md), by the
 * 1-based position of the event of each. V0 (one array): an agent action with
 * `tool_call_metadata` came from the model response `model_response.id` — the actions of one
 * response are one call —, an agent `message` action without it is a response of its own. V1 (a
 * folder): the `ActionEvent`s of one `llm_response_id` are one call, an agent `MessageEvent` one.
 * Events are read in file order (V1: the `events/` files by name).
 */
export function rawOpenHandsCalls(path: string): number[] | undefined {
  const v1 = path.endsWith('base_state.json');
  let events: unknown[];
  if (v1) {
    const dir = join(path, '../events');
    events = readdirSync(dir)
      .filter((n) => /^event-\d+.*\.json$/.test(n))
      .sort()
      .map((n) => jsonDocument(join(dir, n)));
  } else {
    const doc = jsonDocument(path);
    if (!Array.isArray(doc)) return undefined;
    events = doc;
  }
  const lines: number[] = [];
  const responses = new Set<string>();
  events.forEach((e, k) => {
    if (!isObj(e)) return;
    let response: string | undefined;
    let alone = false;
    if (v1) {
      const role = isObj(e.llm_message) ? e.llm_message.role : undefined;
      if (e.kind === 'ActionEvent') response = str(e.llm_response_id) ?? `event ${k}`;
      else alone = e.kind === 'MessageEvent' && role === 'assistant';
    } else if (e.source === 'agent' && typeof e.action === 'string') {
      const metadata = isObj(e.tool_call_metadata) ? e.tool_call_metadata : undefined;
      const modelResponse = metadata && isObj(metadata.model_response) ? str(metadata.model_response.id) : undefined;
      if (metadata) response = modelResponse ?? `event ${k}`;
      else alone = e.action === 'message';
    }
    if (response !== undefined && !responses.has(response)) {
      responses.add(response);
      lines.push(k + 1);
    } else if (alone) lines.push(k + 1);
  });
  return lines;
}
