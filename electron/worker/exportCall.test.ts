/**
 * The worker's `exportCall` reply (`Export call…` in the app, SPEC §16): the body
 * `export --call N --as PROVIDER` prints, valid under the contract, named for a download;
 * `invalid_request` for a call that is none.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { LoadedSession } from '../../shared/index';
import { parseReply } from '../../shared/index';
import { callRequest } from '../../shared/export/callRequest';
import { PROVIDERS, expandedBytesAtLeast } from '../../shared/export/request';
import { runCli } from '../cli/testing/runCli';
import { loadSession } from '../loader/session';
import { exportCallReply } from './handlers/exportCall';
import { serviceFixture } from './testing/serviceTests';

const ROOT = join(import.meta.dirname, '../..');
const CLAUDE = join(ROOT, 'e2e/fixtures/real/claude-code/cc-2.1.7-parallel-results.jsonl');
const REAL = join(ROOT, 'e2e/fixtures/real');
/** Sessions of every format, with compactions, persisted outputs, images and parallel calls among them. */
const FILES = [
  CLAUDE,
  join(REAL, 'claude-code/cc-2.1.14-two-compactions.jsonl'),
  join(REAL, 'claude-code/cc-2.1.17-persisted-bash.jsonl'),
  join(REAL, 'claude-code/cc-2.1.119-attachments.jsonl'),
  join(REAL, 'codex/rollout-0.118-exec-parallel-calls-ENTIRE.jsonl'),
  join(REAL, 'codex/rollout-0.126-desktop-websearch-customtool-ENTIRE.jsonl'),
  join(REAL, 'inspect/2025-05-12T20-28-26-04-00_security-guide.json'),
  join(REAL, 'inspect/log_message_deduplication.eval'),
  join(REAL, 'mini-swe-agent/sqlfluff-2419-2.2.7-submitted.traj.json'),
  join(REAL, 'swe-agent/marshmallow-1867-function-calling-replace-from-source.traj'),
  join(REAL, 'openhands/basic_interactions.json'),
  join(ROOT, 'samples/demo.sidecar.jsonl'),
  join(ROOT, 'samples/session.sidecar.jsonl'),
];

/** Up to twelve calls of `n`, spread over them, the first and the last among them. */
const someCalls = (n: number): number[] => [...new Set(Array.from({ length: Math.min(n, 12) }, (_, k) => 1 + Math.round((k * (n - 1)) / Math.max(1, Math.min(n, 12) - 1))))];

/** `session` with every member it is asked for noted in `asked`. */
function noting(session: LoadedSession, asked: Set<string>): LoadedSession {
  return new Proxy(session, {
    get(target, key, receiver) {
      if (typeof key === 'string') asked.add(key);
      return Reflect.get(target, key, receiver) as unknown;
    },
  });
}
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

  it('is never smaller than its texts alone, the bound an expanded body is refused by before it is built, on sessions of every format', async () => {
    for (const file of FILES) {
      const loaded = await loadSession([file]);
      if (!loaded.ok) throw new Error(`${file}: ${loaded.error.message}`);
      const { session } = loaded;
      try {
        expect(session.calls.length, file).toBeGreaterThan(0);
        for (const call of someCalls(session.calls.length)) {
          const least = expandedBytesAtLeast(session, call);
          if (least === undefined) throw new Error(`${file}: no call ${call}`);
          for (const provider of PROVIDERS) {
            const out = callRequest(session, call, provider, true);
            if (!out) throw new Error(`${file}: no request for call ${call}`);
            expect(Buffer.byteLength(JSON.stringify(out.request, null, 2), 'utf8'), `${file} call ${call} ${provider}`).toBeGreaterThanOrEqual(least);
          }
        }
        // The bound counts the texts, not nothing: the last call's input holds some.
        expect(expandedBytesAtLeast(session, session.calls.length), file).toBeGreaterThan(0);
        expect(expandedBytesAtLeast(session, session.calls.length + 1)).toBeUndefined();
      } finally {
        session.close();
      }
    }
  });

  it('refuses an expanded body its texts put past the limit before building it, and any body past it once built', async () => {
    const loaded = await loadSession([join(REAL, 'claude-code/cc-2.1.14-two-compactions.jsonl')]);
    if (!loaded.ok) throw new Error(loaded.error.message);
    const { session } = loaded;
    try {
      const call = session.calls.length;
      const least = expandedBytesAtLeast(session, call) ?? 0;
      const whole = exportCallReply(session, { call, provider: 'anthropic', expanded: true }, Number.MAX_SAFE_INTEGER);
      if (!whole.ok) throw new Error(whole.error.message);
      const bytes = Buffer.byteLength(whole.value.request, 'utf8');
      expect(bytes).toBeGreaterThan(least);
      // Under the texts' own length: refused from the lengths, the body never built (building it asks the session for its system prompt).
      const asked = new Set<string>();
      const early = exportCallReply(noting(session, asked), { call, provider: 'anthropic', expanded: true }, least - 1);
      expect(early.ok ? '' : early.error.code).toBe('too_large');
      expect(early.ok ? '' : early.error.message).toContain(`its texts alone are ${least} bytes`);
      expect(early.ok ? '' : early.error.message).toContain(`export --call ${call} --expanded`);
      expect(asked.has('system')).toBe(false);
      // Between the two: built, then refused.
      asked.clear();
      const late = exportCallReply(noting(session, asked), { call, provider: 'anthropic', expanded: true }, bytes - 1);
      expect(late.ok ? '' : late.error.code).toBe('too_large');
      expect(late.ok ? '' : late.error.message).not.toContain('texts alone');
      expect(asked.has('system')).toBe(true);
      // At the body's size it fits; unexpanded, the texts are not counted first.
      expect(exportCallReply(session, { call, provider: 'anthropic', expanded: true }, bytes).ok).toBe(true);
      const shown = exportCallReply(session, { call, provider: 'anthropic', expanded: false }, Number.MAX_SAFE_INTEGER);
      expect(shown.ok).toBe(true);
    } finally {
      session.close();
    }
  });

  it('refuses a call that is none of the session', async () => {
    const s = await opened([CLAUDE]);
    const far = s.handle('exportCall', { call: 99, expanded: false });
    expect(far.ok ? '' : far.error.code).toBe('invalid_request');
  });
});
