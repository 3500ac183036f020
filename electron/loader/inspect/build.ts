/**
 * One Inspect AI sample (docs/FORMATS.md §5; checked against inspect_ai's writer, see
 * e2e/fixtures/real/inspect/README.md) as the three inputs of SPEC §3.2.
 *
 * - `messages` is the recorded copy and the minted view: the full history, message i at position
 *   i + 1 (SPEC §11's order; there are no lines in a sample). When the last main `model` event's
 *   output is not in `messages`, it ends the view.
 * - A `model` event whose output message is in the history (by message `id`, else by position and
 *   text) is a **main call**: its `input` (or `input_refs` into the sample's message pool) is what
 *   that call was given. Other model events (a compaction's own summary call, a scorer's) are side
 *   calls and are not aligned.
 * - Each main call's input is aligned to the history before its output: by `id`, then a tool
 *   result by `tool_call_id`, then positionally inside a gap of equal length. What differs is a
 *   reduction live from that call on: a history message given with other text →
 *   `tool_output_elided` (`tool_output_truncated` when a prefix was kept); a run of history messages
 *   not given at all → `summarized` when the input holds a message of its own in their place (its
 *   text is the stub), else `turns_cleared` (stub ''). So the projected view at each call is that
 *   call's recorded input, message for message (view --at N, SPEC §11).
 * - A reduction first seen at a call preceded (since the previous main call) by a `compaction`
 *   event of the matching type (summary → summarized, edit → tool_output_elided, trim →
 *   turns_cleared) is `recorded` with that event as its origin; else `derived`, its origin the
 *   model event. Either way `ptr.hash` is hashed at import.
 * - A `tool` event with `truncated: [raw_bytes, max_output]` cut its output before it was recorded:
 *   a `tool_output_truncated` reduction with `ptr.hash: null`, `ptr.bytes` = raw_bytes, kept 0 and
 *   the recorded text as the stub (the model saw exactly the message).
 * - `attachment://<hash>` strings are replaced by the sample's `attachments` everywhere.
 */
import type { ChatMessage, Finding, Reduction, ReductionKind, Role, ToolCall } from '../../../shared/format/types';
import { isPlainObject } from '../common/json';
import type { BuiltDocument } from '../common/documentSource';
import { commonPrefixBytes, hashOf } from '../common/textHash';
import type { CallTokens } from '../../../shared/tokens/usage';
import { additiveTokens, compactionTokens, openAiTokens } from '../../../shared/tokens/usage';
import { tableWindow } from '../../../shared/tokens/windows';
import type { Provider, RecordedRequest } from '../../../shared/export/providers';

type Obj = Record<string, unknown>;

const ROLES: readonly string[] = ['system', 'user', 'assistant', 'tool'];
const REASONING_PARTS: readonly string[] = ['reasoning', 'thinking', 'redacted_thinking'];
/** The reduction kind each compaction type produces. */
export const COMPACTION_KINDS: Readonly<Record<string, ReductionKind>> = { summary: 'summarized', edit: 'tool_output_elided', trim: 'turns_cleared' };

/** A sample's three inputs: the same shape as a trajectory's (one document, positions i + 1). */
export type BuiltSample = BuiltDocument;

/** The Inspect release from which `input_tokens` excludes cached tokens for every provider (docs/tokens.md). */
const INPUT_EXCLUDES_CACHE_FROM: readonly number[] = [0, 3, 184];

/** True when the log's Inspect version (`eval.packages.inspect_ai`) counts `input_tokens` without the cache for every provider; an unknown version is taken as current. */
export function inputExcludesCache(version: string | undefined): boolean {
  const parts = /^(\d+)\.(\d+)\.(\d+)/.exec(version ?? '');
  if (!parts) return true;
  for (let k = 0; k < 3; k++) {
    const a = Number(parts[k + 1]);
    const b = INPUT_EXCLUDES_CACHE_FROM[k] as number;
    if (a !== b) return a > b;
  }
  return true;
}

/**
 * A model event's `output.usage` (Inspect's ModelUsage) normalised (docs/tokens.md "Recorded
 * usage"): from 0.3.184 `input_tokens` excludes the cache for every provider; before, it did for
 * Anthropic only, and included the cached tokens for the others (OpenAI's own meaning).
 */
export function inspectTokens(usage: unknown, version: string | undefined, model: string | undefined): CallTokens | undefined {
  if (!isPlainObject(usage)) return undefined;
  const window = tableWindow(model);
  const anthropic = model !== undefined && /(^|\/)(anthropic\/|claude)/i.test(model);
  const counts = { read: usage.input_tokens_cache_read, write: usage.input_tokens_cache_write, output: usage.output_tokens, reasoning: usage.reasoning_tokens };
  if (inputExcludesCache(version) || anthropic) return additiveTokens({ fresh: usage.input_tokens, ...counts }, window);
  return openAiTokens({ input: usage.input_tokens, cached: counts.read, cacheWrite: counts.write, output: counts.output, reasoning: counts.reasoning }, window);
}

const ATTACHMENT = 'attachment://';

/** Sets `o[k]` as `JSON.parse` does: a key `__proto__` is a property of its own, not the prototype. */
function own(o: Obj, k: string, value: unknown): void {
  if (k === '__proto__') Object.defineProperty(o, k, { value, writable: true, enumerable: true, configurable: true });
  else o[k] = value;
}

/**
 * `v` with every `attachment://<hash>` string replaced by the sample's attachment; a missing one is
 * a finding, kept as is. `v` is not changed: a list or object holding a replaced string somewhere
 * below is a new one, and any other is `v`'s own (a sample's text mostly refers to no attachment,
 * and copying all of it was most of what its resolving allocated).
 */
export function resolveAttachments(v: unknown, attachments: Obj, missing: Set<string>): unknown {
  if (typeof v === 'string') {
    if (!v.startsWith(ATTACHMENT)) return v;
    const hash = v.slice(ATTACHMENT.length);
    const got = attachments[hash];
    if (typeof got === 'string') return got;
    missing.add(hash);
    return v;
  }
  if (Array.isArray(v)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < v.length; i++) {
      const x: unknown = v[i];
      const y = resolveAttachments(x, attachments, missing);
      if (out === undefined && y !== x) out = v.slice(0, i);
      out?.push(y);
    }
    return out ?? v;
  }
  if (isPlainObject(v)) {
    let out: Obj | undefined;
    const keys = Object.keys(v);
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i] as string;
      const x = v[k];
      const y = resolveAttachments(x, attachments, missing);
      if (out === undefined && y !== x) {
        out = {};
        for (let j = 0; j < i; j++) own(out, keys[j] as string, v[keys[j] as string]);
      }
      if (out !== undefined) own(out, k, y);
    }
    return out ?? v;
  }
  return v;
}

function toolCallsOf(v: unknown): ToolCall[] | undefined {
  if (!Array.isArray(v)) return undefined;
  const calls: ToolCall[] = [];
  for (const c of v) {
    if (!isPlainObject(c)) continue;
    const args = c.arguments;
    calls.push({ id: typeof c.id === 'string' ? c.id : '', name: typeof c.function === 'string' ? c.function : '', arguments: typeof args === 'string' ? args : (JSON.stringify(args ?? {}) ?? '{}') });
  }
  return calls.length > 0 ? calls : undefined;
}

/** An Inspect ChatMessage as a §3.3 message: text parts are the content, reasoning goes to metadata, other parts keep their type. */
export function messageOf(m: unknown, where: string, findings: Finding[] | undefined): ChatMessage {
  if (!isPlainObject(m)) {
    findings?.push({ code: 'unknown_record', severity: 'warning', message: `${where} is not an object; shown as its JSON` });
    return { role: 'user', content: JSON.stringify(m) ?? String(m) };
  }
  const known = typeof m.role === 'string' && ROLES.includes(m.role);
  if (!known) findings?.push({ code: 'unknown_record', severity: 'warning', message: `${where} has role ${JSON.stringify(m.role)}; shown as a user message` });
  const metadata: Obj = {};
  let content: string;
  const parts: { type: string; [k: string]: unknown }[] = [];
  if (typeof m.content === 'string') content = m.content;
  else if (Array.isArray(m.content)) {
    const texts: string[] = [];
    const reasoning: string[] = [];
    for (const p of m.content) {
      if (!isPlainObject(p)) continue;
      if (p.type === 'text' && typeof p.text === 'string') texts.push(p.text);
      else if (typeof p.type === 'string' && REASONING_PARTS.includes(p.type)) reasoning.push(typeof p.reasoning === 'string' ? p.reasoning : JSON.stringify(p));
      else parts.push({ ...p, type: typeof p.type === 'string' ? p.type : 'unknown' });
    }
    content = texts.join('\n');
    if (reasoning.length > 0) metadata.reasoning = reasoning.join('\n');
  } else {
    findings?.push({ code: 'unknown_record', severity: 'warning', message: `${where} has content that is neither a string nor a list of parts; shown as its JSON` });
    content = JSON.stringify(m.content) ?? '';
  }
  const msg: ChatMessage = { role: known ? (m.role as Role) : 'user', content };
  const calls = toolCallsOf(m.tool_calls);
  if (calls) msg.tool_calls = calls;
  if (typeof m.tool_call_id === 'string') msg.tool_call_id = m.tool_call_id;
  if (m.role === 'tool' && typeof m.function === 'string') msg.name = m.function;
  if (parts.length > 0) msg.content_parts = parts;
  if (typeof m.id === 'string') metadata.inspect_id = m.id;
  if (isPlainObject(m.error)) metadata.inspect_error = m.error;
  if (!known) metadata.inspect_role = m.role;
  if (Object.keys(metadata).length > 0) msg.metadata = metadata;
  return msg;
}

/** §3.5 transcript of a range: per message "⟨role[ tool_call_id]⟩\n" + content + "\n". */
function transcriptOf(msgs: readonly ChatMessage[]): string {
  return msgs.map((m) => `⟨${m.role}${m.tool_call_id ? ` ${m.tool_call_id}` : ''}⟩\n${m.content}\n`).join('');
}

const idOf = (m: ChatMessage): string | undefined => (typeof m.metadata?.inspect_id === 'string' ? m.metadata.inspect_id : undefined);

/** A model event's input: `input`, else `input_refs` ranges into the message pool. */
function inputOf(e: Obj, pool: readonly unknown[]): unknown[] | undefined {
  if (Array.isArray(e.input) && e.input.length > 0) return e.input as unknown[];
  if (Array.isArray(e.input_refs)) {
    const out: unknown[] = [];
    for (const r of e.input_refs) {
      if (!Array.isArray(r) || typeof r[0] !== 'number' || typeof r[1] !== 'number') return undefined;
      for (let i = r[0]; i < r[1]; i++) {
        if (i < 0 || i >= pool.length) return undefined;
        out.push(pool[i]);
      }
    }
    return out;
  }
  return Array.isArray(e.input) ? e.input : undefined;
}

function outputMessageOf(e: Obj): unknown {
  const out = e.output;
  if (!isPlainObject(out) || !Array.isArray(out.choices)) return undefined;
  const first: unknown = out.choices[0];
  return isPlainObject(first) ? first.message : undefined;
}

const eventName = (e: Obj, k: number): string => (typeof e.uuid === 'string' ? e.uuid : typeof e.id === 'string' && e.event !== 'tool' ? e.id : `events[${k}]`);

/** The three inputs of one parsed sample (`mayReferAttachments` false: its text holds no attachment reference). Never throws. */
export function buildSample(raw: Obj, where: string, mayReferAttachments = true, inspectVersion?: string): BuiltSample {
  const findings: Finding[] = [];
  const attachments = isPlainObject(raw.attachments) ? raw.attachments : {};
  const missing = new Set<string>();
  // A sample whose text holds no `attachment://` (the caller looked) is used as parsed.
  const sample = mayReferAttachments ? (resolveAttachments({ ...raw, attachments: {} }, attachments, missing) as Obj) : raw;
  const history = Array.isArray(sample.messages) ? sample.messages : [];
  if (sample.messages !== undefined && !Array.isArray(sample.messages)) findings.push({ code: 'malformed_line', severity: 'error', line: 1, message: `${where}: messages is not a list; no messages are read` });
  const view = history.map((m, i) => messageOf(m, `${where} messages[${i}]`, findings));
  const byId = new Map<string, number>();
  view.forEach((m, i) => {
    const id = idOf(m);
    if (id !== undefined && !byId.has(id)) byId.set(id, i);
  });
  const pool = poolOf(sample);
  const events = eventsOf(sample);

  const log: Reduction[] = [];
  const logLines: number[] = [];
  // A pooled message (input_refs) is one object in every call that is given it: mapped and compared once.
  const mapped = new WeakMap<object, ChatMessage>();
  const conv = (m: unknown, where: string): ChatMessage => {
    if (typeof m !== 'object' || m === null) return messageOf(m, where, undefined);
    let got = mapped.get(m);
    if (!got) mapped.set(m, (got = messageOf(m, where, undefined)));
    return got;
  };
  const sameAs = new WeakMap<object, number>();
  const byCallId = new Map<string, number>();
  view.forEach((m, i) => {
    if (m.role === 'tool' && m.tool_call_id && !byCallId.has(m.tool_call_id)) byCallId.set(m.tool_call_id, i);
  });
  /** History index (or range start) → the reduction logged for it. */
  const logged = new Map<number, Reduction>();
  let model: string | null = null;
  let compaction: { type: string; name: string } | undefined;
  let lastOut = -1;
  /** The previous main call's raw input, and the history index of its last message when it ended in place (else -1). */
  let prev: { input: readonly unknown[]; last: number } | undefined;
  /** True when `input` is `prev.input` followed by history[prev.last + 1, outIndex), same ids and texts. */
  const continues = (p: { input: readonly unknown[]; last: number }, input: readonly unknown[], outIndex: number): boolean => {
    const n = p.input.length;
    if (p.last < 0 || input.length < n || p.last + 1 + (input.length - n) !== outIndex) return false;
    for (let j = 0; j < n; j++) if (input[j] !== p.input[j]) return false;
    for (let j = n; j < input.length; j++) {
      const raw = input[j];
      const i = p.last + 1 + (j - n);
      if (typeof raw !== 'object' || raw === null) return false;
      if (sameAs.get(raw) === i) continue;
      const g = conv(raw, `${where} input`);
      const id = idOf(g);
      if (id === undefined || byId.get(id) !== i || g.content !== (view[i] as ChatMessage).content) return false;
      sameAs.set(raw, i);
    }
    return true;
  };
  const lastModel = lastModelEvent(events);
  const usage = new Map<number, CallTokens>();
  const requests = new Map<number, RecordedRequest>();
  const callPool = callPoolOf(sample);

  const add = (r: Reduction, line: number, at: string): void => {
    const earlier = logged.get(r.ptr.index);
    if (earlier) {
      const same = earlier.kind === r.kind && earlier.stub === r.stub && (earlier.end ?? -1) === (r.end ?? -1);
      if (!same) findings.push({ code: 'unknown_record', severity: 'warning', message: `${at}: messages[${r.ptr.index}] is given reduced a second, different way (${r.kind}); only the first (${earlier.kind}) is shown` });
      return;
    }
    logged.set(r.ptr.index, r);
    log.push(r);
    logLines.push(line);
  };

  events.forEach((ev, k) => {
    if (!isPlainObject(ev)) return;
    if (ev.event === 'compaction') {
      compaction = { type: typeof ev.type === 'string' ? ev.type : 'summary', name: eventName(ev, k) };
      return;
    }
    if (ev.event === 'tool' && Array.isArray(ev.truncated) && typeof ev.truncated[0] === 'number') {
      const i = typeof ev.message_id === 'string' ? byId.get(ev.message_id) : view.findIndex((m) => m.role === 'tool' && m.tool_call_id === ev.id);
      if (i === undefined || i < 0) {
        findings.push({ code: 'unknown_record', severity: 'warning', message: `${where} ${eventName(ev, k)}: a truncated tool output whose message is not in the history; not shown` });
        return;
      }
      const msg = view[i] as ChatMessage;
      const r: Reduction = { id: `inspect-e${k}-cut-m${i}`, kind: 'tool_output_truncated', ptr: { index: i, hash: null, bytes: ev.truncated[0] }, kept_bytes: 0, stub: msg.content, minted_at: i + 1, provenance: 'recorded', origin: { event: eventName(ev, k) } };
      add(r, i + 1, `${where} ${eventName(ev, k)}`);
      return;
    }
    if (ev.event !== 'model') return;
    const outRaw = outputMessageOf(ev);
    const out = outRaw === undefined ? undefined : messageOf(outRaw, `${where} events[${k}].output`, undefined);
    const input = inputOf(ev, pool);
    if (!input) {
      findings.push({ code: 'unknown_record', severity: 'warning', message: `${where} ${eventName(ev, k)}: a model event whose input cannot be read (input_refs outside the message pool); skipped` });
      return;
    }
    const convAt = (j: number): ChatMessage => conv(input[j], `${where} events[${k}].input[${j}]`);
    let outIndex = out ? producedIndex(out, input.length, byId, (i) => view[i]) : -1;
    if (outIndex < 0 && out && k === lastModel && endsOn(input, view.length, () => convAt(input.length - 1), () => view[view.length - 1])) {
      view.push({ ...out, metadata: { ...out.metadata, inspect_event: eventName(ev, k) } });
      outIndex = view.length - 1;
    }
    if (outIndex < 0 || outIndex <= lastOut) return; // a side call (compaction summary, scorer): not a call of this history
    if (typeof ev.model === 'string') model = ev.model;
    lastOut = outIndex;
    const tokens = inspectTokens(isPlainObject(ev.output) ? ev.output.usage : undefined, inspectVersion, typeof ev.model === 'string' ? ev.model : undefined);
    if (tokens) usage.set(outIndex + 1, tokens);
    const request = recordedRequestOf(ev, callPool, `${where} events[${k}].call.request`);
    if (request) requests.set(outIndex + 1, request);
    const at = `${where} ${eventName(ev, k)}`;
    // The common case, in linear time over a whole sample: this input is the previous call's (the
    // same objects, as input_refs give them) followed by the history messages up to this call's
    // output, unchanged. Nothing new is reduced; the rest is aligned only when that does not hold.
    if (prev && continues(prev, input, outIndex)) {
      prev = { input, last: outIndex - 1 };
      compaction = undefined;
      return;
    }
    const given = input.map((_m, j) => convAt(j));
    const aligned = align(given, view, outIndex, byId, byCallId);
    if ('error' in aligned) {
      findings.push({ code: 'unknown_record', severity: 'warning', message: `${at}: ${aligned.error}; its reductions are not derived` });
      compaction = undefined;
      return;
    }
    const lastPair = aligned.pairs[aligned.pairs.length - 1];
    prev = { input, last: lastPair && lastPair[0] === given.length - 1 && aligned.gaps.every((g) => g.end <= lastPair[1]) ? lastPair[1] : -1 };
    const line = outIndex + 1;
    const origin = (kind: ReductionKind): Pick<Reduction, 'provenance' | 'origin'> =>
      compaction && COMPACTION_KINDS[compaction.type] === kind ? { provenance: 'recorded', origin: { event: compaction.name } } : { provenance: 'derived', origin: { event: eventName(ev, k) } };
    for (const [j, i] of aligned.pairs) {
      const g = given[j] as ChatMessage;
      const h = view[i] as ChatMessage;
      const raw = input[j];
      const object = typeof raw === 'object' && raw !== null ? raw : undefined;
      if (object && sameAs.get(object) === i) continue;
      if (g.content === h.content) {
        if (object) sameAs.set(object, i);
        continue;
      }
      const { hash, bytes } = hashOf(h.content);
      const kept = commonPrefixBytes(h.content, g.content);
      const base = { id: `inspect-e${k}-m${i}`, minted_at: line - 1, hash_origin: 'import' as const, original_from: "the message as the sample's history records it" };
      if (kept > 0) {
        const keptChars = Buffer.from(g.content, 'utf8').subarray(0, kept).toString('utf8').length;
        add({ ...base, kind: 'tool_output_truncated', ptr: { index: i, hash, bytes }, kept_bytes: kept, stub: g.content.slice(keptChars), ...origin('tool_output_elided') }, line, at);
      } else add({ ...base, kind: 'tool_output_elided', ptr: { index: i, hash, bytes }, stub: g.content, ...origin('tool_output_elided') }, line, at);
    }
    for (const gap of aligned.gaps) {
      const { hash, bytes } = hashOf(transcriptOf(view.slice(gap.start, gap.end)));
      const kind: ReductionKind = gap.inserted.length > 0 ? 'summarized' : 'turns_cleared';
      const stub = gap.inserted.map((j) => (given[j] as ChatMessage).content).join('\n');
      // The summary's messages as the model was given them: their one role, where they share one.
      const roles = new Set(gap.inserted.map((j) => (given[j] as ChatMessage).role));
      const summaryRole = kind === 'summarized' && roles.size === 1 ? { summary_role: [...roles][0] } : {};
      add({ id: `inspect-e${k}-r${gap.start}-${gap.end}`, kind, ptr: { index: gap.start, hash, bytes }, end: gap.end, stub, minted_at: line - 1, hash_origin: 'import', original_from: "the messages as the sample's history records them", ...summaryRole, ...origin(kind) }, line, at);
    }
    for (const j of aligned.stray) findings.push({ code: 'unknown_record', severity: 'warning', message: `${at}: input[${j}] (${(given[j] as ChatMessage).role}) is in no place of the history; the view at this call does not show it` });
    compaction = undefined;
  });
  if (missing.size > 0) findings.push({ code: 'unknown_record', severity: 'warning', message: `${where}: ${missing.size} attachment reference(s) name no attachment of the sample (${[...missing].slice(0, 5).join(', ')}); shown as the reference` });
  for (const r of log) if (r.kind === 'summarized') Object.assign(r, compactionTokens(r.minted_at + 1, usage));
  return { model, view, messageLines: view.map((_m, i) => i + 1), log, logLines, findings, ...(usage.size > 0 ? { usage } : {}), ...(requests.size > 0 ? { requests } : {}) };
}

/** A sample's message pool (`input_refs` index it): `events_data.messages`, else the older `message_pool`. */
function poolOf(sample: Obj): unknown[] {
  const eventsData = isPlainObject(sample.events_data) ? sample.events_data : undefined;
  return Array.isArray(eventsData?.messages) ? eventsData.messages : Array.isArray(sample.message_pool) ? sample.message_pool : [];
}

/** A sample's pool of request items (`call_refs` index it, Inspect ≥ 0.3.195): `events_data.calls`. */
function callPoolOf(sample: Obj): unknown[] {
  const eventsData = isPlainObject(sample.events_data) ? sample.events_data : undefined;
  return Array.isArray(eventsData?.calls) ? eventsData.calls : [];
}

/**
 * The APIs whose Chat Completions body Inspect records for a provider prefix (its providers that
 * send through the `openai` client; docs/export.md "Recorded requests"). Others (Google's
 * `contents`, Mistral's, Bedrock's) are recorded in their own shapes and never exported as is.
 */
const OPENAI_CHAT_APIS: ReadonlySet<string> = new Set(['openai', 'openai-api', 'together', 'groq', 'fireworks', 'openrouter', 'vllm', 'sglang', 'ollama', 'llama-cpp-python', 'perplexity', 'hf-inference-providers']);

/** Which of our providers a recorded body is for, by the model event's provider prefix and the body's shape. */
function recordedProvider(api: string, body: Obj): Provider | null {
  if (api === 'anthropic' && Array.isArray(body.messages)) return 'anthropic';
  if (!OPENAI_CHAT_APIS.has(api)) return null;
  if (Array.isArray(body.messages)) return 'openai-chat';
  if (api === 'openai' && body.input !== undefined) return 'openai-responses';
  return null;
}

/**
 * A model event's recorded request (`call.request`, attachments already resolved), its pooled
 * items put back (`request[call_key] = concat(events_data.calls[s:e])`, docs/FORMATS.md §E4);
 * undefined when the event records none or its `call_refs` point outside the pool.
 */
export function recordedRequestOf(ev: Obj, pool: readonly unknown[], where: string): RecordedRequest | undefined {
  const call = ev.call;
  if (!isPlainObject(call) || !isPlainObject(call.request)) return undefined;
  let body = call.request;
  if (Array.isArray(call.call_refs)) {
    const items: unknown[] = [];
    for (const r of call.call_refs) {
      if (!Array.isArray(r) || !Number.isSafeInteger(r[0]) || !Number.isSafeInteger(r[1])) return undefined;
      const [start, end] = r as [number, number];
      if (start < 0 || end > pool.length || start > end) return undefined;
      for (let i = start; i < end; i++) items.push(pool[i]);
    }
    body = { ...body, [typeof call.call_key === 'string' ? call.call_key : 'messages']: items };
  }
  const api = typeof ev.model === 'string' && ev.model.includes('/') ? (ev.model.split('/')[0] as string) : '';
  return { provider: recordedProvider(api, body), api, where, body };
}

/** A sample's events: `events`, else the older `transcript.events`. */
function eventsOf(sample: Obj): unknown[] {
  const transcript = isPlainObject(sample.transcript) ? sample.transcript : undefined;
  return Array.isArray(sample.events) && sample.events.length > 0 ? sample.events : Array.isArray(transcript?.events) ? transcript.events : [];
}

/** Which history message a call produced: its output's id, else the message right after its input when that is an assistant message of the same text; -1 when none. */
function producedIndex(out: ChatMessage, inputLength: number, byId: ReadonlyMap<string, number>, at: (i: number) => ChatMessage | undefined): number {
  const id = idOf(out);
  if (id !== undefined) return byId.get(id) ?? -1;
  const next = at(inputLength);
  return next && next.role === 'assistant' && next.content === out.content ? inputLength : -1;
}

/**
 * The last call's output missing from the history (the sample ended on it): when its input ends
 * with the history's last message, the output ends the view.
 */
function endsOn(input: readonly unknown[], historyLength: number, lastGiven: () => ChatMessage, lastInHistory: () => ChatMessage | undefined): boolean {
  if (historyLength === 0 || input.length === 0) return false;
  const last = lastInHistory();
  return last !== undefined && sameMessage(lastGiven(), last);
}

/**
 * How many messages the sample shows when it is opened (`buildSample(raw).view.length`) without
 * building it: its history, and one more when its last model call's output is not in the history
 * and ends the view. Only the messages that decides on are mapped (attachments resolved in them).
 */
export function sampleMessageCount(raw: Obj): number {
  const history = Array.isArray(raw.messages) ? (raw.messages as unknown[]) : [];
  const events = eventsOf(raw);
  const k = lastModelEvent(events);
  if (k < 0) return history.length;
  const ev = events[k] as Obj;
  const outRaw = outputMessageOf(ev);
  const input = inputOf(ev, poolOf(raw));
  if (outRaw === undefined || !input) return history.length;
  const attachments = isPlainObject(raw.attachments) ? raw.attachments : {};
  const message = (m: unknown): ChatMessage => messageOf(resolveAttachments(m, attachments, new Set()), '', undefined);
  const byId = new Map<string, number>();
  history.forEach((m, i) => {
    if (isPlainObject(m) && typeof m.id === 'string' && !byId.has(m.id)) byId.set(m.id, i);
  });
  const at = (i: number): ChatMessage | undefined => (i < history.length ? message(history[i]) : undefined);
  if (producedIndex(message(outRaw), input.length, byId, at) >= 0) return history.length;
  return endsOn(input, history.length, () => message(input[input.length - 1]), () => at(history.length - 1)) ? history.length + 1 : history.length;
}

function sameMessage(a: ChatMessage | undefined, b: ChatMessage): boolean {
  if (!a) return false;
  const ia = idOf(a);
  return ia !== undefined && idOf(b) !== undefined ? ia === idOf(b) : a.role === b.role && a.content === b.content;
}

function lastModelEvent(events: readonly unknown[]): number {
  for (let k = events.length - 1; k >= 0; k--) if (isPlainObject(events[k]) && (events[k] as Obj).event === 'model') return k;
  return -1;
}

interface Alignment {
  /** [input index, history index] of the messages given in place, in order. */
  pairs: [number, number][];
  /** History runs not given, each with the input messages standing in their place. */
  gaps: { start: number; end: number; inserted: number[] }[];
  /** Input messages in no gap and matching no history message. */
  stray: number[];
}

/** Aligns a call's input with history[0, outIndex): see the file comment. */
function align(given: readonly ChatMessage[], view: readonly ChatMessage[], outIndex: number, byId: ReadonlyMap<string, number>, byCallId: ReadonlyMap<string, number>): Alignment | { error: string } {
  const before = (i: number | undefined): number | undefined => (i !== undefined && i < outIndex ? i : undefined);
  const match: (number | undefined)[] = given.map((g) => {
    const id = idOf(g);
    const byOwnId = id !== undefined ? before(byId.get(id)) : undefined;
    if (byOwnId !== undefined) return byOwnId;
    return g.role === 'tool' && g.tool_call_id ? before(byCallId.get(g.tool_call_id)) : undefined;
  });
  // Files without ids: a prefix of the history, message for message.
  if (given.every((g) => idOf(g) === undefined) && given.length <= outIndex) given.forEach((_g, j) => (match[j] ??= j));
  // Unmatched runs of input between matched neighbours fill a history gap of the same length positionally (an edited message).
  for (let j = 0; j < given.length; ) {
    if (match[j] !== undefined) {
      j++;
      continue;
    }
    let e = j;
    while (e < given.length && match[e] === undefined) e++;
    const prev = j > 0 ? (match[j - 1] as number) : -1;
    const next = e < given.length ? (match[e] as number) : outIndex;
    if (next - prev - 1 === e - j) for (let x = j; x < e; x++) if ((given[x] as ChatMessage).role === (view[prev + 1 + x - j] as ChatMessage).role) match[x] = prev + 1 + x - j;
    j = e;
  }
  const pairs: [number, number][] = [];
  let last = -1;
  for (let j = 0; j < given.length; j++) {
    const i = match[j];
    if (i === undefined) continue;
    if (i <= last) return { error: `its input is not in the history's order (input[${j}] is messages[${i}], after messages[${last}])` };
    pairs.push([j, i]);
    last = i;
  }
  const gaps: Alignment['gaps'] = [];
  const stray: number[] = [];
  // Between two messages given in place (and before the first, after the last up to the output):
  // the history run between them was not given; the input messages between them stand in for it.
  const bounds: [number, number][] = [[-1, -1], ...pairs, [given.length, outIndex]];
  for (let b = 1; b < bounds.length; b++) {
    const [jp, ip] = bounds[b - 1] as [number, number];
    const [jn, iN] = bounds[b] as [number, number];
    const inserted = range(jp + 1, jn);
    if (ip + 1 < iN) gaps.push({ start: ip + 1, end: iN, inserted });
    else stray.push(...inserted);
  }
  return { pairs, gaps, stray };
}

const range = (a: number, b: number): number[] => Array.from({ length: b - a }, (_x, k) => a + k);

/** A session's title: the sample's input text (its first user message), shortened. */
export function titleOf(input: unknown): string | undefined {
  let text: string | undefined;
  if (typeof input === 'string') text = input;
  else if (Array.isArray(input)) {
    const list = input as unknown[];
    const first = list.find((m) => isPlainObject(m) && m.role === 'user') ?? list[0];
    if (first !== undefined) text = messageOf(first, '', undefined).content;
  }
  if (text === undefined) return undefined;
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length > 80 ? `${one.slice(0, 79)}…` : one;
}

/** The session id of a sample: `<id>_epoch_<n>`, as the `.eval` names its entry. */
export function sampleSessionId(sample: Obj): string | undefined {
  const id = sample.id;
  if (typeof id !== 'string' && typeof id !== 'number') return undefined;
  return `${id}_epoch_${typeof sample.epoch === 'number' ? sample.epoch : 1}`;
}
