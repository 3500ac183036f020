import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonValueOf, mayBeJson } from './json';

/** What JSON.parse says of a text: its value, or undefined when it throws. */
function parsedByJson(text: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return undefined;
  }
}

const space = fc.constantFrom('', ' ', '\t', '\n', '\r\n', '  \n\t ');

describe('mayBeJson and jsonValueOf', () => {
  it('pass every JSON text, padded with JSON white space, and give JSON.parse\u2019s value', () => {
    fc.assert(
      fc.property(fc.jsonValue({ stringUnit: 'binary' }), fc.boolean(), space, space, (value, pretty, before, after) => {
        const text = before + JSON.stringify(value, null, pretty ? 2 : undefined) + after;
        expect(mayBeJson(text)).toBe(true);
        expect(jsonValueOf(text)).toEqual({ value: JSON.parse(text) as unknown });
      }),
      { numRuns: 500 },
    );
  });

  it('agree with JSON.parse on any text: the lines of a pretty-printed document, cut values, stray characters', () => {
    const pieces = fc.constantFrom('{', '}', '[', ']', '"', ':', ',', ' ', '\n', '-', '1', '0', '.', 'e', 'true', 'fals', 'null', 'nul', '\\', 'a', '\u00a0', '\ufeff');
    const text = fc.oneof(
      fc.array(pieces, { maxLength: 12 }).map((p) => p.join('')),
      fc.string({ unit: 'binary', maxLength: 12 }),
      fc.jsonValue().chain((v) => {
        const lines = JSON.stringify(v, null, 2).split('\n');
        return fc.constantFrom(...lines);
      }),
    );
    fc.assert(
      fc.property(text, (t) => {
        expect(jsonValueOf(t)).toEqual(parsedByJson(t));
        if (!mayBeJson(t)) expect(parsedByJson(t)).toBeUndefined();
      }),
      { numRuns: 2000 },
    );
  });

  it('reject without parsing what cannot pair: a key line, an opened container, a lone quote, blank text', () => {
    for (const t of ['  "trajectory": [', '{', '[', '"', ' \n ', '', '"a":1', '1.', 'tru', '\u00a0{}']) expect([t, mayBeJson(t)]).toEqual([t, false]);
    for (const t of ['{}', ' [1] ', '""', 'true', 'false', 'null', '-0', '12', '"x"']) expect([t, mayBeJson(t)]).toEqual([t, true]);
  });
});
