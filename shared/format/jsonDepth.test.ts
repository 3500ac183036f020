/** The depth walks of shared/format/jsonDepth.ts: exact at the limit, iterative at any depth, cuts in place and says where. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEEP_MARKER, MAX_JSON_DEPTH, capDepth, capParsedDepth, deeperThan, depthCutMessage } from './jsonDepth';

const nested = (depth: number): unknown => JSON.parse(`${'['.repeat(depth)}0${']'.repeat(depth)}`);

/** The depth of a value by a plain recursive walk (the oracle; only for shallow values). */
function depthOf(v: unknown): number {
  if (typeof v !== 'object' || v === null) return 0;
  return 1 + Math.max(0, ...(Array.isArray(v) ? v : Object.values(v)).map(depthOf));
}

describe('deeperThan', () => {
  it('is exact at the limit', () => {
    expect(deeperThan(nested(MAX_JSON_DEPTH))).toBe(false);
    expect(deeperThan(nested(MAX_JSON_DEPTH + 1))).toBe(true);
    expect(deeperThan('text')).toBe(false);
  });

  it('agrees with a recursive walk on any JSON value', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 8 }), fc.nat({ max: 10 }), (v, limit) => {
        expect(deeperThan(v, limit)).toBe(depthOf(v) > limit);
      }),
    );
  });

  it('walks 300,000 levels without a stack', () => {
    expect(deeperThan(nested(300_000))).toBe(true);
  });
});

describe('capParsedDepth', () => {
  it('cuts what capDepth cuts, the text\'s length aside (deep texts as short as they can be written)', () => {
    fc.assert(
      fc.property(fc.nat({ max: 12 }), fc.nat({ max: 14 }), fc.jsonValue({ maxDepth: 3 }), fc.constantFrom('[', '{"k":'), (limit, depth, leaf, open) => {
        const close = open === '[' ? ']' : '}';
        const text = `${open.repeat(depth)}${JSON.stringify(leaf)}${close.repeat(depth)}`;
        const expected = capDepth(JSON.parse(text), limit);
        expect(capParsedDepth(JSON.parse(text), text, limit)).toEqual(expected);
      }),
      { numRuns: 500 },
    );
  });

  it('cuts what capDepth cuts in texts padded with spaces and holding brackets inside strings', () => {
    fc.assert(
      fc.property(fc.nat({ max: 10 }), fc.jsonValue({ maxDepth: 8 }), fc.string({ unit: fc.constantFrom('{', '[', ']', 'a') }), fc.nat({ max: 3 }), (limit, value, brackets, indent) => {
        const text = JSON.stringify([brackets, value], null, indent);
        expect(capParsedDepth(JSON.parse(text), text, limit)).toEqual(capDepth(JSON.parse(text), limit));
      }),
      { numRuns: 500 },
    );
  });

  it('cuts what capDepth cuts in a text too long to count its brackets first', () => {
    const text = `${'['.repeat(MAX_JSON_DEPTH + 1)}${JSON.stringify('x'.repeat(300_000))}${']'.repeat(MAX_JSON_DEPTH + 1)}`;
    const cut = capParsedDepth(JSON.parse(text), text);
    expect(cut).toEqual(capDepth(JSON.parse(text)));
    expect(cut?.count).toBe(1);
    const shallow = JSON.stringify({ a: 'x'.repeat(300_000) });
    expect(capParsedDepth(JSON.parse(shallow), shallow)).toBeUndefined();
  });

  it('walks a text long enough to nest past the limit', () => {
    const text = `${'['.repeat(MAX_JSON_DEPTH + 1)}${']'.repeat(MAX_JSON_DEPTH + 1)}`;
    expect(capParsedDepth(JSON.parse(text), text)?.count).toBe(1);
  });
});

describe('capDepth', () => {
  it('leaves a value within the limit untouched', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), (v) => {
        // A deep copy that keeps -0 (a JSON round trip makes it 0).
        const clone = (x: unknown): unknown =>
          Array.isArray(x) ? x.map(clone) : x !== null && typeof x === 'object' ? Object.fromEntries(Object.entries(x).map(([k, y]) => [k, clone(y)])) : x;
        const copy = clone(v);
        expect(capDepth(v, 6)).toBeUndefined();
        expect(v).toEqual(copy);
      }),
    );
  });

  it('cuts every place deeper than the limit, in place, and names where', () => {
    const v = JSON.parse('{"a":[1,[[2]]],"b":{"c":{"d":{}}},"__proto__":[[["x"]]]}') as Record<string, unknown>;
    const cut = capDepth(v, 2);
    expect(cut?.count).toBe(3);
    expect([...(cut?.paths ?? [])].sort()).toEqual(['__proto__[0]', 'a[1]', 'b.c']);
    expect(v.a).toEqual([1, DEEP_MARKER]);
    expect(v.b).toEqual({ c: DEEP_MARKER });
    // A `__proto__` key stays an own data property.
    expect(Object.getPrototypeOf(v)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(v, '__proto__')?.value).toEqual([DEEP_MARKER]);
    expect(deeperThan(v, 2)).toBe(false);
  });

  it('caps a 100,000-level chain at the limit', () => {
    const v = nested(100_000);
    const cut = capDepth(v);
    expect(cut?.count).toBe(1);
    expect(cut?.paths[0]).toBe('[0][0][0][0][0][0]…');
    expect(deeperThan(v)).toBe(false);
    expect(JSON.stringify(v).length).toBe(2 * MAX_JSON_DEPTH + JSON.stringify(DEEP_MARKER).length);
    expect(depthCutMessage('line 7', cut!)).toBe(`line 7 is nested deeper than ${MAX_JSON_DEPTH} levels (at [0][0][0][0][0][0]…); what lies deeper is shown as "${DEEP_MARKER}"`);
  });
});
