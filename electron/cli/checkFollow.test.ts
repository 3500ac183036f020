/** `check --follow` prints each new finding as one JSON line while a writer process appends; it ends on SIGINT or when the file is deleted. */
import { rmSync, writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../tools/testing/files';
import { liveSessionText } from '../../tools/testing/liveSession';
import { startWriter } from '../../tools/testing/writer';
import type { CliIo } from './output';
import { main } from './main';

const tmp = tempDir('check-follow-');
afterAll(() => tmp.cleanup());

/** An io whose stdout lines can be waited on. */
function lineIo() {
  const lines: unknown[] = [];
  const waiting: { ok: (l: unknown) => boolean; resolve: () => void }[] = [];
  let partial = '';
  const io: CliIo = {
    stdout: (s) => {
      partial += s;
      for (let nl = partial.indexOf('\n'); nl !== -1; nl = partial.indexOf('\n')) {
        const line = JSON.parse(partial.slice(0, nl)) as unknown;
        partial = partial.slice(nl + 1);
        lines.push(line);
        for (const w of waiting.filter((x) => x.ok(line))) w.resolve();
      }
    },
    stderr: () => undefined,
  };
  const until = (ok: (l: unknown) => boolean): Promise<void> => (lines.some(ok) ? Promise.resolve() : new Promise((resolve) => waiting.push({ ok, resolve })));
  return { io, lines, until };
}

const codeOf = (l: unknown): string | undefined => (l as { finding?: { code?: string } }).finding?.code;

describe('check --follow', () => {
  it('prints the findings already there, then each new one once as the writer appends; ends when the file is deleted, exit 1 for an error', async () => {
    const text = liveSessionText(4);
    const path = tmp.path('followed.sidecar.jsonl');
    writeFileSync(path, text);
    const { io, lines, until } = lineIo();
    let stop: () => void = () => undefined;
    const exit = main(['check', '--follow', path], io, {}, { untilStopped: () => new Promise((resolve) => (stop = resolve)) });
    // A line that is no JSON: a malformed_line error, printed once however often the file is checked again.
    const writer = startWriter(path, [{ append: '{"t":"message","i":\n' }, { append: `${JSON.stringify({ t: 'message', i: 9999, msg: { role: 'user', content: 'skipped index' } })}\n` }]);
    await writer.done;
    await until((l) => codeOf(l) === 'malformed_line');
    await until((l) => codeOf(l) === 'address_out_of_range');
    rmSync(path);
    expect(await exit).toBe(1);
    stop();
    const findings = lines.filter((l) => codeOf(l) !== undefined).map((l) => JSON.stringify(l));
    expect(new Set(findings).size).toBe(findings.length);
    expect(lines.some((l) => (l as { notice?: { kind: string } }).notice?.kind === 'deleted')).toBe(true);
    expect(lines.at(-1)).toHaveProperty('summary');
  }, 30_000);

  it('a torn last line is no finding while followed, and is truncated_last_line once the follow ends (SIGINT); exit 0 for a warning only', async () => {
    const text = liveSessionText(3);
    const path = tmp.path('torn.sidecar.jsonl');
    writeFileSync(path, text);
    const { io, lines } = lineIo();
    let stop: () => void = () => undefined;
    const exit = main(['check', '--follow', path], io, {}, { untilStopped: () => new Promise((resolve) => (stop = resolve)) });
    const writer = startWriter(path, [{ append: '{"t":"message","i":5,"msg":{"role":"user","cont' }]);
    await writer.done;
    expect(lines.some((l) => codeOf(l) === 'truncated_last_line')).toBe(false);
    stop();
    const status = await exit;
    expect(lines.filter((l) => codeOf(l) === 'truncated_last_line')).toHaveLength(1);
    const truncated = lines.find((l) => codeOf(l) === 'truncated_last_line') as { finding: { severity: string } };
    expect(status).toBe(truncated.finding.severity === 'error' ? 1 : 0);
    expect(lines.at(-1)).toHaveProperty('summary');
  }, 30_000);
});
