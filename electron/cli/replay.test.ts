/** `check --replay` and `view --policy` on the command line. */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { CheckReport, ReductionPolicy, SidecarHeader, ViewEntry, WhatIfDiff } from '../../shared/index';
import { utf8Length } from '../../shared/index';
import type { TokenEstimate } from '../../shared/tokens/estimate';
import { withKeptBytesChanged, withReductionAdded, withReductionRemoved } from '../../tools/samples/policyMutants';
import type { GeneratedSession } from '../../tools/samples/sessionGenerator';
import { generateSession, sidecarText } from '../../tools/samples/sessionGenerator';
import { tempDir } from '../../tools/testing/files';
import { fifoWriter } from '../loader/testing/foreignFiles';
import type { ReplaySummary } from '../loader/replay';
import { runCli } from './testing/runCli';

const ROOT = join(import.meta.dirname, '../..');
const SAMPLES = join(ROOT, 'samples');
const CODEX = join(ROOT, 'e2e/fixtures/real/codex/rollout-0.139-review-cut-output-ENTIRE.jsonl');

const tmp = tempDir('session-inspector-replay-');
afterAll(() => tmp.cleanup());

type ReplayCheck = CheckReport & { replay: ReplaySummary };
interface WhatIfOutput {
  format: string;
  call: null;
  calls: number;
  messages: ViewEntry[];
  tokens_est: TokenEstimate;
  policy: ReductionPolicy;
  diff: WhatIfDiff;
}

async function checkReplay(files: string[], strict = false): Promise<{ code: number; report: ReplayCheck }> {
  const r = await runCli(['check', '--replay', ...(strict ? ['--strict'] : []), ...files]);
  return { code: r.code, report: JSON.parse(r.stdout) as ReplayCheck };
}

function write(name: string, records: GeneratedSession['records']): string {
  const path = tmp.path(name);
  writeFileSync(path, sidecarText(records));
  return path;
}

function writePolicy(name: string, policy: unknown): string {
  const path = tmp.path(name);
  writeFileSync(path, JSON.stringify(policy));
  return path;
}

const policyOf = (path: string, records: GeneratedSession['records']): ReductionPolicy => {
  const p = (records[0] as SidecarHeader).policy;
  if (!p) throw new Error(`${path} names a policy`);
  return p;
};

describe('check --replay', () => {
  it.each(['session.sidecar.jsonl', 'legacy.sidecar.jsonl', 'session.session.json'])('samples/%s: replayed, no divergence, exit 0', async (name) => {
    const { code, report } = await checkReplay([join(SAMPLES, name)]);
    expect(code).toBe(0);
    expect(report.replay).toMatchObject({ replayed: true, divergences: 0 });
    expect(report.replay.passes).toBeGreaterThan(10);
    expect(report.findings.filter((f) => f.code === 'policy_divergence')).toEqual([]);
  });

  it('without --replay, check prints no replay and no policy_divergence even for a mutant', async () => {
    const path = write('kept-plain.sidecar.jsonl', withKeptBytesChanged(generateSession({ seed: 5 })).records);
    const r = await runCli(['check', path]);
    const report = JSON.parse(r.stdout) as ReplayCheck;
    expect(report.replay).toBeUndefined();
    expect(report.findings.map((f) => f.code)).not.toContain('policy_divergence');
  });

  const mutants = [
    ['one reduction removed', withReductionRemoved],
    ['one reduction added', withReductionAdded],
    ['one kept_bytes changed', withKeptBytesChanged],
  ] as const;
  it.each(mutants)('%s: one policy_divergence warning naming it; exit 0, and 1 with --strict', async (name, mutate) => {
    const mutant = mutate(generateSession({ seed: 5 }));
    const path = write(`${name.replace(/ /g, '-')}.sidecar.jsonl`, mutant.records);
    const { code, report } = await checkReplay([path]);
    const divergences = report.findings.filter((f) => f.code === 'policy_divergence');
    expect(divergences).toHaveLength(1);
    expect(report.replay.divergences).toBe(1);
    const d = divergences[0];
    expect(d?.severity).toBe('warning');
    expect(d?.index).toBe(mutant.reduction.ptr.index);
    if (name === 'one reduction removed') expect(d?.reduction_id).toBeUndefined();
    else expect(d).toMatchObject({ reduction_id: mutant.reduction.id, line: mutant.line });
    // Warnings count in the summary; the exit status follows the errors the plain check finds.
    const plain = JSON.parse((await runCli(['check', path])).stdout) as CheckReport;
    expect(report.summary.warnings).toBe(plain.summary.warnings + 1);
    expect(code).toBe(plain.summary.errors > 0 ? 1 : 0);
    expect((await checkReplay([path], true)).code).toBe(1);
  });

  it('a header without a policy: a note, no finding', async () => {
    const { records } = generateSession({ seed: 3 });
    const path = write('no-policy.sidecar.jsonl', [{ ...(records[0] as SidecarHeader), policy: null }, ...records.slice(1)]);
    const { code, report } = await checkReplay([path]);
    expect(code).toBe(0);
    expect(report.replay).toMatchObject({ replayed: false, policy: null, passes: 0, divergences: 0 });
    expect(report.replay.note).toMatch(/names no policy/);
    expect(report.findings).toEqual([]);
  });

  it('a foreign format: a note naming the format, no finding', async () => {
    const { report } = await checkReplay([CODEX]);
    expect(report.replay).toMatchObject({ replayed: false, divergences: 0 });
    expect(report.replay.note).toMatch(/codex/);
    expect(report.findings.map((f) => f.code)).not.toContain('policy_divergence');
  });
});

describe('view --policy', () => {
  const sample = join(SAMPLES, 'session.sidecar.jsonl');
  const { records } = generateSession({});
  const own = policyOf(sample, records);

  it("the session's own policy: the recorded view exactly, and an empty diff", async () => {
    const plain = JSON.parse((await runCli(['view', sample])).stdout) as WhatIfOutput;
    const r = await runCli(['view', '--policy', writePolicy('own.json', own), sample]);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as WhatIfOutput;
    expect(Object.keys(out)).toEqual(['format', 'call', 'calls', 'messages', 'tokens_est', 'policy', 'diff']);
    // The same messages with the same estimates (SPEC §15: a what-if view is estimated too).
    expect(out.messages).toEqual(plain.messages);
    expect(out.tokens_est).toEqual(plain.tokens_est);
    expect({ format: out.format, call: out.call, calls: out.calls }).toEqual({ format: plain.format, call: null, calls: plain.calls });
    expect(out.policy).toEqual(own);
    expect(out.diff.counts).toEqual({ added: 0, removed: 0, changed: 0, messages: 0 });
    expect(out.diff.bytes.policy).toBe(out.diff.bytes.recorded);
  });

  it('a smaller max_tool_result_bytes: more reductions, fewer bytes; every listed message is shown that size, and the totals add up', async () => {
    const plain = JSON.parse((await runCli(['view', sample])).stdout) as WhatIfOutput;
    const out = JSON.parse((await runCli(['view', '--policy', writePolicy('small.json', { ...own, max_tool_result_bytes: 1500 }), sample])).stdout) as WhatIfOutput;
    expect(out.diff.counts.added).toBeGreaterThan(0);
    expect(out.diff.counts.removed).toBe(0);
    const size = (entries: ViewEntry[]) => new Map(entries.map((e) => [e.index, utf8Length(e.content)]));
    const recorded = size(plain.messages);
    const policy = size(out.messages);
    for (const m of out.diff.messages) {
      expect(m.policy_bytes).toBe(policy.get(m.index) ?? null);
      expect(m.recorded_bytes).toBe(recorded.get(m.index) ?? null);
      // Listed because what is shown differs (a stub's id may renumber at equal length).
      expect(out.messages.find((e) => e.index === m.index)?.content).not.toBe(plain.messages.find((e) => e.index === m.index)?.content);
    }
    // Every entry not listed is shown the same both ways.
    const listed = new Set(out.diff.messages.map((m) => m.index));
    for (const e of out.messages) if (!listed.has(e.index)) expect(e.content).toBe(plain.messages.find((p) => p.index === e.index)?.content);
    const total = (entries: ViewEntry[]) => entries.reduce((n, e) => n + utf8Length(e.content), 0);
    expect(out.diff.bytes).toEqual({ recorded: total(plain.messages), policy: total(out.messages) });
    expect(out.diff.bytes.policy).toBeLessThan(out.diff.bytes.recorded);
    expect(out.diff.counts.messages).toBe(out.diff.messages.length);
  });

  it('a bad policy file: exit 2, invalid_policy naming the field; --at with --policy: usage', async () => {
    const typo = await runCli(['view', '--policy', writePolicy('typo.json', { ...own, max_tool_results_bytes: 5 }), sample]);
    expect(typo.code).toBe(2);
    expect(JSON.parse(typo.stdout)).toMatchObject({ error: { code: 'invalid_policy' } });
    expect(typo.stdout).toContain('max_tool_results_bytes');
    const negative = await runCli(['view', '--policy', writePolicy('neg.json', { ...own, kept_prefix_bytes: -1 }), sample]);
    expect(JSON.parse(negative.stdout)).toMatchObject({ error: { code: 'invalid_policy' } });
    const both = await runCli(['view', '--at', '3', '--policy', writePolicy('own2.json', own), sample]);
    expect(JSON.parse(both.stdout)).toMatchObject({ error: { code: 'usage' } });
    const missing = await runCli(['view', '--policy', tmp.path('absent.json'), sample]);
    expect(JSON.parse(missing.stdout)).toMatchObject({ error: { code: 'unreadable_file' } });
    // A FIFO as the policy (a writer loops, so that a blocking open would return and the test fail, not hang).
    const fifo = tmp.path('policy-fifo.json');
    execFileSync('mkfifo', [fifo]);
    const writer = fifoWriter(fifo);
    try {
      const piped = await runCli(['view', '--policy', fifo, sample]);
      expect(JSON.parse(piped.stdout)).toMatchObject({ error: { code: 'unreadable_file', message: expect.stringMatching(/FIFO/) as unknown } });
    } finally {
      writer.kill();
    }
  });

  it('a session whose header names no policy can still be re-projected: a what-if brings its own', async () => {
    const { records: generated } = generateSession({ seed: 3 });
    const path = write('no-policy-what-if.sidecar.jsonl', [{ ...(generated[0] as SidecarHeader), policy: null }, ...generated.slice(1)]);
    const r = await runCli(['view', '--policy', writePolicy('own4.json', policyOf(path, generated)), path]);
    expect(r.code, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as WhatIfOutput).diff.counts).toEqual({ added: 0, removed: 0, changed: 0, messages: 0 });
  });

  it('a foreign format cannot be re-projected: exit 2, replay_not_possible', async () => {
    const r = await runCli(['view', '--policy', writePolicy('own3.json', own), CODEX]);
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout)).toMatchObject({ error: { code: 'replay_not_possible' } });
  });
});
