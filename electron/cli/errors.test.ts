/** CliError across bundles: each chunk of the command line has its own copy of errors.ts (scripts/build.mjs). */
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { RAW_INVISIBLE } from '../../shared/testing/invisible';
import { CliError, terminalSentence, usageError } from './errors';

describe('CliError', () => {
  it('an error made by another copy of the module is a CliError; other errors are not', async () => {
    vi.resetModules();
    const other = await import('./errors');
    expect(other.CliError).not.toBe(CliError); // really a second copy
    const foreign = other.usageError('from a chunk');
    expect(foreign instanceof CliError).toBe(true);
    expect(usageError('here') instanceof other.CliError).toBe(true);
    expect(new Error('plain') instanceof CliError).toBe(false);
    expect(Object.assign(new Error('look-alike'), { code: 'usage' }) instanceof CliError).toBe(false);
    expect((null as unknown as object) instanceof CliError).toBe(false);
    expect({ code: 'x' } instanceof CliError).toBe(false);
  });
});

describe('terminalSentence', () => {
  it('writes every control, bidi, zero-width and line-breaking character as an ASCII escape (fast-check)', () => {
    expect(terminalSentence('bad id r\u200b1 \u202Egnp \u001b]52;c;eA==\u0007 \u00ad')).toBe('bad id r\\u200b1 \\u202egnp \\u001b]52;c;eA==\\u0007 \\u00ad.');
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (message) => {
        expect(terminalSentence(message)).not.toMatch(RAW_INVISIBLE);
      }),
      { numRuns: 2000 },
    );
  });
});
