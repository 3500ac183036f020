/**
 * shared/format/fastRecords.ts reads valid records without zod: whatever it returns, zod accepts with an
 * equal parsed value (key order included), and it declines nothing zod accepts but objects with an
 * own `__proto__` key. Checked over random valid records and random mutations of them, each given
 * as JSON text (what the loader parses).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fastChatMessage, fastReduction, fastReductionPolicy, fastSidecarRecord } from './fastRecords';
import { chatMessageSchema, parseSidecarLine, RECORD_TYPES, recordSchemas, zodSchemas } from './schema';
import { REDUCTION_KINDS } from './types';

/**
 * Valid records are built valid (each field within its schema, the reduction's refinements met);
 * mutations then make them invalid in every way: a field removed, replaced by any JSON value or a
 * number at a bound (negative, fractional, beyond safe integers), or an unknown field added.
 */
const index = fc.nat({ max: 20 });
const badNumber = fc.constantFrom(-1, -0, 0.5, 2 ** 53 - 1, 2 ** 53, 1e21, -(2 ** 53));
const text = fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom('', 'sha256:ab', '__proto__', 'é😀'));
const nonEmpty = text.filter((t) => t.length > 0);
const json = fc.jsonValue({ maxDepth: 2 });
const maybe = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined });

/** An object with the given fields, leaving out those whose value is undefined (JSON has no undefined). */
function fields(entries: Record<string, fc.Arbitrary<unknown>>): fc.Arbitrary<Record<string, unknown>> {
  return fc.record(entries).map((o) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)));
}

const toolCall = fields({ id: text, name: text, arguments: fc.oneof(text, json) });
const contentPart = fc.tuple(fields({ type: text }), fc.dictionary(fc.constantFrom('a', 'type', 'z', '__proto__', '1'), json, { maxKeys: 3 })).map(([head, rest]) => ({ ...rest, ...head }));
const message = fields({
  role: fc.constantFrom('system', 'user', 'assistant', 'tool'),
  content: fc.oneof(text, fc.constant(null)),
  tool_call_id: maybe(text),
  tool_calls: maybe(fc.array(toolCall, { maxLength: 2 })),
  name: maybe(text),
  content_parts: maybe(fc.array(contentPart, { maxLength: 2 })),
  metadata: maybe(fc.dictionary(fc.constantFrom('k', 'x', '__proto__', '0', 'b'), json, { maxKeys: 3 })),
});
const policy = fields({ protect_last_n_tool_results: index, max_tool_result_bytes: index, kept_prefix_bytes: index, dedupe: fc.boolean(), clear_turns_before: maybe(fc.oneof(index, fc.constant(null))) });
const reduction = fc
  .tuple(
    fc.constantFrom(...REDUCTION_KINDS),
    fc.boolean(),
    fields({
      id: nonEmpty,
      ptr: fields({ index, hash: text, bytes: index }),
      stub: text,
      minted_at: index,
      provenance: maybe(fc.constantFrom('recorded', 'derived')),
      origin: maybe(fc.oneof(fields({ line: index.map((n) => n + 1) }), fields({ event: nonEmpty }))),
      hash_origin: maybe(fc.constantFrom('recorded', 'import')),
    }),
    fields({ kept_bytes: index, canonical: fields({ index, hash: text }), end: index, group: nonEmpty, summary_role: fc.constantFrom('system', 'user', 'assistant', 'tool'), stated_size: nonEmpty, unavailable_why: nonEmpty, null_bytes: fc.boolean() }),
    fc.array(fc.constantFrom('kept_bytes', 'canonical', 'end'), { maxLength: 3 }),
  )
  .map(([kind, unavailable, base, extra, also]) => {
    const r: Record<string, unknown> = { ...base, kind };
    const need = kind === 'tool_output_truncated' ? 'kept_bytes' : kind === 'duplicate_output' ? 'canonical' : kind === 'turns_cleared' || kind === 'summarized' ? 'end' : undefined;
    for (const f of [need, ...also]) if (f !== undefined) r[f] = extra[f];
    if (kind === 'summarized' || kind === 'duplicate_output') r.group = extra.group;
    if (kind === 'summarized') r.summary_role = extra.summary_role;
    if (unavailable) {
      // §10.1: no original in the file: hash null, bytes the stated size or null, no hash_origin.
      r.ptr = { ...(r.ptr as object), hash: null, ...(extra.null_bytes ? { bytes: null } : {}) };
      delete r.hash_origin;
      r.stated_size = extra.stated_size;
      r.unavailable_why = extra.unavailable_why;
    }
    return r;
  });
const records: Record<string, fc.Arbitrary<Record<string, unknown>>> = {
  header: fields({ t: fc.constant('header'), format: fc.constant('supercode-sidecar'), version: index.map((n) => n + 1), session_id: text, created_at: text, model: text, gate: fc.boolean(), policy: fc.oneof(policy, fc.constant(null)) }),
  system: fields({ t: fc.constant('system'), msg: message }),
  message: fields({ t: fc.constant('message'), i: index, msg: message, cap: maybe(fields({ kept_bytes: index, notice: text })) }),
  reduction: fields({ t: fc.constant('reduction'), r: reduction }),
  invert: fields({ t: fc.constant('invert'), id: text }),
  rewind: fields({ t: fc.constant('rewind'), to: index }),
  model_change: fields({ t: fc.constant('model_change'), at: index, from: text, to: text, reasoning_artifacts_filtered: index }),
};

/** Fields a mutation may add where they do not belong (or with a wrong value). */
const ADDED = ['extra', 'group', 'summary_role', 'stated_size', 'unavailable_why', 'hash_origin', 'kept_bytes', 'end', 'canonical', 'cap', 'clear_turns_before', 'tool_calls', 'metadata', 'line'];

/** One random change somewhere in the value: a field removed, replaced, or added. */
function mutate(value: unknown, path: number[], replacement: unknown, how: number, added: string): unknown {
  if (typeof value !== 'object' || value === null) return replacement;
  const keys = Object.keys(value);
  if (keys.length === 0 || path.length === 0) return how === 0 ? replacement : { ...value, [added]: replacement };
  const key = keys[(path[0] ?? 0) % keys.length] ?? '';
  const copy: Record<string, unknown> = Array.isArray(value) ? { ...(value as unknown[]) } : { ...value };
  if (path.length === 1 && how === 1) delete copy[key];
  else copy[key] = mutate(copy[key], path.slice(1), replacement, how, added);
  return Array.isArray(value) ? Object.values(copy) : copy;
}

const mutation = fc.tuple(fc.array(fc.nat(), { maxLength: 4 }), fc.oneof(json, badNumber, index, text, fc.constant(null)), fc.nat({ max: 2 }), fc.constantFrom(...ADDED));

/** Any object in the value with an own `__proto__` key (JSON.parse makes one from the text "__proto__"). */
function hasProtoKey(v: unknown): boolean {
  if (typeof v !== 'object' || v === null) return false;
  if (!Array.isArray(v) && Object.prototype.hasOwnProperty.call(v, '__proto__')) return true;
  return Object.values(v).some(hasProtoKey);
}

/** The property: fast agrees with zod whenever it answers, and answers whenever zod accepts (but for `__proto__` keys). */
function agrees(fast: unknown, zod: { success: boolean; data?: unknown }, input: unknown): void {
  if (fast !== undefined) {
    expect(zod.success).toBe(true);
    expect(fast).toStrictEqual(zod.data);
    expect(JSON.stringify(fast)).toBe(JSON.stringify(zod.data));
  } else if (zod.success) {
    expect(hasProtoKey(input)).toBe(true);
  }
}

/** Through JSON text, as the loader reads it. */
const viaJson = (v: unknown): unknown => JSON.parse(JSON.stringify(v));

describe('fastRecords: the same records as the zod schemas, read without zod', () => {
  it('every record type, valid or mutated: fastSidecarRecord accepts exactly what zod accepts, with an equal value', () => {
    const arb = fc.oneof(...RECORD_TYPES.map((t) => fc.tuple(records[t] as fc.Arbitrary<Record<string, unknown>>, fc.option(mutation, { nil: undefined }))));
    const accepted = new Map<string, number>();
    let declined = 0;
    fc.assert(
      fc.property(arb, ([record, change]) => {
        const value = viaJson(change ? mutate(record, ...change) : record);
        if (typeof value !== 'object' || value === null || Array.isArray(value) || typeof (value as { t?: unknown }).t !== 'string') return;
        const t = (value as { t: string }).t;
        if (!(RECORD_TYPES as readonly string[]).includes(t)) return;
        const fast = fastSidecarRecord(value as Record<string, unknown>);
        agrees(fast, recordSchemas()[t as (typeof RECORD_TYPES)[number]].safeParse(value), value);
        if (fast !== undefined) accepted.set(t, (accepted.get(t) ?? 0) + 1);
        else declined++;
      }),
      { numRuns: 3000 },
    );
    // Both sides of the property were exercised, for every record type.
    for (const t of RECORD_TYPES) expect(accepted.get(t) ?? 0, t).toBeGreaterThan(50);
    expect(declined).toBeGreaterThan(300);
  });

  it('messages, reductions and policies on their own (a snapshot, view --policy) agree with their schemas', () => {
    fc.assert(
      fc.property(message, reduction, policy, fc.option(mutation, { nil: undefined }), (m, r, p, change) => {
        const [mm, rr, pp] = [m, r, p].map((v) => viaJson(change ? mutate(v, ...change) : v));
        const zod = zodSchemas();
        agrees(fastChatMessage(mm), zod.chatMessage.safeParse(mm), mm);
        agrees(fastReduction(rr), zod.reduction.safeParse(rr), rr);
        agrees(fastReductionPolicy(pp), zod.reductionPolicy.safeParse(pp), pp);
        // The exported chatMessageSchema answers as zod's does, its issues included.
        expect(chatMessageSchema.safeParse(mm)).toStrictEqual(zod.chatMessage.safeParse(mm));
      }),
      { numRuns: 1500 },
    );
  });

  it('an invalid record is still worded by zod: the finding names the field and the issue', () => {
    const bad = parseSidecarLine('{"t":"reduction","r":{"id":"r1","kind":"tool_output_truncated","ptr":{"index":0,"hash":"sha256:x","bytes":3},"stub":"s","minted_at":1}}', 7);
    expect(bad).toMatchObject({ ok: false, finding: { code: 'malformed_line', line: 7 } });
    expect(!bad.ok && bad.finding.message).toBe('line 7: reduction record is invalid: r.kept_bytes: tool_output_truncated requires kept_bytes');
  });

  it('arguments given as a JSON value are shown as its text, as zod transforms them', () => {
    const line = '{"t":"message","i":0,"msg":{"role":"assistant","content":null,"tool_calls":[{"id":"c","name":"n","arguments":{"cmd":"ls"}}]}}';
    const value = JSON.parse(line) as Record<string, unknown>;
    expect(fastSidecarRecord(value)).toStrictEqual(recordSchemas().message.safeParse(value).data);
    expect(parseSidecarLine(line, 1)).toMatchObject({ ok: true, record: { msg: { content: '', tool_calls: [{ arguments: '{"cmd":"ls"}' }] } } });
  });
});
