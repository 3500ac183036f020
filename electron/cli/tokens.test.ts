/**
 * SPEC §15 on the command line: `check`'s `cache_breaks` on a synthetic Claude Code transcript
 * whose cache reads fall twice — once after a tool result was cleared (the cause is that
 * reduction, at that message), once with nothing changed (the cache expired: cause null) — and
 * the `--max-context PCT` gate on synthetic and real files, its findings naming call and link.
 * Expected figures are computed from the raw records (testing/rawCalls.ts), not the importer.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Finding } from '../../shared/index';
import { tempDir } from '../../tools/testing/files';
import { SessionBuilder, toolUse } from '../loader/claudeCode/testing/build';
import { rawClaudeCodeCalls, rawClaudeCodeUsage } from '../loader/testing/rawCalls';
import { runCli } from './testing/runCli';

const ROOT = join(import.meta.dirname, '../..');
const REAL_COMPACTED = join(ROOT, 'e2e/fixtures/real/claude-code/cc-2.0.76-compact-boundary.jsonl');
const REAL_CODEX = join(ROOT, 'e2e/fixtures/real/codex/rollout-0.118-exec-parallel-calls-ENTIRE.jsonl');
const NATIVE = join(ROOT, 'samples/session.sidecar.jsonl');

const tmp = tempDir('session-inspector-tokens-');
afterAll(() => tmp.cleanup());

interface Usage {
  read: number;
  write: number;
  fresh?: number;
  output?: number;
}

/** One API response of one block, whose usage is `u` (its streamed first line says less output, as Claude Code writes). */
function call(b: SessionBuilder, id: string, block: Record<string, unknown>, u: Usage): void {
  const message = (output: number): Record<string, unknown> => ({
    id,
    model: 'claude-sonnet-4-5-20250929',
    role: 'assistant',
    type: 'message',
    content: [block],
    usage: { input_tokens: u.fresh ?? 3, cache_read_input_tokens: u.read, cache_creation_input_tokens: u.write, output_tokens: output },
  });
  b.add({ type: 'assistant', requestId: `req_${id}`, message: message(1) });
  // A second line of the same response (its stop): the last line's usage is the call's.
  b.add({ type: 'assistant', requestId: `req_${id}`, message: { ...message(u.output ?? 40), content: [{ type: 'text', text: '' }] } });
}

/**
 * Seven calls. Call 3 follows the clearing of the first tool result (a microcompact boundary): its
 * cache reads fall. Call 5 is given the same messages as call 4 plus new ones, yet reads nothing
 * from the cache (it expired). Call 6 dips by less than 1,024 tokens, call 7 by less than 10 %:
 * neither is a break.
 */
function writeCacheSession(): string {
  const b = new SessionBuilder();
  b.user('Look at the logs and fix the failing test');
  call(b, 'msg_1', toolUse('toolu_1', 'cat build.log'), { read: 10_000, write: 2_000 });
  b.result('toolu_1', 'x'.repeat(20_000));
  call(b, 'msg_2', toolUse('toolu_2', 'npm test'), { read: 12_000, write: 6_000 });
  b.result('toolu_2', 'FAIL a.test.ts');
  b.add({ type: 'system', subtype: 'microcompact_boundary', content: 'Context microcompacted', microcompactMetadata: { trigger: 'auto', preTokens: 18_050, tokensSaved: 5_000, compactedToolIds: ['toolu_1'] } });
  call(b, 'msg_3', toolUse('toolu_3', 'git diff'), { read: 2_000, write: 11_500 });
  b.result('toolu_3', 'diff --git a/a.ts b/a.ts');
  call(b, 'msg_4', toolUse('toolu_4', 'npm test'), { read: 13_500, write: 600 });
  b.result('toolu_4', 'PASS a.test.ts');
  call(b, 'msg_5', { type: 'text', text: 'Fixed.' }, { read: 0, write: 14_300 });
  b.user('Thanks. Anything else?');
  call(b, 'msg_6', { type: 'text', text: 'No.' }, { read: 13_400, write: 1_000 });
  b.user('Sure?');
  call(b, 'msg_7', { type: 'text', text: 'Yes.' }, { read: 12_300, write: 2_200 });
  const path = tmp.path('cache-breaks.jsonl');
  writeFileSync(path, b.text());
  return path;
}

const CACHE = writeCacheSession();

interface CheckOut {
  findings: Finding[];
  summary: { errors: number; tokens: { calls_recorded: number; max_context: number | null; window: number | null }; cache_breaks: { call: number; tokens_rewritten: number; cause: { reduction?: string; message_index: number } | null }[] };
}

async function check(args: string[]): Promise<{ code: number; out: CheckOut }> {
  const r = await runCli(['check', ...args]);
  return { code: r.code, out: JSON.parse(r.stdout) as CheckOut };
}

/** The raw cache reads of each call of a Claude Code file, in call order (the last line of each message.id). */
function rawCacheReads(path: string): number[] {
  const lines = readFileSync(path, 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as { type?: string; message?: { id?: string; usage?: { cache_read_input_tokens?: number } } });
  return rawClaudeCodeCalls(path).map((c) => lines.filter((r) => r.type === 'assistant' && r.message?.id === c.id).pop()?.message?.usage?.cache_read_input_tokens ?? 0);
}

describe('check: cache breaks', () => {
  it('a fall after a cleared tool result is attributed to that reduction at that message; a fall with nothing changed has cause null; small dips are no break', async () => {
    const { code, out } = await check([CACHE]);
    expect(code).toBe(0);
    const reads = rawCacheReads(CACHE);
    expect(reads).toEqual([10_000, 12_000, 2_000, 13_500, 0, 13_400, 12_300]);
    // The cleared result is the view's message 2 (user 0, call 1, its result 2).
    const view = JSON.parse((await runCli(['view', '--at', '3', CACHE])).stdout) as { messages: { index: number; reductions: string[] }[] };
    const cleared = view.messages.find((m) => m.reductions.length > 0);
    expect(cleared?.index).toBe(2);
    expect(out.summary.cache_breaks).toEqual([
      { call: 3, tokens_rewritten: reads[1]! - reads[2]!, cause: { reduction: cleared?.reductions[0], message_index: 2 } },
      { call: 5, tokens_rewritten: reads[3]!, cause: null },
    ]);
    expect(out.summary.tokens).toEqual({ calls_recorded: 7, max_context: Math.max(...[...rawClaudeCodeUsage(CACHE).values()].map((u) => u.context)), window: 200_000, compactions: [] });
  });
});

describe('check --max-context PCT', () => {
  it('fails (exit 1) naming every call over PCT % of its window with its link; passes (exit 0) under a higher limit', async () => {
    const { code, out } = await check(['--max-context', '8', CACHE]);
    expect(code).toBe(1);
    const over = out.findings.filter((f) => f.code === 'context_over_limit');
    // Context over 8 % of 200,000 = 16,000 tokens.
    const usage = rawClaudeCodeUsage(CACHE);
    const want = rawClaudeCodeCalls(CACHE).flatMap((c, k) => ((usage.get(c.line)?.context ?? 0) > 16_000 ? [k + 1] : []));
    expect(want.length).toBeGreaterThan(0);
    expect(over.map((f) => f.call)).toEqual(want);
    for (const f of over) {
      expect(f.severity).toBe('error');
      expect(f.link).toBe(`#call=${f.call}`);
      expect(f.message).toContain(`call ${f.call} `);
    }
    expect(out.summary.errors).toBe(over.length);
    const under = await check(['--max-context', '10', CACHE]);
    expect(under.code).toBe(0);
    expect(under.out.findings.filter((f) => f.code === 'context_over_limit')).toEqual([]);
  });

  it('a real Claude Code session that ran near its window: the calls over 75 % fail, none over 80 %', async () => {
    const usage = rawClaudeCodeUsage(REAL_COMPACTED);
    const want = rawClaudeCodeCalls(REAL_COMPACTED).flatMap((c, k) => ((usage.get(c.line)?.context ?? 0) > 150_000 ? [k + 1] : []));
    expect(want.length).toBeGreaterThan(0);
    const fail = await check(['--max-context', '75', REAL_COMPACTED]);
    expect(fail.code).toBe(1);
    expect(fail.out.findings.filter((f) => f.code === 'context_over_limit').map((f) => [f.call, f.link])).toEqual(want.map((n) => [n, `#call=${n}`]));
    const pass = await check(['--max-context', '80', REAL_COMPACTED]);
    expect(pass.out.findings.filter((f) => f.code === 'context_over_limit')).toEqual([]);
  });

  it('a real Codex rollout is judged against the window it records (model_context_window)', async () => {
    const fail = await check(['--max-context', '25', REAL_CODEX]);
    expect(fail.code).toBe(1);
    const over = fail.out.findings.filter((f) => f.code === 'context_over_limit');
    expect(over.length).toBeGreaterThan(0);
    for (const f of over) expect(f.message).toContain('258,400-token window');
    expect((await check(['--max-context', '30', REAL_CODEX])).code).toBe(0);
  });

  it('a file that records no usage is not judged; a limit that is not a positive percentage is a usage error', async () => {
    expect((await check(['--max-context', '1', NATIVE])).code).toBe(0);
    for (const bad of ['0', 'abc', '-5', '80%']) {
      const r = await runCli(['check', '--max-context', bad, NATIVE]);
      expect(r.code).toBe(2);
      expect(JSON.parse(r.stdout)).toMatchObject({ error: { code: 'usage' } });
    }
  });
});
