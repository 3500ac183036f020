/**
 * Validation of untrusted input (§3). Nothing here throws: a bad record becomes a finding with its
 * line number and the rest of the file is still read.
 */
import { z } from 'zod';
import { FORMAT_VERSION, SESSION_FORMAT, SIDECAR_FORMAT } from './constants';
import type { ChatMessage, Finding, Reduction, SidecarRecord } from './types';
import { REDUCTION_KINDS } from './types';
import { fastChatMessage, fastReduction, fastSidecarRecord } from './fastRecords';
import { MAX_JSON_DEPTH, deeperThan } from './jsonDepth';
import { jsonParse } from './jsonParse';

/**
 * A JSON value's text. JSON.stringify recurses, so a value nested deeper than the stack (JSON.parse
 * does not recurse and reads any depth) throws a RangeError: an issue, never an exception.
 */
function argumentsText(value: unknown, ctx: z.RefinementCtx): string {
  try {
    return JSON.stringify(value) ?? '';
  } catch (e) {
    ctx.addIssue({ code: 'custom', message: `arguments cannot be shown as text (${(e as Error).message})` });
    return z.NEVER;
  }
}

/**
 * Every zod schema of this file. They are built at the first call, not when the module loads:
 * shared/format/fastRecords.ts reads valid records, so a command that opens a well-formed file never
 * builds one (nor, in the command line's bundles, loads zod: scripts/build.mjs).
 */
function buildZodSchemas() {
  const index = z.number().int().nonnegative();
  const toolCall = z.object({
    id: z.string(),
    name: z.string(),
    // Some writers store arguments as a JSON value rather than its text; both display the same.
    arguments: z.unknown().transform((v, ctx) => (typeof v === 'string' ? v : argumentsText(v, ctx))),
  });
  const chatMessage = z.object({
    role: z.enum(['system', 'user', 'assistant', 'tool']),
    // An assistant message that only calls tools may carry `content: null`; its content bytes are empty.
    content: z.union([z.string(), z.null().transform(() => '')]),
    tool_call_id: z.string().optional(),
    tool_calls: z.array(toolCall).optional(),
    name: z.string().optional(),
    content_parts: z.array(z.looseObject({ type: z.string() })).optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
  });
  const reductionPolicy = z.object({
    protect_last_n_tool_results: index,
    max_tool_result_bytes: index,
    kept_prefix_bytes: index,
    dedupe: z.boolean(),
    clear_turns_before: index.nullable().optional(),
  });
  const hash = z.string();
  /** §10.1 `origin`: a 1-based line of the source file, or an event id. */
  const origin = z.union([z.strictObject({ line: z.number().int().positive() }), z.strictObject({ event: z.string().min(1) })]);
  const reduction = z
    .object({
      id: z.string().min(1),
      kind: z.enum(REDUCTION_KINDS as [Reduction['kind'], ...Reduction['kind'][]]),
      // hash null: the file does not hold the original (§10.1); bytes is then the size it states.
      ptr: z.object({ index, hash: hash.nullable(), bytes: index.nullable() }),
      kept_bytes: index.optional(),
      canonical: z.object({ index, hash }).optional(),
      end: index.optional(),
      stub: z.string(),
      minted_at: index,
      provenance: z.enum(['recorded', 'derived']).optional(),
      origin: origin.optional(),
      group: z.string().min(1).optional(),
      summary_role: z.enum(['system', 'user', 'assistant', 'tool']).optional(),
      hash_origin: z.enum(['recorded', 'import']).optional(),
      stated_size: z.string().min(1).optional(),
      unavailable_why: z.string().min(1).optional(),
      tokens_before: index.optional(),
      tokens_after: index.optional(),
    })
    .superRefine((r, ctx) => {
      const need = (field: 'kept_bytes' | 'canonical' | 'end') => {
        if (r[field] === undefined) ctx.addIssue({ code: 'custom', path: [field], message: `${r.kind} requires ${field}` });
      };
      if (r.kind === 'tool_output_truncated') need('kept_bytes');
      if (r.kind === 'duplicate_output') need('canonical');
      if (r.kind === 'turns_cleared' || r.kind === 'summarized') need('end');
      if (r.group !== undefined && r.kind !== 'summarized' && r.kind !== 'duplicate_output') ctx.addIssue({ code: 'custom', path: ['group'], message: `group belongs to summarized and duplicate_output reductions, not ${r.kind}` });
      if ((r.tokens_before !== undefined || r.tokens_after !== undefined) && r.kind !== 'summarized') ctx.addIssue({ code: 'custom', path: ['tokens_before'], message: `tokens_before and tokens_after belong to summarized reductions, not ${r.kind}` });
      if (r.summary_role !== undefined && r.kind !== 'summarized') ctx.addIssue({ code: 'custom', path: ['summary_role'], message: `summary_role belongs to summarized reductions, not ${r.kind}` });
      if (r.ptr.bytes === null && r.ptr.hash !== null) ctx.addIssue({ code: 'custom', path: ['ptr', 'bytes'], message: 'ptr.bytes may be null only when ptr.hash is null (the original is not in the file)' });
      if (r.ptr.hash !== null && r.stated_size !== undefined) ctx.addIssue({ code: 'custom', path: ['stated_size'], message: 'stated_size belongs to a reduction whose original is not in the file (ptr.hash null)' });
      if (r.ptr.hash !== null && r.unavailable_why !== undefined) ctx.addIssue({ code: 'custom', path: ['unavailable_why'], message: 'unavailable_why belongs to a reduction whose original is not in the file (ptr.hash null)' });
      if (r.ptr.hash === null && r.hash_origin !== undefined) ctx.addIssue({ code: 'custom', path: ['hash_origin'], message: 'a reduction without a hash (ptr.hash null) has no hash_origin' });
    });
  const cap = z.object({ kept_bytes: index, notice: z.string() });
  const records = {
    header: z.object({
      t: z.literal('header'),
      format: z.literal(SIDECAR_FORMAT),
      version: z.number().int().positive(),
      session_id: z.string(),
      created_at: z.string(),
      model: z.string(),
      gate: z.boolean(),
      policy: reductionPolicy.nullable(),
    }),
    system: z.object({ t: z.literal('system'), msg: chatMessage }),
    message: z.object({ t: z.literal('message'), i: index, msg: chatMessage, cap: cap.optional() }),
    reduction: z.object({ t: z.literal('reduction'), r: reduction }),
    invert: z.object({ t: z.literal('invert'), id: z.string() }),
    rewind: z.object({ t: z.literal('rewind'), to: index }),
    model_change: z.object({ t: z.literal('model_change'), at: index, from: z.string(), to: z.string(), reasoning_artifacts_filtered: index }),
  } as const;
  return { chatMessage, reductionPolicy, reduction, records };
}

type ZodSchemas = ReturnType<typeof buildZodSchemas>;
type RecordSchemas = ZodSchemas['records'];
let zodSchemasBuilt: ZodSchemas | undefined;

/** The zod schemas of this file, built at the first call. */
export function zodSchemas(): ZodSchemas {
  zodSchemasBuilt ??= buildZodSchemas();
  return zodSchemasBuilt;
}

/** The record schemas of SPEC §3.1, by `t`. */
export function recordSchemas(): RecordSchemas {
  return zodSchemas().records;
}

/** §3.4 (the contract, the policy editor and `view --policy` validate policies with it). */
export const reductionPolicySchema = zodSchemas().reductionPolicy;

/** §3.5, with the rules between its fields (which kinds need which, §10.1's null hash). */
export const reductionSchema = zodSchemas().reduction;

/**
 * §3.3 messages, read as zod would read them: `safeParse` reads a valid message without zod
 * (shared/format/fastRecords.ts, proven equal) and asks the zod schema only otherwise, so its issues
 * are zod's. Only `safeParse` is offered: the one use of this schema outside this file.
 */
export const chatMessageSchema = {
  safeParse(value: unknown): z.ZodSafeParseResult<ChatMessage> {
    const fast = fastChatMessage(value);
    return fast !== undefined ? { success: true, data: fast } : zodSchemas().chatMessage.safeParse(value);
  },
};

export const RECORD_TYPES: readonly (keyof RecordSchemas)[] = ['header', 'system', 'message', 'reduction', 'invert', 'rewind', 'model_change'];

function describe(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((i) => `${i.path.length ? i.path.join('.') : '(record)'}: ${i.message}`)
    .join('; ');
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export type LineParse =
  | { ok: true; record: SidecarRecord }
  | {
      ok: false;
      finding: Finding;
      /** A `message` record that could not be read but whose `i` could: that index becomes a hole. */
      holeIndex?: number;
      /** The record is a header of a newer version: nothing else may be read. */
      stop?: boolean;
    };

/**
 * Parses one sidecar line (`text` without its newline). `terminated` is false for a last line with
 * no newline, which, when it does not parse, is a writer stopped mid-append rather than a bad record.
 */
export function parseSidecarLine(text: string, line: number, terminated = true): LineParse {
  let value: unknown;
  try {
    value = jsonParse(text);
  } catch (e) {
    if (!terminated) {
      return { ok: false, finding: { code: 'truncated_last_line', severity: 'warning', message: `line ${line} is the last line, has no newline and does not parse: the writer stopped mid-append`, line } };
    }
    return { ok: false, finding: { code: 'malformed_line', severity: 'error', message: `line ${line} is not JSON: ${(e as Error).message}`, line } };
  }
  if (!isPlainObject(value)) {
    return { ok: false, finding: { code: 'malformed_line', severity: 'error', message: `line ${line} is not a JSON object`, line } };
  }
  const t = value.t;
  if (typeof t !== 'string') {
    return { ok: false, finding: { code: 'malformed_line', severity: 'error', message: `line ${line} has no string field "t"`, line } };
  }
  if (!(RECORD_TYPES as readonly string[]).includes(t)) {
    return { ok: false, finding: { code: 'unknown_record', severity: 'warning', message: `line ${line} has unknown record type t=${JSON.stringify(t).slice(0, 80)}; skipped`, line } };
  }
  if (t === 'header' && typeof value.version === 'number' && value.version > FORMAT_VERSION) {
    return {
      ok: false,
      stop: true,
      finding: { code: 'unsupported_version', severity: 'error', message: `line ${line}: sidecar format version ${value.version} is newer than the supported version ${FORMAT_VERSION}; nothing else was read`, line },
    };
  }
  // Nothing after this point may recurse on a record deeper than the cap (shared/format/jsonDepth.ts).
  if (deeperThan(value)) {
    const holeIndex = t === 'message' && typeof value.i === 'number' && Number.isInteger(value.i) && value.i >= 0 ? value.i : undefined;
    return {
      ok: false,
      finding: { code: 'malformed_line', severity: 'error', message: `line ${line} is nested deeper than ${MAX_JSON_DEPTH} levels; the ${t} record is not read`, line, ...(holeIndex !== undefined ? { index: holeIndex } : {}) },
      ...(holeIndex !== undefined ? { holeIndex } : {}),
    };
  }
  const fast = fastSidecarRecord(value);
  if (fast !== undefined) return { ok: true, record: fast };
  const parsed = recordSchemas()[t as keyof RecordSchemas].safeParse(value);
  if (!parsed.success) {
    const holeIndex = t === 'message' && typeof value.i === 'number' && Number.isInteger(value.i) && value.i >= 0 ? value.i : undefined;
    return {
      ok: false,
      finding: { code: 'malformed_line', severity: 'error', message: `line ${line}: ${t} record is invalid: ${describe(parsed.error)}`, line, ...(holeIndex !== undefined ? { index: holeIndex } : {}) },
      ...(holeIndex !== undefined ? { holeIndex } : {}),
    };
  }
  return { ok: true, record: parsed.data };
}

export interface SnapshotParse {
  session_id: string;
  model: string;
  /** The view as the agent held it; an unreadable message is a hole (undefined) so addresses hold. */
  messages: (ChatMessage | undefined)[];
  /** Present when the snapshot has a `reductions` array. */
  reductions?: Reduction[];
}

/** True when a parsed JSON value looks like a session snapshot (told apart by content, not by name). */
export function isSnapshotValue(value: unknown): value is Record<string, unknown> {
  return isPlainObject(value) && value.format === SESSION_FORMAT;
}

/**
 * Validates a session snapshot document. Returns undefined for a version newer than supported (with
 * the finding), since nothing else may be read.
 */
export function parseSnapshot(value: Record<string, unknown>): { snapshot?: SnapshotParse; findings: Finding[] } {
  const findings: Finding[] = [];
  const version = value.version;
  if (typeof version === 'number' && version > FORMAT_VERSION) {
    findings.push({ code: 'unsupported_version', severity: 'error', message: `session snapshot format version ${version} is newer than the supported version ${FORMAT_VERSION}; nothing else was read` });
    return { findings };
  }
  if (version !== FORMAT_VERSION) {
    findings.push({ code: 'malformed_line', severity: 'error', message: `session snapshot has version ${JSON.stringify(version)}; expected ${FORMAT_VERSION}` });
  }
  const messages: (ChatMessage | undefined)[] = [];
  if (!Array.isArray(value.messages)) {
    findings.push({ code: 'malformed_line', severity: 'error', message: 'session snapshot has no "messages" array' });
  } else {
    value.messages.forEach((m: unknown, k: number) => {
      if (deeperThan(m)) {
        messages.push(undefined);
        findings.push({ code: 'malformed_line', severity: 'error', message: `session snapshot messages[${k}] is nested deeper than ${MAX_JSON_DEPTH} levels; it is not read`, index: k });
        return;
      }
      const parsed = chatMessageSchema.safeParse(m);
      if (parsed.success) messages.push(parsed.data);
      else {
        messages.push(undefined);
        findings.push({ code: 'malformed_line', severity: 'error', message: `session snapshot messages[${k}] is invalid: ${describe(parsed.error)}`, index: k });
      }
    });
  }
  let reductions: Reduction[] | undefined;
  if (value.reductions !== undefined) {
    reductions = [];
    if (!Array.isArray(value.reductions)) {
      findings.push({ code: 'malformed_line', severity: 'error', message: 'session snapshot "reductions" is not an array' });
    } else {
      value.reductions.forEach((r: unknown, k: number) => {
        if (deeperThan(r)) {
          findings.push({ code: 'malformed_line', severity: 'error', message: `session snapshot reductions[${k}] is nested deeper than ${MAX_JSON_DEPTH} levels; it is not read` });
          return;
        }
        const fast = fastReduction(r);
        if (fast !== undefined) {
          reductions?.push(fast);
          return;
        }
        const parsed = zodSchemas().reduction.safeParse(r);
        if (parsed.success) reductions?.push(parsed.data);
        else findings.push({ code: 'malformed_line', severity: 'error', message: `session snapshot reductions[${k}] is invalid: ${describe(parsed.error)}` });
      });
    }
  }
  const str = (v: unknown) => (typeof v === 'string' ? v : '');
  return {
    snapshot: { session_id: str(value.session_id), model: str(value.model), messages, ...(reductions ? { reductions } : {}) },
    findings,
  };
}
