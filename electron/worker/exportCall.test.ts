/**
 * The worker's `exportCall` reply (`Export call…` in the app, SPEC §16): the body
 * `export --call N --as PROVIDER` prints, valid under the contract, named for a download;
 * `invalid_request` for a call that is none.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseReply } from '../../shared/index';
import { runCli } from '../cli/testing/runCli';
import { serviceFixture } from './testing/serviceTests';

const ROOT = join(import.meta.dirname, '../..');
const CLAUDE = join(ROOT, 'e2e/fixtures/real/claude-code/cc-2.1.7-parallel-results.jsonl');
const { opened } = serviceFixture('session-inspector-export-call-');

describe('exportCall reply', () => {
  it('is the body the command line prints, for each provider and --expanded, with its notes and a file name', async () => {
    const s = await opened([CLAUDE]);
    for (const provider of ['anthropic', 'openai-chat', 'openai-responses'] as const) {
      for (const expanded of [false, true]) {
        const reply = s.handle('exportCall', { call: 3, provider, expanded });
        expect(parseReply('exportCall', reply).ok).toBe(true);
        if (!reply.ok) throw new Error(reply.error.message);
        const cli = await runCli(['export', '--call', '3', '--as', provider, ...(expanded ? ['--expanded'] : []), '--with-notes', CLAUDE]);
        const printed = JSON.parse(cli.stdout) as { request: unknown; not_recorded: string[] };
        expect(JSON.parse(reply.value.request)).toEqual(printed.request);
        expect(reply.value.not_recorded).toEqual(printed.not_recorded);
        expect(reply.value).toMatchObject({ call: 3, provider, format: 'claude-code', expanded, filename: `call-3-${provider}${expanded ? '-expanded' : ''}.json` });
      }
    }
    // Without a provider: the one Claude Code speaks.
    const own = s.handle('exportCall', { call: 1, expanded: false });
    expect(own.ok && own.value.provider).toBe('anthropic');
  });

  it('refuses a call that is none of the session', async () => {
    const s = await opened([CLAUDE]);
    const far = s.handle('exportCall', { call: 99, expanded: false });
    expect(far.ok ? '' : far.error.code).toBe('invalid_request');
  });
});
