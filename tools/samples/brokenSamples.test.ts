import { describe, expect, it } from 'vitest';
import { FINDING_SEVERITY, GATE_FINDING_CODES, IMPORTER_FINDING_CODES, REPLAY_FINDING_CODES, TimelineBuilder, checkIntegrity, expandReduction, hasReasoningArtifacts, parseSidecarLine } from '../../shared/index';
import type { BrokenSample } from './brokenSamples';
import { brokenManifest, brokenSamples } from './brokenSamples';
import { inspectSample } from './sampleCheck';
import { DEFAULT_SEED, generateSession } from './sessionGenerator';

const CODES = FINDING_SEVERITY;

function inspect(sample: BrokenSample) {
  const names = Object.keys(sample.files);
  const sidecar = names.find((n) => n.endsWith('.sidecar.jsonl'));
  const snapshot = names.find((n) => n.endsWith('.session.json'));
  return inspectSample({ ...(sidecar ? { sidecar: sample.files[sidecar] } : {}), ...(snapshot ? { snapshot: sample.files[snapshot] } : {}) });
}

const samples = brokenSamples();

describe('broken samples', () => {
  it('cover every finding code of SPEC §5.6, each file named after its code', () => {
    expect(new Set(samples.map((s) => s.code))).toEqual(new Set(Object.keys(CODES).filter((c) => !REPLAY_FINDING_CODES.includes(c as keyof typeof CODES) && !IMPORTER_FINDING_CODES.includes(c as keyof typeof CODES) && !GATE_FINDING_CODES.includes(c as keyof typeof CODES))));
    for (const s of samples) {
      expect(s.severity).toBe(CODES[s.code]);
      for (const name of Object.keys(s.files)) expect(name.startsWith(s.code)).toBe(true);
    }
  });

  it.each(samples.map((s) => [Object.keys(s.files).join(' + '), s] as const))('%s produces its code and no other finding', (_name, sample) => {
    const findings = inspect(sample).findings;
    expect(findings.length).toBeGreaterThan(0);
    expect(findings.map((f) => f.code)).toEqual(findings.map(() => sample.code));
    expect(findings.every((f) => f.severity === sample.severity)).toBe(true);
  });

  it('holds for other seeds too', () => {
    for (const seed of [1, 2, 42]) {
      for (const sample of brokenSamples(seed)) expect(new Set(inspect(sample).findings.map((f) => f.code))).toEqual(new Set([sample.code]));
    }
  });

  it('each is a small derived session: the base session id, under 200 KB per file', () => {
    const base = generateSession({ seed: DEFAULT_SEED, messages: 40, compact: true });
    for (const s of samples) {
      for (const content of Object.values(s.files)) {
        expect(Buffer.byteLength(content)).toBeLessThan(200 * 1024);
        expect(content).toContain(base.snapshot.session_id);
      }
    }
  });

  it('snapshot cases come with a sibling sidecar of the same stem; the snapshot-only case has none', () => {
    for (const code of ['recorded_diverges', 'log_differs'] as const) {
      const s = samples.find((x) => x.code === code);
      expect(Object.keys(s?.files ?? {}).sort()).toEqual([`${code}.session.json`, `${code}.sidecar.jsonl`]);
    }
    const snapshotOnly = samples.filter((s) => Object.keys(s.files).every((n) => n.endsWith('.session.json')));
    expect(snapshotOnly.map((s) => Object.keys(s.files))).toEqual([['unsupported_version-snapshot.session.json']]);
  });

  it('kept_bytes_invalid keeps a correct hash: the reduction still expands', () => {
    const s = samples.find((x) => x.code === 'kept_bytes_invalid') as BrokenSample;
    const res = inspect(s);
    const finding = res.findings[0];
    expect(finding?.message).toMatch(/inside a UTF-8 character/);
    expect(expandReduction(res.log, finding?.reduction_id ?? '', res.minted, res.recorded).ok).toBe(true);
    expect(checkIntegrity({ minted: res.minted, log: res.log }).map((f) => f.code)).toEqual(['kept_bytes_invalid']);
  });

  it('the line-level cases break exactly one line, which parseSidecarLine reports', () => {
    for (const code of ['malformed_line', 'truncated_last_line', 'unknown_record', 'unsupported_version'] as const) {
      const s = samples.find((x) => x.code === code && `${code}.sidecar.jsonl` in x.files) as BrokenSample;
      const text = s.files[`${code}.sidecar.jsonl`] ?? '';
      const lines = text.split('\n');
      const terminated = text.endsWith('\n');
      if (terminated) lines.pop();
      const bad = lines.map((l, k) => parseSidecarLine(l, k + 1, k < lines.length - 1 || terminated)).filter((p) => !p.ok);
      expect(bad).toHaveLength(1);
      expect(bad[0]?.ok === false && bad[0].finding.code).toBe(code);
      if (code === 'truncated_last_line') expect(terminated).toBe(false);
    }
  });

  it('model_change_count_mismatch disagrees with the TimelineBuilder recount by one', () => {
    const s = samples.find((x) => x.code === 'model_change_count_mismatch') as BrokenSample;
    const builder = new TimelineBuilder(hasReasoningArtifacts);
    (s.files['model_change_count_mismatch.sidecar.jsonl'] ?? '')
      .split('\n')
      .filter(Boolean)
      .forEach((line, k) => {
        const p = parseSidecarLine(line, k + 1);
        if (p.ok && p.record.t !== 'header') builder.add(p.record, k + 1);
      });
    const [change] = builder.finish().modelChanges;
    expect(change && change.reasoning_artifacts_filtered - change.recount).toBe(1);
  });

  it('the manifest lists every file with its code', () => {
    const manifest = JSON.parse(brokenManifest(samples)) as { samples: { code: string; files: string[]; severity: string; defect: string }[] };
    expect(manifest.samples.flatMap((m) => m.files).sort()).toEqual(samples.flatMap((s) => Object.keys(s.files)).sort());
    for (const m of manifest.samples) expect(m.defect.length).toBeGreaterThan(10);
  });
});
