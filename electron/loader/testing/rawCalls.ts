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

/** What a file states it hid from the calls after `line`: `bytes` of the original (SPEC §4 hidden_bytes). */
export interface RawHiding {
  line: number;
  bytes: number;
}

const utf8 = (s: string): number => Buffer.byteLength(s, 'utf8');

/**
 * What a Claude Code transcript hides, read from its raw lines, for the files whose only reduction
 * is one compaction (docs/FORMATS.md §1.5): from its `compact_boundary` on, the model is given the
 * summary in place of every message before it, whose original is their §3.5 transcript
 * (`⟨role[ id]⟩\n` + content + `\n` each): a user string or its text blocks, an API response's text
 * blocks (one `message.id`) joined by newlines, a `tool_result`'s text under its `tool_use_id`.
 * Read for a file whose records before the compaction are one branch (no rewind, no sidechain).
 * Throws on a file that holds another kind of reduction (a microcompaction, a persisted output).
 */
export function rawClaudeCodeHiding(path: string): RawHiding[] {
  const all = jsonLines(path);
  const text = readFileSync(path, 'utf8');
  if (text.includes('microcompact_boundary') || text.includes('<persisted-output>')) throw new Error(`${path}: holds reductions other than compactions`);
  const boundaries = all.filter(({ rec }) => rec.type === 'system' && rec.subtype === 'compact_boundary');
  if (boundaries.length > 1) throw new Error(`${path}: more than one compaction`);
  const boundary = boundaries[0];
  if (!boundary) return [];
  const texts = (content: unknown): string | undefined =>
    typeof content === 'string' ? content : Array.isArray(content) ? content.flatMap((b) => (isObj(b) && b.type === 'text' && typeof b.text === 'string' ? [b.text] : [])).join('\n') : undefined;
  const transcript = (head: string, content: string): string => `\u27E8${head}\u27E9\n${content}\n`;
  const responses = new Map<string, string[]>();
  let bytes = 0;
  for (const { line, rec } of all) {
    if (line >= boundary.line || rec.isSidechain === true) continue;
    const message = isObj(rec.message) ? rec.message : {};
    const blocks: unknown[] = Array.isArray(message.content) ? message.content : [];
    if (rec.type === 'assistant') {
      const id = str(message.id) ?? `line ${line}`;
      responses.set(id, [...(responses.get(id) ?? []), ...blocks.flatMap((b) => (isObj(b) && b.type === 'text' && typeof b.text === 'string' ? [b.text] : []))]);
    } else if (rec.type === 'user') {
      for (const b of blocks) if (isObj(b) && b.type === 'tool_result') bytes += utf8(transcript(`tool ${str(b.tool_use_id) ?? ''}`, texts(b.content) ?? ''));
      const own = typeof message.content === 'string' ? message.content : texts(blocks.filter((b) => !(isObj(b) && b.type === 'tool_result')));
      if (own !== undefined && (typeof message.content === 'string' || own !== '')) bytes += utf8(transcript('user', own));
    }
  }
  // The order of the messages does not change the size of their transcript.
  for (const parts of responses.values()) bytes += utf8(transcript('assistant', parts.join('\n')));
  return [{ line: boundary.line, bytes }];
}

/**
 * What a Codex rollout hides, read from its raw lines, for the files whose only reductions are
 * outputs the tool cut before they were recorded (docs/FORMATS.md §2.10): an output whose header
 * states `Original token count: N` and which holds a `…M tokens truncated…` marker hid N × 4 bytes
 * (Codex's 4 bytes a token; the model was given the cut text, the stub) from the calls after its
 * line. Throws on a file that holds a compaction.
 */
export function rawCodexHiding(path: string): RawHiding[] {
  const found: RawHiding[] = [];
  for (const { line, rec } of jsonLines(path)) {
    if (rec.type === 'compacted') throw new Error(`${path}: holds a compaction`);
    const p = isObj(rec.payload) ? rec.payload : {};
    if (rec.type !== 'response_item' || typeof p.output !== 'string' || !/…\d+ tokens truncated…/.test(p.output)) continue;
    const header = /^Original token count: (\d+)$/m.exec(p.output);
    if (!header) throw new Error(`${path} line ${line}: a cut output without its header`);
    found.push({ line, bytes: Number(header[1]) * 4 });
  }
  return found;
}

// ---------------------------------------------------------------------------------------------
// Recorded usage (SPEC §15, docs/tokens.md "Recorded usage"), read from the raw records

/** What a file records of one call's usage: the context (every input token, cache included) and the window, when stated. */
export interface RawUsage {
  context: number;
  window?: number;
}

const num = (v: unknown): number => (typeof v === 'number' ? v : 0);

/**
 * Each Claude Code call's usage, by its line (rawClaudeCodeCalls): the `message.usage` of the last
 * line of its `message.id` on the live branch (output grows while a response streams; the input
 * counts are the same on every line), its context `input_tokens + cache_creation_input_tokens +
 * cache_read_input_tokens` (Anthropic's input count leaves the cache out).
 */
export function rawClaudeCodeUsage(path: string): Map<number, RawUsage> {
  const calls = rawClaudeCodeCalls(path);
  const lines = jsonLines(path);
  const out = new Map<number, RawUsage>();
  for (const call of calls) {
    let usage: Obj | undefined;
    for (const { rec } of lines) {
      const message = isObj(rec.message) ? rec.message : {};
      if (rec.type === 'assistant' && message.id === call.id && isObj(message.usage)) usage = message.usage;
    }
    if (usage) out.set(call.line, { context: num(usage.input_tokens) + num(usage.cache_creation_input_tokens) + num(usage.cache_read_input_tokens) });
  }
  return out;
}

/**
 * Each Codex call's usage, by the line of its response (rawResponses' rule, passed in as `responses`):
 * the `last_token_usage` of a `token_count` event whose `info` is not null and whose cumulative
 * totals differ from the event before (Codex repeats an event with the same totals). The event
 * that follows a response's output items (other events between them aside) counts that response
 * (newer rollouts); any other counts the next response that starts after it, if no other count
 * comes first (0.40 writes the count before the items). The context is `input_tokens` (cached
 * tokens are a part of it), the window `model_context_window`.
 */
export function rawCodexUsage(path: string, responses: readonly number[]): Map<number, RawUsage> {
  const out = new Map<number, RawUsage>();
  const starts = new Set(responses);
  let lastTotals: string | undefined;
  let lastItem: { line: number; output: boolean; response?: number } = { line: 0, output: false };
  let response: number | undefined;
  let pending: RawUsage | undefined;
  for (const { line, rec } of jsonLines(path)) {
    const p = isObj(rec.payload) ? rec.payload : {};
    if (starts.has(line)) {
      response = line;
      if (pending && !out.has(line)) out.set(line, pending);
      pending = undefined;
    }
    if (rec.type === 'response_item') {
      if (p.type === 'ghost_snapshot') continue;
      const output = ['reasoning', 'function_call', 'custom_tool_call', 'local_shell_call', 'tool_search_call', 'web_search_call', 'image_generation_call'].includes(String(p.type)) || (p.type === 'message' && p.role === 'assistant');
      lastItem = { line, output, ...(output && response !== undefined ? { response } : {}) };
    } else if (rec.type === 'turn_context' || rec.type === 'compacted' || rec.type === 'session_meta') lastItem = { line, output: false };
    else if (rec.type === 'event_msg' && p.type === 'token_count' && isObj(p.info) && isObj(p.info.last_token_usage)) {
      const totals = JSON.stringify(p.info.total_token_usage ?? null);
      if (totals === lastTotals) continue;
      lastTotals = totals;
      const usage: RawUsage = { context: num(p.info.last_token_usage.input_tokens), ...(typeof p.info.model_context_window === 'number' ? { window: p.info.model_context_window } : {}) };
      if (lastItem.output && lastItem.response !== undefined && !out.has(lastItem.response)) out.set(lastItem.response, usage);
      else pending = usage;
    }
  }
  return out;
}

/**
 * The recorded contexts of an Inspect sample's calls, in order: each `model` event whose output
 * message is one of the sample's `messages` (by `id`; without one, the event whose input is the
 * history before an assistant message) and whose `output.usage` is recorded. Before
 * Inspect 0.3.184 (`eval.packages.inspect_ai`) an OpenAI-family `input_tokens` includes the cached
 * tokens; from it on (and for Anthropic always) it excludes them: context = input_tokens +
 * input_tokens_cache_read + input_tokens_cache_write.
 */
export function rawInspectContexts(sample: unknown, version: string | undefined): number[] {
  if (!isObj(sample)) return [];
  const ids = new Set((Array.isArray(sample.messages) ? sample.messages : []).flatMap((m) => (isObj(m) && typeof m.id === 'string' ? [m.id] : [])));
  const transcript = isObj(sample.transcript) ? sample.transcript : {};
  const events: unknown[] = Array.isArray(sample.events) && sample.events.length > 0 ? sample.events : Array.isArray(transcript.events) ? transcript.events : [];
  const [major = 0, minor = 0, patch = 0] = (version ?? '9.9.9').split('.').map((x) => Number.parseInt(x, 10));
  const excludes = major > 0 || minor > 3 || (minor === 3 && patch >= 184);
  return events.flatMap((e) => {
    if (!isObj(e) || e.event !== 'model' || !isObj(e.output) || !isObj(e.output.usage)) return [];
    const choice: unknown = Array.isArray(e.output.choices) ? e.output.choices[0] : undefined;
    const id = isObj(choice) && isObj(choice.message) ? choice.message.id : undefined;
    // Without ids, the call whose input is the history before an assistant message produced it.
    const next: unknown = Array.isArray(e.input) && Array.isArray(sample.messages) ? sample.messages[e.input.length] : undefined;
    if (typeof id === 'string' ? !ids.has(id) : !(isObj(next) && next.role === 'assistant')) return [];
    const u = e.output.usage;
    const anthropic = typeof e.model === 'string' && /anthropic|claude/i.test(e.model);
    return [excludes || anthropic ? num(u.input_tokens) + num(u.input_tokens_cache_read) + num(u.input_tokens_cache_write) : num(u.input_tokens)];
  });
}

/**
 * Each OpenHands V0 call's usage, by its line (rawOpenHandsCalls): the LiteLLM usage of its
 * response (`tool_call_metadata.model_response.usage`), whose `prompt_tokens` counts every input
 * token, cache hits and writes included.
 */
export function rawOpenHandsUsage(path: string): Map<number, RawUsage> {
  const doc = jsonDocument(path);
  const out = new Map<number, RawUsage>();
  if (!Array.isArray(doc)) return out;
  for (const line of rawOpenHandsCalls(path) ?? []) {
    const e: unknown = doc[line - 1];
    const metadata = isObj(e) && isObj(e.tool_call_metadata) ? e.tool_call_metadata : undefined;
    const response = metadata && isObj(metadata.model_response) ? metadata.model_response : undefined;
    if (response && isObj(response.usage) && typeof response.usage.prompt_tokens === 'number') out.set(line, { context: response.usage.prompt_tokens });
  }
  return out;
}

/**
 * The recorded contexts of a V1 OpenHands conversation (docs/FORMATS.md C6), from its files: each
 * call of `rawOpenHandsCalls` (its first event's line) with the `prompt_tokens` and
 * `context_window` of the `base_state.json` `token_usages` entry whose `response_id` is that
 * event's `llm_response_id`.
 */
export function rawOpenHandsV1Usage(baseState: string): Map<number, RawUsage> {
  const out = new Map<number, RawUsage>();
  const dir = join(baseState, '../events');
  const events = readdirSync(dir)
    .filter((n) => /^event-\d+.*\.json$/.test(n))
    .sort()
    .map((n) => jsonDocument(join(dir, n)));
  const state = jsonDocument(baseState);
  const byResponse = new Map<string, Obj>();
  const metrics = isObj(state) && isObj(state.stats) && isObj(state.stats.usage_to_metrics) ? Object.values(state.stats.usage_to_metrics) : [];
  for (const m of metrics) if (isObj(m) && Array.isArray(m.token_usages)) for (const u of m.token_usages) if (isObj(u) && typeof u.response_id === 'string') byResponse.set(u.response_id, u);
  for (const line of rawOpenHandsCalls(baseState) ?? []) {
    const e = events[line - 1];
    const u = isObj(e) ? byResponse.get(String(e.llm_response_id)) : undefined;
    if (u && typeof u.prompt_tokens === 'number') out.set(line, { context: u.prompt_tokens, ...(typeof u.context_window === 'number' ? { window: u.context_window } : {}) });
  }
  return out;
}

/**
 * The recorded contexts of a mini-swe-agent trajectory (docs/FORMATS.md C5): each assistant message
 * of the saved state's `messages` (line = its position + 1) with the `prompt_tokens` of its
 * `extra.response.usage` (LiteLLM's OpenAI shape: the cached tokens are a part of it). 1.x files and
 * the bare lists record none.
 */
export function rawMiniUsage(path: string): Map<number, RawUsage> {
  const out = new Map<number, RawUsage>();
  const doc = jsonDocument(path);
  const messages = isObj(doc) && Array.isArray(doc.messages) ? doc.messages : [];
  messages.forEach((m: unknown, i) => {
    const response = isObj(m) && m.role === 'assistant' && isObj(m.extra) && isObj(m.extra.response) ? m.extra.response : undefined;
    if (response && isObj(response.usage) && typeof response.usage.prompt_tokens === 'number') out.set(i + 1, { context: response.usage.prompt_tokens });
  });
  return out;
}

/**
 * A Claude Code file's text with each record's `message.usage` edited: `edit` gets a copy and
 * returns the usage to write, or undefined to leave it out. Lines that are not records are kept.
 */
export function editedClaudeCodeUsage(path: string, edit: (usage: Record<string, number>) => Record<string, number> | undefined): string {
  return readFileSync(path, 'utf8')
    .split('\n')
    .map((line) => {
      if (line.trim() === '') return line;
      const rec = JSON.parse(line) as { message?: { usage?: Record<string, number> } };
      const u = rec.message?.usage;
      if (!u || typeof u !== 'object') return line;
      const next = edit({ ...u });
      if (next === undefined) delete rec.message!.usage;
      else rec.message!.usage = next;
      return JSON.stringify(rec);
    })
    .join('\n');
}

/** The usage with its context's parts (input, cache read, cache write) times `factor`. */
export function scaledContext(factor: number): (usage: Record<string, number>) => Record<string, number> {
  return (usage) => {
    for (const key of ['input_tokens', 'cache_read_input_tokens', 'cache_creation_input_tokens']) if (typeof usage[key] === 'number') usage[key] = factor * usage[key];
    return usage;
  };
}
