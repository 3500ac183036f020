/**
 * `check` on the command line with very many findings: 130,000 garbage lines exit 1
 * with every finding printed, where they used to overflow the stack (`internal_error`, exit 2).
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { CheckReport } from '../../shared/index';
import { tempDir } from '../../tools/testing/files';
import { MANY, writeGarbageSidecar, writeManyMessageSnapshot } from '../../tools/testing/manyLines';
import { runCli } from './testing/runCli';

const tmp = tempDir('session-inspector-many-cli-');
afterAll(() => tmp.cleanup());

describe('check with many findings', () => {
  it('130,000 garbage lines: exit 1, and every finding is printed', async () => {
    const r = await runCli(['check', writeGarbageSidecar(tmp.path('garbage.sidecar.jsonl'))]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout) as CheckReport;
    expect(report.findings).toHaveLength(MANY);
    expect(new Set(report.findings.map((f) => f.code))).toEqual(new Set(['malformed_line']));
    expect(report.summary.errors).toBe(MANY);
  });

  it('a snapshot of 130,000 messages: exit 0 when valid, exit 1 with 130,000 findings when every message is invalid', async () => {
    const good = await runCli(['check', writeManyMessageSnapshot(tmp.path('many.session.json'))]);
    expect(good.code).toBe(0);
    expect((JSON.parse(good.stdout) as CheckReport).summary.messages).toBe(MANY);
    const bad = await runCli(['check', writeManyMessageSnapshot(tmp.path('invalid.session.json'), MANY, true)]);
    expect(bad.stderr).toBe('');
    expect(bad.code).toBe(1);
    expect((JSON.parse(bad.stdout) as CheckReport).findings).toHaveLength(MANY);
  });
});
