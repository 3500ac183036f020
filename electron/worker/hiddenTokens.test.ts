/**
 * The worker's `hiddenTokens` reply (SPEC §15, docs/token-estimates.md "Asked lazily"): the same
 * figures `log` prints as `hidden_tokens_est`, the whole original's estimate beside them, counted
 * within a time budget per request (the rest `pending`), a large original sampled and said so, and
 * the tokenizer loaded by the real worker only once something is asked.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ChatMessage, Reduction, ResultOf } from '../../shared/index';
import { parseReply, ptrHash, sha256Hex, stubText, utf8Encode } from '../../shared/index';
import { SAMPLE_ABOVE_BYTES } from '../../shared/tokens/estimate';
import { tempDir, writeElidedOutputs } from '../../tools/testing/files';
import { runCli } from '../cli/testing/runCli';
import { countText } from '../tokens/counter';
import { createResolverClient } from './client';
import { HIDDEN_TOKENS_BUDGET_MS } from './handlers/hiddenTokens';
import type { SessionService } from './service';
import { params, serviceFixture, value } from './testing/serviceTests';

const ROOT = join(import.meta.dirname, '../..');
const DEMO = join(ROOT, 'samples/demo.sidecar.jsonl');
const CC = join(ROOT, 'e2e/fixtures/real/claude-code');
const { tmp, opened, sidecar } = serviceFixture('session-inspector-hidden-tokens-');

type Reply = ResultOf<'hiddenTokens'>;
type Figures = Reply['reductions'][number];

/** Asks until nothing is pending, as the renderer does; every reply valid under the contract. */
function askAll(s: SessionService, ids: string[], call?: number): { figures: Map<string, Figures>; replies: Reply[] } {
  const figures = new Map<string, Figures>();
  const replies: Reply[] = [];
  let asking = ids;
  for (let turn = 0; asking.length > 0; turn++) {
    expect(turn).toBeLessThan(10_000);
    const raw = s.handle('hiddenTokens', { ids: asking, ...(call !== undefined ? { call } : {}) });
    const reply = value(parseReply('hiddenTokens', raw));
    replies.push(reply);
    for (const f of reply.reductions) figures.set(f.id, f);
    // Every ask makes progress: at least one figure, or the calibration a step further.
    asking = reply.pending;
  }
  return { figures, replies };
}

interface LogOut {
  reductions: { id: string; hidden_tokens_est: Figures['hidden'] }[];
}

describe('hiddenTokens', () => {
  for (const file of [DEMO, join(CC, 'cc-2.1.17-persisted-bash.jsonl'), join(CC, 'cc-2.1.14-two-compactions.jsonl'), join(CC, 'cc-2.1.17-microcompactions-then-compact.jsonl')]) {
    it(`equals log's hidden_tokens_est for every reduction: ${file.split('/').pop() ?? ''}`, async () => {
      const r = await runCli(['log', file]);
      expect(r.code, r.stderr).toBe(0);
      const log = (JSON.parse(r.stdout) as LogOut).reductions;
      expect(log.length).toBeGreaterThan(0);
      const s = await opened([file]);
      const { figures } = askAll(s, log.map((e) => e.id));
      for (const e of log) {
        const f = figures.get(e.id);
        expect(f?.hidden, e.id).toEqual(e.hidden_tokens_est);
        // The whole original is at least what it hid (what replaced it counts for something or nothing).
        if (f?.hidden && f.original) expect(f.original.tokens).toBeGreaterThanOrEqual(f.hidden.tokens);
      }
    });
  }

  it('a Claude Code file: approximate, and the figures of a call view are those of the latest for the same reduction', async () => {
    const s = await opened([join(CC, 'cc-2.1.14-two-compactions.jsonl')]);
    const log = value(s.handle('log', {})).entries.map((e) => e.reduction.id);
    const latest = askAll(s, log).figures;
    for (const f of latest.values()) expect(f.hidden?.approximate).toBe(true);
    const calls = value(s.handle('calls', {})).calls;
    expect(calls).toBeGreaterThan(1);
    const atLast = askAll(s, log, calls).figures;
    expect(atLast.size).toBeGreaterThan(0);
    for (const [id, f] of atLast) expect(f).toEqual(latest.get(id));
  });

  it('names the ids the view does not hold as unknown, and rejects a call that is none', async () => {
    const s = await opened([DEMO]);
    const reply = value(s.handle('hiddenTokens', { ids: ['r1', 'no-such'] }));
    expect(reply.unknown).toEqual(['no-such']);
    expect(reply.reductions.map((f) => f.id)).toEqual(['r1']);
    const far = s.handle('hiddenTokens', { ids: ['r1'], call: 999 });
    expect(far.ok).toBe(false);
    if (!far.ok) expect(far.error.code).toBe('invalid_request');
  });

  it('a 12 MB hidden output is sampled and says so, with how; a small one is counted whole', async () => {
    const big = writeElidedOutputs(tmp.path('big.sidecar.jsonl'), 1, 12 * 1024 * 1024);
    const s = await opened([big]);
    const started = performance.now();
    const { figures, replies } = askAll(s, ['r0']);
    const elapsed = performance.now() - started;
    const f = figures.get('r0');
    expect(f?.original?.sampled).toBe(true);
    expect(f?.hidden?.sampled).toBe(true);
    expect(replies[0]?.sampling).toEqual({ above_bytes: SAMPLE_ABOVE_BYTES, chunks: 64, chunk_bytes: 64 * 1024 });
    // The text is one line repeated: the sampled figure is within 5 % of the count of the whole.
    const line = 'alpha beta gamma delta log line step 17 ok\n';
    const exact = (countText(line.repeat(1000)) / (1000 * line.length)) * 12 * 1024 * 1024;
    expect(Math.abs((f?.original?.tokens ?? 0) - exact) / exact).toBeLessThan(0.05);
    // 4 MiB counted, not 12: bounded, whatever the machine's load (a whole count is 3× the work).
    expect(elapsed).toBeLessThan(60_000);
    const small = await opened([DEMO]);
    expect(askAll(small, ['r1']).figures.get('r1')?.original?.sampled).toBeUndefined();
  });

  it('counts within its time budget and answers the rest as pending, which later asks fill in', async () => {
    const many = writeElidedOutputs(tmp.path('many.sidecar.jsonl'), 400, 64 * 1024);
    const s = await opened([many]);
    const ids = Array.from({ length: 400 }, (_, k) => `r${k}`);
    const first = value(s.handle('hiddenTokens', { ids }));
    expect(first.reductions.length).toBeGreaterThan(0);
    expect(first.pending.length).toBeGreaterThan(0);
    expect(first.reductions.length + first.pending.length).toBe(400);
    const { figures } = askAll(s, first.pending);
    expect(figures.size + first.reductions.length).toBe(400);
    // Asked again, every figure is cached: one reply, nothing pending.
    const again = value(s.handle('hiddenTokens', { ids }));
    expect(again.pending).toEqual([]);
    expect(again.reductions).toHaveLength(400);
    expect(HIDDEN_TOKENS_BUDGET_MS).toBeLessThanOrEqual(250);
  });

  it('property: every figure is at least 0, a sampled one says so only for an original above the threshold, hidden ≤ original', async () => {
    const content = fc.string({ unit: fc.constantFrom('a', 'b ', 'ç', '日本', '\n', '{"k": 1}', '😀', 'x'.repeat(600)), maxLength: 200 });
    await fc.assert(
      fc.asyncProperty(fc.array(content, { minLength: 1, maxLength: 5 }), fc.array(fc.nat(), { maxLength: 5 }), async (outputs, kept) => {
        const view: ChatMessage[] = [{ role: 'user', content: 'go' }];
        const log: Reduction[] = [];
        outputs.forEach((text, k) => {
          view.push({ role: 'assistant', content: '', tool_calls: [{ id: `c${k}`, name: 'shell', arguments: '{}' }] });
          view.push({ role: 'tool', tool_call_id: `c${k}`, content: text });
          const bytes = utf8Encode(text).length;
          const keep = Math.min(bytes, kept[k] ?? 0);
          const truncated = keep > 0 && keep < bytes && (utf8Encode(text)[keep]! & 0xc0) !== 0x80;
          const id = `r${k}`;
          const kind = truncated ? 'tool_output_truncated' : 'tool_output_elided';
          log.push({
            id,
            kind,
            ptr: { index: view.length - 1, hash: ptrHash(sha256Hex([utf8Encode(text)])), bytes },
            ...(truncated ? { kept_bytes: keep } : {}),
            stub: stubText(id, kind, bytes - (truncated ? keep : 0)),
            minted_at: view.length,
          });
        });
        const s = await opened([sidecar(view, log)]);
        try {
          const { figures } = askAll(s, log.map((r) => r.id));
          for (const r of log) {
            const f = figures.get(r.id);
            expect(f?.hidden).not.toBeNull();
            expect(f?.original).not.toBeNull();
            for (const e of [f?.hidden, f?.original]) {
              expect(e?.tokens).toBeGreaterThanOrEqual(0);
              expect(e?.source).toBe('estimated');
              expect(e?.sampled === true).toBe((r.ptr.bytes ?? 0) > SAMPLE_ABOVE_BYTES);
            }
            expect(f?.hidden?.tokens ?? 0).toBeLessThanOrEqual(f?.original?.tokens ?? 0);
          }
        } finally {
          s.close();
        }
      }),
      { numRuns: 25 },
    );
  });
});

describe.skipIf(!existsSync(join(ROOT, 'dist/worker.cjs')))('the real worker loads the packages a request may never need only when asked (built bundle)', () => {
  it('open, rows, log, verify, check and a substring search load none; hiddenTokens loads the tokenizer, a regex search re2js', async () => {
    const dir = tempDir('session-inspector-worker-tokenizer-');
    const seen = dir.path('loaded.txt');
    const hook = dir.path('record.cjs');
    writeFileSync(seen, '');
    // Every package chunk the worker thread requires, by request: each is a file of its own (scripts/build.mjs, lazy-modules).
    writeFileSync(
      hook,
      `const M = require('node:module'); const fs = require('node:fs'); const load = M._load;\nM._load = function (request, ...rest) { if (String(request).includes('cli-lib-')) fs.appendFileSync(${JSON.stringify(seen)}, require('node:path').basename(String(request)) + '\\n'); return load.call(this, request, ...rest); };\n`,
    );
    const loaded = (): string[] => [...new Set(readFileSync(seen, 'utf8').split('\n').filter(Boolean))].sort();
    const c = createResolverClient({ execArgv: ['--require', hook] });
    try {
      value(await c.open([DEMO], 1));
      value(await c.request('rows', params('rows', { start: 0, end: 10 })));
      value(await c.request('log', {}));
      value(await c.request('verify', { ids: ['r1'] }));
      value(await c.request('check', {}));
      value(await c.request('search', params('search', { query: 'got', searchId: 's1' })));
      expect(loaded()).toEqual([]);
      const reply = value(await c.request('hiddenTokens', params('hiddenTokens', { ids: ['r1'] })));
      expect(reply.reductions).toHaveLength(1);
      expect(loaded()).toEqual(['cli-lib-gpt-tokenizer-encoding-o200k_base.cjs']);
      const found = value(await c.request('search', params('search', { query: 'got \\d', searchId: 's2', mode: 'regex' })));
      expect(found.total_matches).toBeGreaterThan(0);
      expect(loaded()).toEqual(['cli-lib-gpt-tokenizer-encoding-o200k_base.cjs', 'cli-lib-re2js.cjs']);
    } finally {
      await c.dispose();
      dir.cleanup();
    }
  });
});
