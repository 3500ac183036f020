import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonParse } from './jsonParse';

const thrown = (f: () => unknown): Error => {
  try {
    f();
  } catch (e) {
    return e as Error;
  }
  throw new Error('it did not throw');
};

describe('jsonParse', () => {
  it('gives JSON.parse’s value for any JSON text', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = JSON.stringify(value);
        expect(jsonParse(text)).toEqual(JSON.parse(text));
      }),
    );
  });

  it('throws JSON.parse’s error, with its message, and no stack frames; the stack trace limit is put back', () => {
    const errors = Error as { stackTraceLimit?: number };
    const limit = errors.stackTraceLimit;
    fc.assert(
      fc.property(fc.string(), (text) => {
        let expected: Error | undefined;
        try {
          JSON.parse(text);
        } catch (e) {
          expected = e as Error;
        }
        if (expected === undefined) return;
        const error = thrown(() => jsonParse(text));
        expect(error).toBeInstanceOf(SyntaxError);
        expect(error.message).toBe(expected.message);
        expect(error.stack ?? '').not.toMatch(/\n\s+at /);
        expect(expected.stack ?? '').toMatch(/\n\s+at /);
        expect(errors.stackTraceLimit).toBe(limit);
      }),
    );
  });
});
