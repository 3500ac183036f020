/**
 * The worker's `trace` (the app's `Where did it go?`): answered in slices as a search is, the same
 * occurrences as the command line's `trace` (electron/cli/trace.test.ts holds those to the file's
 * records), and cancelled when the session is closed while it runs.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ParsedParams } from '../../shared/index';
import { methods } from '../../shared/index';
import { runCli } from '../cli/testing/runCli';
import { openedServices } from './testing/services';

const CLAUDE = join(import.meta.dirname, '../../e2e/fixtures/real/claude-code/cc-2.0.76-compact-boundary.jsonl');
const opened = openedServices();
const params = (raw: unknown): ParsedParams<'trace'> => methods.trace.params.parse(raw);

describe('the worker’s trace', () => {
  it('answers what the command line prints for the same query', async () => {
    const s = await opened(CLAUDE);
    const reply = await s.handle('trace', params({ searchId: 't1', query: 'Goodbye!' }));
    const cli = await runCli(['trace', '--query', 'Goodbye!', CLAUDE]);
    expect(reply).toEqual({ ok: true, value: JSON.parse(cli.stdout) as unknown });
    // The reply is what the contract allows through to the renderer.
    expect(methods.trace.result.safeParse(reply.ok ? reply.value : null).success).toBe(true);
  });

  it('a bad pattern is invalid_query; a raised signal is cancelled', async () => {
    const s = await opened(CLAUDE);
    const bad = await s.handle('trace', params({ searchId: 't2', query: '(', mode: 'regex' }));
    expect(bad.ok ? 'ok' : bad.error.code).toBe('invalid_query');
    const cancelled = await s.handle('trace', params({ searchId: 't3', query: 'Goodbye!' }), { signal: { aborted: true } });
    expect(cancelled.ok ? 'ok' : cancelled.error.code).toBe('cancelled');
  });
});
