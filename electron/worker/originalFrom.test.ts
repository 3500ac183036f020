/**
 * Where an imported reduction's original bytes came from (SPEC §10.1), as the app receives it from
 * `verify`: in the importer's words for its file, instead of `minted`, which names no view of a
 * foreign file. A native sidecar's reductions keep `minted`/`recorded`.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SessionService } from './service';

const FIXTURES = join(import.meta.dirname, '../../e2e/fixtures');
const SAMPLE = join(import.meta.dirname, '../../samples/session.sidecar.jsonl');

/** What `verify` answers for every live reduction of `path`, keyed `kind status`, each with its `original_from` and `source`. */
async function statuses(path: string): Promise<{ kind: string; status: string; original_from: string | undefined; source: string | undefined }[]> {
  const s = new SessionService();
  try {
    const opened = await s.open({ paths: [path], generation: 1 });
    if (!opened.ok) throw new Error(opened.error.message);
    const log = s.handle('log', {});
    if (!log.ok) throw new Error(log.error.message);
    const kinds = new Map(log.value.entries.map((e) => [e.reduction.id, e.reduction.kind]));
    const verify = s.handle('verify', { ids: [...kinds.keys()] });
    if (!verify.ok) throw new Error(verify.error.message);
    return verify.value.statuses.map((st) => ({ kind: kinds.get(st.id) ?? '', status: st.status, original_from: st.original_from, source: st.source }));
  } finally {
    s.close();
  }
}

describe('an imported reduction says where its original came from', () => {
  it.each([
    ['real/claude-code/cc-2.1.17-microcompactions-then-compact.jsonl', { tool_output_elided: /^the tool result as the transcript records it$/, summarized: /^the messages before the compact boundary, as the transcript records them$/ }],
    ['real/claude-code/cc-2.1.17-persisted-bash.jsonl', { tool_output_truncated: /^the record's toolUseResult copy \(line \d+\)$/ }],
    ['synthetic/codex/remote-compaction.jsonl', { summarized: /^the items before the compaction, as the rollout records them$/, duplicate_output: /^the item where the rollout records it before the compaction$/ }],
    ['real/swe-agent/marshmallow-1867-function-calling-replace-from-source.traj', { tool_output_elided: /^history\[\d+\] of the trajectory$/ }],
    ['synthetic/inspect/stored.eval', { turns_cleared: /^the messages as the sample's history records them$/ }],
    ['synthetic/openhands/v0-condensed.json', { summarized: /^the events the condensation forgot, as the trajectory records them$/ }],
  ] as const)('%s', async (file, expected: Readonly<Record<string, RegExp>>) => {
    const verified = (await statuses(join(FIXTURES, file))).filter((s) => s.status === 'verified');
    expect(new Set(verified.map((s) => s.kind))).toEqual(new Set(Object.keys(expected)));
    for (const s of verified) expect(s.original_from, s.kind).toMatch(expected[s.kind] as RegExp);
  });

  it('a native sidecar`s reductions name the view their bytes came from, and no importer`s words', async () => {
    const all = await statuses(SAMPLE);
    expect(all.length).toBeGreaterThan(0);
    for (const s of all) expect([s.original_from, ['minted', 'recorded'].includes(s.source ?? '')]).toEqual([undefined, true]);
  });
});
