/**
 * A cache break's cause (SPEC §15, docs/tokens.md "Cache breaks") is found without making the two
 * calls' diff (`firstChangeOfCalls`): it must be what the diff's first change is, for any two calls
 * of the real Claude Code files (subagents' too) and Codex files, a sample and a generated session
 * with compactions and microcompactions (reductions made, ended and restored between calls).
 */
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { CallDiff, ModelCall } from '../../shared/calls/calls';
import { diffOfCalls } from '../../shared/calls/calls';
import type { CacheBreak } from '../../shared/tokens/summary';
import { firstChangeOfCalls } from '../../shared/tokens/summary';
import { sessionFilesUnder, tempDir } from '../../tools/testing/files';
import { generateClaudeTranscript } from './claudeCode/testing/generate';
import type { LoadedSession } from './session';
import { loadSession } from './session';

const REAL = join(import.meta.dirname, '../../e2e/fixtures/real');
const SAMPLES = join(import.meta.dirname, '../../samples');
const tmp = tempDir('session-inspector-cache-break-cause-');
afterAll(() => tmp.cleanup());

/** The first change of a diff, as `check` found it from the whole diff: reduced, then restored (each in index order), then the messages removed. */
function firstChangeOfDiff(diff: CallDiff): CacheBreak['cause'] {
  let best: CacheBreak['cause'] = null;
  const consider = (index: number, reduction?: string): void => {
    if (best === null || index < best.message_index) best = { ...(reduction !== undefined ? { reduction } : {}), message_index: index };
  };
  for (const r of diff.reduced) consider(r.index, r.reduction_id);
  for (const r of diff.restored) consider(r.index, r.reduction_id);
  for (const m of diff.removed) consider(m.index);
  return best;
}

async function open(path: string): Promise<LoadedSession> {
  const loaded = await loadSession([path]);
  if (!loaded.ok) throw new Error(loaded.error.message);
  return loaded.session;
}

const sessions = (): string[] => [
  ...sessionFilesUnder(join(REAL, 'claude-code')),
  ...sessionFilesUnder(join(REAL, 'codex')),
  join(SAMPLES, 'session.sidecar.jsonl'),
  generateClaudeTranscript(tmp.dir, { bytes: 3_000_000, seed: 21, outputScale: 0.25, compactEvery: 600_000 }).path,
];

describe('a cache break’s cause, found without the diff', () => {
  it.each(sessions().map((p) => [p.slice(p.lastIndexOf('/') + 1), p] as const))('%s: the diff’s first change for every two calls in a row, and any two calls', async (_name, path) => {
    const s = await open(path);
    try {
      const calls = s.callTimeline.calls;
      expect(calls.length).toBeGreaterThan(0);
      const cause = (a: ModelCall, b: ModelCall): CacheBreak['cause'] => firstChangeOfCalls(s.callTimeline, s.minted, a, b);
      const reference = (a: ModelCall, b: ModelCall): CacheBreak['cause'] => firstChangeOfDiff(diffOfCalls(s.callTimeline, s.minted, a, b));
      let changed = 0;
      for (let k = 1; k < calls.length; k++) {
        const [a, b] = [calls[k - 1] as ModelCall, calls[k] as ModelCall];
        const expected = reference(a, b);
        if (expected?.reduction !== undefined) changed++;
        expect(cause(a, b)).toEqual(expected);
      }
      fc.assert(
        fc.property(fc.nat(calls.length - 1), fc.nat(calls.length - 1), (i, j) => {
          const [a, b] = [calls[i] as ModelCall, calls[j] as ModelCall];
          expect(cause(a, b)).toEqual(reference(a, b));
        }),
        { numRuns: 200 },
      );
      // The files where reductions go live between calls: a cause names one.
      if (s.log.length > 0) expect(changed).toBeGreaterThan(0);
    } finally {
      s.close();
    }
  });
});
