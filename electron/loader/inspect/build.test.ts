/**
 * buildSample on samples edited by hand, where what the history must show is read off the sample's
 * own events: a model event recorded again for an output an earlier call already produced. And
 * resolveAttachments against a copy-everything model, on any JSON.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildSample, resolveAttachments } from './build';
import { syntheticSamples } from './testing/synthetic';

type Obj = Record<string, unknown>;
const objects = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter((x): x is Obj => typeof x === 'object' && x !== null) : []);

describe('buildSample: a model event repeated for an output already produced', () => {
  // The trim sample: calls for a2, a4 and a6; a trim compaction before the third drops messages 2–3.
  const trim = syntheticSamples().trim1;
  const events = objects(trim.events);
  const models = events.filter((e) => e.event === 'model');
  const compaction = events.find((e) => e.event === 'compaction')!;
  const clean = buildSample(trim, 'trim');

  it('is not a call again: it reduces nothing, and the compaction stays the origin of what it dropped', () => {
    // Inspect logs a retried generate as another model event: here the second call's output again,
    // given a shorter input (only messages 0–1) than the call that produced it.
    const again: Obj = { ...models[1], uuid: 'ev-model-retry', input: objects(models[0]!.input) };
    const at = events.indexOf(models[1]!) + 1;
    const repeated = { ...trim, events: [...events.slice(0, at), again, ...events.slice(at)] };
    const built = buildSample(repeated, 'trim');
    // Read off the sample: one reduction, the trim's run 2–4, recorded with the compaction event as its origin.
    const shape = built.log.map((r): unknown[] => [r.kind, r.ptr.index, r.end, r.provenance, r.origin && 'event' in r.origin ? r.origin.event : undefined]);
    expect(shape).toEqual([['turns_cleared', 2, 4, 'recorded', compaction.uuid]]);
    expect(built.findings).toEqual([]);
    expect(built.view).toEqual(clean.view);
    expect(built.log.map((r) => r.kind)).toEqual(clean.log.map((r) => r.kind));
  });

  it('repeated as recorded, with the same input, changes nothing either', () => {
    const at = events.indexOf(models[2]!) + 1;
    const built = buildSample({ ...trim, events: [...events.slice(0, at), { ...models[2], uuid: 'ev-model-again' }, ...events.slice(at)] }, 'trim');
    expect(built.log).toEqual(clean.log);
    expect(built.findings).toEqual([]);
  });
});

describe('resolveAttachments', () => {
  const REF = 'attachment://';
  /** The model: every string resolved, every list and object copied, keys set as JSON.parse sets them. */
  const model = (v: unknown, attachments: Obj, missing: Set<string>): unknown => {
    if (typeof v === 'string') {
      if (!v.startsWith(REF)) return v;
      const got = attachments[v.slice(REF.length)];
      if (typeof got === 'string') return got;
      missing.add(v.slice(REF.length));
      return v;
    }
    if (Array.isArray(v)) return v.map((x) => model(x, attachments, missing));
    if (typeof v === 'object' && v !== null) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, model(x, attachments, missing)]));
    return v;
  };
  const hashes = ['a1', 'b2', 'c3', 'gone'];
  // Any JSON (through JSON.parse, so a `__proto__` key is the file's own), with references to attachments, some of them missing.
  const json = fc
    .jsonValue({ maxDepth: 4 })
    .chain((base) => fc.tuple(fc.constant(base), fc.array(fc.tuple(fc.nat(), fc.constantFrom(...hashes)), { maxLength: 6 })))
    .map(([base, refs]) => {
      let n = 0;
      // Some of the strings (each ref's number says whether) made references.
      const text = JSON.stringify(base, (_k, x: unknown) => {
        if (typeof x !== 'string' || refs.length === 0) return x;
        const [pick, hash] = refs[n++ % refs.length] as [number, string];
        return pick % 3 === 0 ? x : `${REF}${hash}`;
      });
      return JSON.parse(text) as unknown;
    });
  const attachments: Obj = { a1: 'first attachment', b2: 'second', c3: '' };

  it('gives what resolving a copy of everything gives, names the same missing ones, and changes nothing it is given', () => {
    fc.assert(
      fc.property(json, (v) => {
        const before = JSON.stringify(v);
        const missing = new Set<string>();
        const expectedMissing = new Set<string>();
        const got = resolveAttachments(v, attachments, missing);
        expect(got).toStrictEqual(model(v, attachments, expectedMissing));
        expect([...missing].sort()).toEqual([...expectedMissing].sort());
        expect(JSON.stringify(v)).toBe(before);
      }),
      { numRuns: 500 },
    );
  });

  it('gives back what holds no reference as it is, and copies only the lists and objects on the way to one', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), (raw) => {
        const v = JSON.parse(JSON.stringify(raw).replaceAll(REF, 'attachment:')) as unknown;
        expect(resolveAttachments(v, attachments, new Set())).toBe(v);
      }),
      { numRuns: 300 },
    );
    const plain = { text: 'no reference', parts: [{ type: 'text', text: 'x' }] };
    const sample = { messages: [plain, { role: 'user', content: [{ type: 'image', image: `${REF}a1` }] }], meta: { k: 1 } };
    const got = resolveAttachments(sample, attachments, new Set()) as typeof sample;
    expect(got.messages[1]).toEqual({ role: 'user', content: [{ type: 'image', image: 'first attachment' }] });
    expect(got).not.toBe(sample);
    expect(got.messages).not.toBe(sample.messages);
    expect(got.messages[0]).toBe(plain);
    expect(got.meta).toBe(sample.meta);
  });

  it('keeps a `__proto__` key of the file as a key of the copy', () => {
    const v = JSON.parse(`{"__proto__": {"x": "${REF}a1"}, "y": "${REF}b2"}`) as Obj;
    const got = resolveAttachments(v, attachments, new Set()) as Obj;
    expect(Object.getPrototypeOf(got)).toBe(Object.prototype);
    expect(Object.keys(got)).toEqual(['__proto__', 'y']);
    expect(Object.getOwnPropertyDescriptor(got, '__proto__')?.value).toEqual({ x: 'first attachment' });
  });
});
