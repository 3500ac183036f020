/**
 * A record nested 6,000 levels deep, in every format, through the command line (docs/deep-json.md):
 * `check` exits 1 naming it as a `malformed_line`, `view` and `log` exit 0 with the rest of the
 * session; never `internal_error`, stdout always one JSON document.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH } from '../../shared/format/jsonDepth';
import { DEEP_LEVELS, deepCases, writeDeepCase } from '../../tools/testing/deepJson';
import { tempDir } from '../../tools/testing/files';
import { runCli } from './testing/runCli';

const tmp = tempDir('session-inspector-deep-cli-');
afterAll(() => tmp.cleanup());


/** One compact JSON document and a newline; nothing on stderr. */
function output<T>(r: { code: number; stdout: string; stderr: string }): T {
  expect(r.stderr).toBe('');
  expect(r.stdout.endsWith('\n')).toBe(true);
  expect(r.stdout.indexOf('\n')).toBe(r.stdout.length - 1);
  return JSON.parse(r.stdout) as T;
}

describe(`a record nested ${DEEP_LEVELS} levels deep, through the command line`, () => {
  deepCases().forEach((c, k) => {
    it(`${c.format}, in ${c.variant === 'arguments' ? "a tool call's arguments" : 'a record'}: check exits 1 naming it, view and log exit 0`, async () => {
      const file = writeDeepCase(c, tmp.path(`case-${k}`));
      const check = await runCli(['check', file]);
      expect(check.stdout).not.toContain('internal_error');
      expect(check.code).toBe(1);
      const report = output<{ findings: { code: string; message: string; line?: number }[]; summary: { messages: number } }>(check);
      const deep = report.findings.filter((f) => f.message.includes(`nested deeper than ${MAX_JSON_DEPTH} levels`));
      expect(deep).toHaveLength(1);
      expect(deep[0]?.code).toBe('malformed_line');
      expect(deep[0]?.message).toContain(c.names);
      expect(report.summary.messages).toBe(c.rawMessages);

      const view = await runCli(['view', file]);
      expect(view.code).toBe(0);
      const shown = output<{ messages: { index: number; role: string | null }[] }>(view).messages;
      // Every message of the raw file; a native record too deep to read is a hole (role null).
      expect(shown.map((m) => m.index)).toEqual([...Array(c.rawMessages).keys()]);
      expect(shown.map((m) => m.role === null)).toEqual(shown.map((m) => m.index === c.hole));

      const log = await runCli(['log', file]);
      expect(log.code).toBe(0);
      expect(Array.isArray(output<{ reductions: unknown[] }>(log).reductions)).toBe(true);
    });
  });
});
