/** Policy replay and the what-if view: the worker's `replay` and `whatIf` replies agree with the command line's. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { CheckReport, ReductionPolicy, SidecarHeader } from '../../shared/index';
import { methods } from '../../shared/index';
import { runCli } from '../cli/testing/runCli';
import { withKeptBytesChanged } from '../../tools/samples/policyMutants';
import { generateSession, sidecarText } from '../../tools/samples/sessionGenerator';
import { tempDir } from '../../tools/testing/files';
import { openedServices } from './testing/services';

const SESSION = join(import.meta.dirname, '../../samples/session.sidecar.jsonl');
const CODEX = join(import.meta.dirname, '../../e2e/fixtures/real/codex/rollout-0.139-review-cut-output-ENTIRE.jsonl');
const tmp = tempDir('session-inspector-worker-replay-');
afterAll(() => tmp.cleanup());
const opened = openedServices();

function value<T>(reply: { ok: true; value: T } | { ok: false; error: { code: string; message: string } }): T {
  if (!reply.ok) throw new Error(`expected ok, got ${reply.error.code}: ${reply.error.message}`);
  return reply.value;
}

const policy = (generateSession({}).records[0] as SidecarHeader).policy as ReductionPolicy;

describe('SessionService replay', () => {
  it('a mutant: the same policy_divergence findings as check --replay prints', async () => {
    const path = tmp.path('kept.sidecar.jsonl');
    writeFileSync(path, sidecarText(withKeptBytesChanged(generateSession({ seed: 9 })).records));
    const reply = value((await opened(path)).handle('replay', methods.replay.params.parse({})));
    const cli = JSON.parse((await runCli(['check', '--replay', path])).stdout) as CheckReport;
    expect(reply).toMatchObject({ replayed: true, divergences: 1 });
    expect(reply.findings).toEqual(cli.findings.filter((f) => f.code === 'policy_divergence'));
  });

  it('a foreign format: not replayed, with a note', async () => {
    const reply = value((await opened(CODEX)).handle('replay', {}));
    expect(reply.replayed).toBe(false);
    expect(reply.note).toMatch(/codex/);
    expect(reply.findings).toEqual([]);
  });
});

describe('SessionService whatIf', () => {
  it("the counts, bytes and lists are view --policy's diff", async () => {
    const changed = { ...policy, max_tool_result_bytes: 2000 };
    const reply = value((await opened(SESSION)).handle('whatIf', methods.whatIf.params.parse({ policy: changed })));
    const file = tmp.path('policy.json');
    writeFileSync(file, JSON.stringify(changed));
    const cli = JSON.parse((await runCli(['view', '--policy', file, SESSION])).stdout) as { diff: { counts: unknown; bytes: unknown; messages: unknown; reductions: { added: unknown; removed: unknown; changed: unknown } } };
    expect(reply.counts).toEqual(cli.diff.counts);
    expect(reply.bytes).toEqual(cli.diff.bytes);
    expect(reply.messages).toEqual(cli.diff.messages);
    expect([reply.added, reply.removed, reply.changed]).toEqual([cli.diff.reductions.added, cli.diff.reductions.removed, cli.diff.reductions.changed]);
  });

  it('the contract refuses a policy that is not one', () => {
    expect(methods.whatIf.params.safeParse({ policy: { ...policy, max_tool_result_bytes: -1 } }).success).toBe(false);
    expect(methods.whatIf.params.safeParse({ policy: { ...policy, dedupe: 'yes' } }).success).toBe(false);
  });
});
