/**
 * A torn record in the middle of a sidecar through the command line: `check` reports the
 * torn line and only the lost message's reduction; later reductions expand to their bytes.
 */
import { writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import type { CheckReport, ExpandOutcome } from '../../shared/index';
import { tempDir } from '../../tools/testing/files';
import { TORN_INDEX, TORN_MESSAGES, tornSidecarText, tornView } from '../../tools/testing/tornSession';
import { runCli } from './testing/runCli';

const tmp = tempDir('session-inspector-torn-cli-');
afterAll(() => tmp.cleanup());

describe('check and expand over a torn line mid-file', () => {
  for (const [name, tear] of [
    ['torn, then a newline', (record: string) => ({ line: record.slice(0, 60) })],
    ['torn, then the next record on the same line', (record: string, next: string) => ({ line: record.slice(0, 60) + next, consumesNext: true })],
  ] as const) {
    it(`${name}: one malformed line, one reduction out of range, every later message expands`, async () => {
      const path = tmp.path(`${name.replace(/\W+/g, '-')}.sidecar.jsonl`);
      writeFileSync(path, tornSidecarText(tear));
      const check = await runCli(['check', path]);
      expect(check.code).toBe(1);
      const report = JSON.parse(check.stdout) as CheckReport;
      expect(report.summary.messages).toBe(TORN_MESSAGES);
      expect(report.findings.map((f) => [f.code, f.index])).toEqual([
        ['malformed_line', TORN_INDEX],
        ['address_out_of_range', TORN_INDEX],
      ]);
      for (const i of [TORN_INDEX + 1, TORN_MESSAGES - 1]) {
        const r = await runCli(['expand', '--id', `r${i}`, path]);
        expect(r.code).toBe(0);
        expect((JSON.parse(r.stdout) as ExpandOutcome).content).toBe(tornView[i]?.content);
      }
      const lost = await runCli(['expand', '--id', `r${TORN_INDEX}`, path]);
      expect(lost.code).toBe(2);
      expect(JSON.parse(lost.stdout)).toMatchObject({ error: { code: 'address_out_of_range' } });
    });
  }
});
