/**
 * The committed samples through the real command line: every good sample checks clean, every
 * broken sample reports its planted finding. `check` exits 1 only for error-severity findings
 * (SPEC §8); with `--strict` a warning fails it too, so QA can gate on any planted finding.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CheckReport, FindingCode, Severity } from '../../shared/index';
import { FINDING_SEVERITY, GATE_FINDING_CODES, IMPORTER_FINDING_CODES, NATIVE_REDUCTION_KINDS, REPLAY_FINDING_CODES } from '../../shared/index';
import { main } from './main';

const samples = join(import.meta.dirname, '../../samples');

async function check(files: string[], strict = false): Promise<{ status: number; report: CheckReport }> {
  let out = '';
  const status = await main(['check', ...(strict ? ['--strict'] : []), ...files], { stdout: (s) => void (out += s), stderr: () => undefined });
  return { status, report: JSON.parse(out) as CheckReport };
}

interface ManifestEntry {
  code: FindingCode;
  severity: Severity;
  files: string[];
  defect: string;
}
const manifest = (JSON.parse(readFileSync(join(samples, 'broken/manifest.json'), 'utf8')) as { samples: ManifestEntry[] }).samples;

describe('good samples', () => {
  it.each([['demo.sidecar.jsonl'], ['session.sidecar.jsonl'], ['session.session.json'], ['legacy.sidecar.jsonl'], ['legacy.session.json'], ['session.sidecar.jsonl', 'session.session.json']])(
    'check %s exits 0 with no findings',
    async (...files) => {
      const { status, report } = await check(files.map((f) => join(samples, f)));
      expect(report.findings).toEqual([]);
      expect(status).toBe(0);
      expect(report.summary.messages).toBeGreaterThan(0);
    },
  );

  it('the generated session has every reduction kind live', async () => {
    const { report } = await check([join(samples, 'session.sidecar.jsonl')]);
    // Every kind a native agent mints; `summarized` comes from importers only (SPEC §10.1).
    for (const kind of NATIVE_REDUCTION_KINDS) expect(report.summary.reductions_by_kind[kind], kind).toBeGreaterThan(0);
    expect(report.summary.reductions_by_kind.summarized).toBe(0);
  });
});

describe('broken samples: one per finding code', () => {
  it('the manifest covers every finding code of SPEC §5.6', () => {
    // A replay's codes come from check --replay over mutants built at test time (policyReplay tests).
    const codes = Object.keys(FINDING_SEVERITY).filter((c) => !REPLAY_FINDING_CODES.includes(c as FindingCode) && !IMPORTER_FINDING_CODES.includes(c as FindingCode) && !GATE_FINDING_CODES.includes(c as FindingCode));
    expect(new Set(manifest.map((m) => m.code))).toEqual(new Set(codes));
  });

  it.each(manifest.map((m) => [m.files.join(' + '), m] as const))('%s reports its planted finding', async (_name, m) => {
    const files = m.files.map((f) => join(samples, 'broken', f));
    const plain = await check(files);
    expect(plain.report.findings.map((f) => f.code)).toContain(m.code);
    expect(plain.report.findings.find((f) => f.code === m.code)?.severity).toBe(m.severity);
    expect(plain.status).toBe(m.severity === 'error' ? 1 : 0);
    const strict = await check(files, true);
    expect(strict.status).toBe(1);
  });
});
