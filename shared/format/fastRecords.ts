/**
 * A hand-written reading of the record schemas of shared/format/schema.ts for the records that are valid,
 * so that opening a well-formed file builds and runs none of zod's parsers (zod's set-up
 * and its first parse of each schema were the largest part of a cold `check`).
 *
 * Invariant (shared/format/fastRecords.test.ts, fast-check over random valid and mutated records): when a
 * function here returns a value, the zod schema accepts the same input and its parsed value is equal
 * to it, key order included (`log` prints reductions as parsed). `undefined` means "not decided
 * here": the caller then asks zod, whose answer (and error message) stands. So a function here may
 * decline anything it is unsure of — it declines every invalid record, and any object that has an
 * own `__proto__` key (assigning that key to a fresh object would not copy it) — but it never
 * accepts what zod refuses, nor parses differently.
 */
import { SIDECAR_FORMAT } from './constants';
import type { Cap, ChatMessage, Reduction, ReductionPolicy, SidecarRecord, ToolCall } from './types';
import { REDUCTION_KINDS } from './types';

type Obj = Record<string, unknown>;

function isObject(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** z.number().int().nonnegative(): zod's int is a safe integer. */
function isIndex(v: unknown): v is number {
  return Number.isSafeInteger(v) && (v as number) >= 0;
}

function isString(v: unknown): v is string {
  return typeof v === 'string';
}

const has = (o: Obj, key: string): boolean => Object.prototype.hasOwnProperty.call(o, key);

const ROLES: readonly unknown[] = ['system', 'user', 'assistant', 'tool'];
const KINDS: readonly unknown[] = REDUCTION_KINDS;

function toolCall(v: unknown): ToolCall | undefined {
  // `arguments` must be present (z.unknown() is not optional). A value that is not text is shown as
  // its JSON text, as zod's transform computes it; one too deep to stringify is zod's to refuse.
  if (!isObject(v) || !isString(v.id) || !isString(v.name) || !has(v, 'arguments')) return undefined;
  let text: string;
  if (isString(v.arguments)) text = v.arguments;
  else {
    try {
      text = JSON.stringify(v.arguments) ?? '';
    } catch {
      return undefined;
    }
  }
  return { id: v.id, name: v.name, arguments: text };
}

/** z.looseObject({ type: z.string() }): `type` first, then the other keys in their order. */
function contentPart(v: unknown): Obj | undefined {
  if (!isObject(v) || !isString(v.type) || has(v, '__proto__')) return undefined;
  const out: Obj = { type: v.type };
  for (const key of Object.keys(v)) if (key !== 'type') out[key] = v[key];
  return out;
}

function arrayOf<T>(v: unknown, item: (x: unknown) => T | undefined): T[] | undefined {
  if (!Array.isArray(v)) return undefined;
  const out: T[] = [];
  for (const x of v) {
    const parsed = item(x);
    if (parsed === undefined) return undefined;
    out.push(parsed);
  }
  return out;
}

/** chatMessageSchema's optional fields before `metadata`, in its order: absent stays absent, present must read. */
const OPTIONAL_MESSAGE_FIELDS: readonly [keyof ChatMessage, (x: unknown) => unknown][] = [
  ['tool_call_id', (x) => (isString(x) ? x : undefined)],
  ['tool_calls', (x) => arrayOf(x, toolCall)],
  ['name', (x) => (isString(x) ? x : undefined)],
  ['content_parts', (x) => arrayOf(x, contentPart)],
];

/** chatMessageSchema. */
export function fastChatMessage(v: unknown): ChatMessage | undefined {
  if (!isObject(v) || !ROLES.includes(v.role)) return undefined;
  let content: string;
  if (isString(v.content)) content = v.content;
  else if (v.content === null) content = '';
  else return undefined;
  const out: ChatMessage = { role: v.role as ChatMessage['role'], content };
  for (const [key, read] of OPTIONAL_MESSAGE_FIELDS) {
    if (!has(v, key)) continue;
    const value = read(v[key]);
    if (value === undefined) return undefined;
    (out as unknown as Obj)[key] = value;
  }
  if (has(v, 'metadata')) {
    const m = v.metadata;
    if (!isObject(m) || has(m, '__proto__')) return undefined;
    const copy: Obj = {};
    for (const key of Object.keys(m)) copy[key] = m[key];
    out.metadata = copy;
  }
  return out;
}

/** reductionPolicySchema. */
export function fastReductionPolicy(v: unknown): ReductionPolicy | undefined {
  if (!isObject(v) || !isIndex(v.protect_last_n_tool_results) || !isIndex(v.max_tool_result_bytes) || !isIndex(v.kept_prefix_bytes) || typeof v.dedupe !== 'boolean') return undefined;
  const out: ReductionPolicy = { protect_last_n_tool_results: v.protect_last_n_tool_results, max_tool_result_bytes: v.max_tool_result_bytes, kept_prefix_bytes: v.kept_prefix_bytes, dedupe: v.dedupe };
  if (has(v, 'clear_turns_before')) {
    if (v.clear_turns_before !== null && !isIndex(v.clear_turns_before)) return undefined;
    out.clear_turns_before = v.clear_turns_before;
  }
  return out;
}

/** The strict origin objects: `{ line }` (a positive integer) or `{ event }` (non-empty text), nothing else. */
function origin(v: unknown): Reduction['origin'] | undefined {
  if (!isObject(v)) return undefined;
  const keys = Object.keys(v);
  if (keys.length !== 1) return undefined;
  if (keys[0] === 'line' && Number.isSafeInteger(v.line) && (v.line as number) > 0) return { line: v.line as number };
  if (keys[0] === 'event' && isString(v.event) && v.event.length > 0) return { event: v.event };
  return undefined;
}

function optionalEnum(v: Obj, key: string, values: readonly string[]): string | undefined | null {
  if (!has(v, key)) return undefined;
  return values.includes(v[key] as string) ? (v[key] as string) : null;
}

function nonEmpty(v: unknown): v is string {
  return isString(v) && v.length > 0;
}

/** reductionSchema, its refinements included. */
export function fastReduction(v: unknown): Reduction | undefined {
  if (!isObject(v) || !nonEmpty(v.id) || !KINDS.includes(v.kind) || !isObject(v.ptr) || !isString(v.stub) || !isIndex(v.minted_at)) return undefined;
  const ptr = v.ptr;
  if (!isIndex(ptr.index) || (ptr.hash !== null && !isString(ptr.hash)) || (ptr.bytes !== null && !isIndex(ptr.bytes))) return undefined;
  const kind = v.kind as Reduction['kind'];
  const out = { id: v.id, kind, ptr: { index: ptr.index, hash: ptr.hash, bytes: ptr.bytes } } as Reduction;
  if (has(v, 'kept_bytes')) {
    if (!isIndex(v.kept_bytes)) return undefined;
    out.kept_bytes = v.kept_bytes;
  }
  if (has(v, 'canonical')) {
    const c = v.canonical;
    if (!isObject(c) || !isIndex(c.index) || !isString(c.hash)) return undefined;
    out.canonical = { index: c.index, hash: c.hash };
  }
  if (has(v, 'end')) {
    if (!isIndex(v.end)) return undefined;
    out.end = v.end;
  }
  out.stub = v.stub;
  out.minted_at = v.minted_at;
  const provenance = optionalEnum(v, 'provenance', ['recorded', 'derived']);
  if (provenance === null) return undefined;
  if (provenance !== undefined) out.provenance = provenance as Reduction['provenance'];
  if (has(v, 'origin')) {
    const o = origin(v.origin);
    if (o === undefined) return undefined;
    out.origin = o;
  }
  if (has(v, 'group')) {
    if (!nonEmpty(v.group)) return undefined;
    out.group = v.group;
  }
  const summaryRole = optionalEnum(v, 'summary_role', ['system', 'user', 'assistant', 'tool']);
  if (summaryRole === null) return undefined;
  if (summaryRole !== undefined) out.summary_role = summaryRole as Reduction['summary_role'];
  const hashOrigin = optionalEnum(v, 'hash_origin', ['recorded', 'import']);
  if (hashOrigin === null) return undefined;
  if (hashOrigin !== undefined) out.hash_origin = hashOrigin as Reduction['hash_origin'];
  if (has(v, 'stated_size')) {
    if (!nonEmpty(v.stated_size)) return undefined;
    out.stated_size = v.stated_size;
  }
  if (has(v, 'unavailable_why')) {
    if (!nonEmpty(v.unavailable_why)) return undefined;
    out.unavailable_why = v.unavailable_why;
  }
  // The schema's superRefine: any of these is an issue, left to zod to word.
  if (kind === 'tool_output_truncated' && out.kept_bytes === undefined) return undefined;
  if (kind === 'duplicate_output' && out.canonical === undefined) return undefined;
  if ((kind === 'turns_cleared' || kind === 'summarized') && out.end === undefined) return undefined;
  if (out.group !== undefined && kind !== 'summarized' && kind !== 'duplicate_output') return undefined;
  if (out.summary_role !== undefined && kind !== 'summarized') return undefined;
  if (out.ptr.bytes === null && out.ptr.hash !== null) return undefined;
  if (out.ptr.hash !== null && out.stated_size !== undefined) return undefined;
  if (out.ptr.hash !== null && out.unavailable_why !== undefined) return undefined;
  if (out.ptr.hash === null && out.hash_origin !== undefined) return undefined;
  return out;
}

function cap(v: unknown): Cap | undefined {
  if (!isObject(v) || !isIndex(v.kept_bytes) || !isString(v.notice)) return undefined;
  return { kept_bytes: v.kept_bytes, notice: v.notice };
}

/** The record schema of type `t` (`value.t`, already known to be a string). */
export function fastSidecarRecord(value: Obj): SidecarRecord | undefined {
  switch (value.t) {
    case 'header': {
      const v = value;
      if (v.format !== SIDECAR_FORMAT || !Number.isSafeInteger(v.version) || (v.version as number) <= 0 || !isString(v.session_id) || !isString(v.created_at) || !isString(v.model) || typeof v.gate !== 'boolean') return undefined;
      let policy: ReductionPolicy | null = null;
      if (v.policy !== null) {
        const p = fastReductionPolicy(v.policy);
        if (p === undefined) return undefined;
        policy = p;
      }
      return { t: 'header', format: SIDECAR_FORMAT, version: v.version as number, session_id: v.session_id, created_at: v.created_at, model: v.model, gate: v.gate, policy };
    }
    case 'system': {
      const msg = fastChatMessage(value.msg);
      return msg === undefined ? undefined : { t: 'system', msg };
    }
    case 'message': {
      if (!isIndex(value.i)) return undefined;
      const msg = fastChatMessage(value.msg);
      if (msg === undefined) return undefined;
      if (!has(value, 'cap')) return { t: 'message', i: value.i, msg };
      const c = cap(value.cap);
      return c === undefined ? undefined : { t: 'message', i: value.i, msg, cap: c };
    }
    case 'reduction': {
      const r = fastReduction(value.r);
      return r === undefined ? undefined : { t: 'reduction', r };
    }
    case 'invert':
      return isString(value.id) ? { t: 'invert', id: value.id } : undefined;
    case 'rewind':
      return isIndex(value.to) ? { t: 'rewind', to: value.to } : undefined;
    case 'model_change': {
      const v = value;
      if (!isIndex(v.at) || !isString(v.from) || !isString(v.to) || !isIndex(v.reasoning_artifacts_filtered)) return undefined;
      return { t: 'model_change', at: v.at, from: v.from, to: v.to, reasoning_artifacts_filtered: v.reasoning_artifacts_filtered };
    }
    default:
      return undefined;
  }
}
