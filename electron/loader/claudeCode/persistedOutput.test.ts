/**
 * `<persisted-output>` results whose original the record itself keeps (docs/formats/claude-code.md,
 * "Persisted output"), on real transcripts with no `tool-results/` folder beside them. What each
 * reduction must expand to, or why it cannot, is read off the raw lines in the test.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../cli/testing/runCli';
import { sessionLoader } from '../testing/importers';

const REAL = join(import.meta.dirname, '../../../e2e/fixtures/real/claude-code');
const { load, closeAll } = sessionLoader();
afterAll(() => closeAll());

type Raw = Record<string, unknown>;
const obj = (v: unknown): Raw => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Raw) : {});
const text = (v: unknown): string =>
  typeof v === 'string'
    ? v
    : Array.isArray(v)
      ? v
          .map((p) => obj(p).text)
          .filter((t): t is string => typeof t === 'string')
          .join('')
      : '';

/** Each persisted result of a file: its tool_use id, the stub the model saw, and the record's toolUseResult. */
function persisted(file: string): { id: string; stub: string; tur: Raw }[] {
  const out: { id: string; stub: string; tur: Raw }[] = [];
  for (const line of readFileSync(join(REAL, file), 'utf8').split('\n')) {
    if (!line.includes('<persisted-output>')) continue;
    const rec = obj(JSON.parse(line));
    if (rec.type !== 'user' || !Array.isArray(obj(rec.message).content)) continue;
    for (const b of obj(rec.message).content as unknown[]) {
      const block = obj(b);
      if (block.type === 'tool_result' && text(block.content).startsWith('<persisted-output>')) out.push({ id: String(block.tool_use_id), stub: text(block.content), tur: obj(rec.toolUseResult) });
    }
  }
  return out;
}

describe('a persisted output whose record holds the whole output', () => {
  it.each([
    ['cc-2.1.32-persisted-grep.jsonl', 'content'],
    ['cc-2.1.17-persisted-bash.jsonl', 'stdout'],
  ])('%s: expands, hashed at import, to the record`s toolUseResult.%s', async (file, field) => {
    const raw = persisted(file);
    expect(raw).toHaveLength(1);
    const [{ id, stub, tur }] = raw as [(typeof raw)[0]];
    const whole = tur[field] as string;
    // The raw line's own evidence: the stub states the size (in UTF-16 units, to 0.1 KB) and the preview begins it.
    const kb = Number(/Output too large \(([\d.]+)KB\)/.exec(stub)?.[1]);
    expect(Math.abs(whole.length / 1024 - kb)).toBeLessThanOrEqual(0.05);
    const s = await load(join(REAL, file));
    const r = s.log.find((x) => x.id === `cc-persisted-${id}`)!;
    expect(r).toMatchObject({ kind: 'tool_output_truncated', kept_bytes: 0, stub, hash_origin: 'import' });
    expect(r.ptr.bytes).toBe(Buffer.byteLength(whole, 'utf8'));
    const e = s.expand(r.id);
    expect(e.ok && e.value.content).toBe(whole);
    expect(s.check().findings).toEqual([]);
  });

  it('log says verified, and check --strict exits 0', async () => {
    for (const file of ['cc-2.1.32-persisted-grep.jsonl', 'cc-2.1.17-persisted-bash.jsonl']) {
      const log = await runCli(['log', join(REAL, file)]);
      const entries = (JSON.parse(log.stdout) as { reductions: { id: string; status: string }[] }).reductions.filter((x) => x.id.startsWith('cc-persisted-'));
      expect(entries.map((x) => x.status)).toEqual(['verified']);
      const check = await runCli(['check', '--strict', join(REAL, file)]);
      expect(check.code, check.stdout).toBe(0);
    }
  });
});

describe('a persisted output whose record holds something else than the original', () => {
  it('a Bash stdout Claude Code capped (2.1.91: persistedOutputSize above its length) is original_unavailable, and says so', async () => {
    const raw = persisted('cc-2.1.91-persisted-output.jsonl');
    expect(raw.length).toBeGreaterThan(0);
    const s = await load(join(REAL, 'cc-2.1.91-persisted-output.jsonl'));
    for (const { id, tur } of raw) {
      const stdout = tur.stdout as string;
      const size = tur.persistedOutputSize as number;
      expect(stdout.length).toBeLessThan(size);
      const r = s.log.find((x) => x.id === `cc-persisted-${id}`)!;
      expect(r.ptr).toMatchObject({ hash: null, bytes: size });
      const e = s.expand(r.id);
      expect(!e.ok && e.error.code).toBe('original_unavailable');
      expect(!e.ok && e.error.message).toContain(`holds ${stdout.length.toLocaleString('en-US')} characters of the ${size.toLocaleString('en-US')}`);
    }
  });

  it('a stdout whose length is not the size the stub states (Entire redacted it) is original_unavailable, with the stated size', async () => {
    const [{ id, stub, tur }] = persisted('cc-2.1.20-persisted-redacted.jsonl') as [{ id: string; stub: string; tur: Raw }];
    const kb = /Output too large \(([\d.]+)KB\)/.exec(stub)![1]!;
    expect(Math.abs((tur.stdout as string).length / 1024 - Number(kb))).toBeGreaterThan(0.05);
    const s = await load(join(REAL, 'cc-2.1.20-persisted-redacted.jsonl'));
    const r = s.log.find((x) => x.id === `cc-persisted-${id}`)!;
    expect(r.ptr).toMatchObject({ hash: null, bytes: Math.round(Number(kb) * 1024) });
    const e = s.expand(r.id);
    expect(!e.ok && e.error.code).toBe('original_unavailable');
    expect(!e.ok && e.error.message).toContain(`is not the size the stub states (${kb}KB)`);
  });
});
