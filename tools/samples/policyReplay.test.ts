import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { LocatedRecord, PolicyDivergence, Reduction, ReductionPolicy, SidecarHeader, SidecarRecord } from '../../shared/index';
import { divergenceFinding, replayPolicy } from '../../shared/index';
import { nodeSha256 } from '../../electron/loader/session';
import { withKeptBytesChanged, withReductionAdded, withReductionRemoved } from './policyMutants';
import type { GeneratedSession } from './sessionGenerator';
import { generateSession, samplePolicy } from './sessionGenerator';

/** Record k of a generated sidecar is on line k + 1 (the header is record 0, line 1). */
function located(records: readonly SidecarRecord[]): LocatedRecord[] {
  return records.flatMap((record, k) => (record.t === 'header' ? [] : [{ record, line: k + 1 }]));
}

function headerPolicy(records: readonly SidecarRecord[]): ReductionPolicy {
  const policy = (records[0] as SidecarHeader).policy;
  if (!policy) throw new Error('a generated sample names its policy');
  return policy;
}

const replay = (records: readonly SidecarRecord[]) => replayPolicy(located(records), headerPolicy(records), { sha256: nodeSha256 });

/** Every generated sample: the committed two, and more seeds in every mode of the generator. */
const SAMPLES: { name: string; make: () => GeneratedSession }[] = [
  { name: 'the committed session', make: () => generateSession({}) },
  { name: 'the committed legacy session', make: () => generateSession({ legacy: true }) },
  ...[7, 42, 99_991].flatMap((seed) => [
    { name: `seed ${seed}`, make: () => generateSession({ seed, messages: 120 }) },
    { name: `seed ${seed} legacy`, make: () => generateSession({ seed, legacy: true }) },
    { name: `seed ${seed} compact`, make: () => generateSession({ seed, compact: true, messages: 60 }) },
  ]),
];

describe('policy replay over generated samples', () => {
  it.each(SAMPLES)('$name: the header policy, replayed pass by pass, mints exactly the recorded log', ({ make }) => {
    const { records, snapshot } = make();
    const result = replay(records);
    expect(result.divergences).toEqual([]);
    // The replay really ran: one pass per turn at least, and it ends on the agent's live log.
    expect(result.passes).toBeGreaterThan(10);
    expect(result.policyLog).toEqual(snapshot.reductions);
    expect(result.recordedLog).toEqual(snapshot.reductions);
    expect(result.view.map((m) => m?.content)).toEqual(snapshot.messages.map((m) => m.content));
  });

  it('the recorded originals are the copies history held: the legacy session replays against its capped copies', () => {
    const { records, landmarks } = generateSession({ legacy: true });
    expect(landmarks.capped.length).toBeGreaterThan(0);
    const result = replay(records);
    for (const i of landmarks.capped) expect(result.view[i]?.content).toContain('⟦capped⟧');
    // Replayed over the full recorded bytes instead, the hashes of the capped outputs' reductions differ.
    const uncapped = records.map((r) => (r.t === 'message' && r.cap ? { t: 'message' as const, i: r.i, msg: r.msg } : r));
    const divergent = replay(uncapped).divergences;
    expect(divergent.length).toBeGreaterThan(0);
    expect(divergent.every((d) => landmarks.capped.includes(d.index) || d.fields.includes('hash') || d.recorded === null || d.minted === null)).toBe(true);
  });

  it('clear_turns_before grows during a session: replayed with the final value from the first pass, the clearing diverges', () => {
    const { records } = generateSession({});
    const policy = headerPolicy(records);
    expect(policy).toEqual(samplePolicy(policy.clear_turns_before ?? null));
    // The rule: a pass clears only as far as its recorded turns_cleared (capped by the policy); with
    // a policy that never clears, every recorded clearing is reported, and nothing else is.
    const result = replayPolicy(located(records), { ...policy, clear_turns_before: null }, { sha256: nodeSha256 });
    const cleared = records.filter((r): r is { t: 'reduction'; r: Reduction } => r.t === 'reduction' && r.r.kind === 'turns_cleared');
    expect(cleared.length).toBeGreaterThan(0);
    const clearedIds = cleared.map((c) => c.r.id);
    for (const id of clearedIds) expect(result.divergences.some((d) => d.reduction_id === id && d.minted === null)).toBe(true);
  });
});

describe('policy replay over mutants of a generated sample', () => {
  const base = () => generateSession({ seed: 11 });

  it('one reduction record removed: the policy mints it at its pass, named by index, the recorded side none', () => {
    const { records, reduction: removed } = withReductionRemoved(base());
    const found = replay(records).divergences;
    expect(found).toHaveLength(1);
    const d = found[0] as PolicyDivergence;
    expect(d).toMatchObject({ index: removed.ptr.index, recorded: null, minted: removed });
    expect(d.reduction_id).toBeUndefined();
    const finding = divergenceFinding(d);
    expect(finding).toMatchObject({ code: 'policy_divergence', severity: 'warning', index: removed.ptr.index });
    expect(finding.message).toContain(`tool_output_truncated of index ${removed.ptr.index}`);
    expect(finding.message).toContain(`kept_bytes ${removed.kept_bytes}`);
  });

  it('one reduction record added: named by its id, the policy side none', () => {
    const { records, reduction: extra, line } = withReductionAdded(base());
    expect(extra.ptr.index).toBeGreaterThan(0);
    const found = replay(records).divergences;
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ reduction_id: extra.id, index: extra.ptr.index, recorded: extra, minted: null, line });
    expect(divergenceFinding(found[0] as PolicyDivergence)).toMatchObject({ code: 'policy_divergence', reduction_id: extra.id, line });
  });

  it('one kept_bytes changed: named by its id, with both sides of kept_bytes and nothing else', () => {
    const { records, reduction: changed, line } = withKeptBytesChanged(base());
    const found = replay(records).divergences;
    expect(found).toHaveLength(1);
    const d = found[0] as PolicyDivergence;
    expect(d).toMatchObject({ reduction_id: changed.id, index: changed.ptr.index, fields: ['kept_bytes'], line });
    const policyKept = d.minted?.kept_bytes as number;
    expect(policyKept).toBe((changed.kept_bytes ?? 0) + 7);
    expect(divergenceFinding(d).message).toContain(`kept_bytes recorded ${changed.kept_bytes}, policy ${policyKept}`);
  });
});

describe('policy replay over any seed (fast-check)', () => {
  it('the header policy replays without a divergence, in every mode of the generator', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0xffffffff }), fc.boolean(), fc.boolean(), (seed, legacy, compact) => {
        const { records } = generateSession({ seed, legacy, compact, messages: 60 });
        expect(replay(records).divergences).toEqual([]);
      }),
      { numRuns: 8 },
    );
  });
});
