/** CliError across bundles: each chunk of the command line has its own copy of errors.ts (scripts/build.mjs). */
import { describe, expect, it, vi } from 'vitest';
import { CliError, usageError } from './errors';

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
