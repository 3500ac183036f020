/**
 * SPEC §15 estimates where they are shown: `view`'s `tokens_est`, `calibration` and
 * `context_breakdown`, `log`'s `hidden_tokens_est`; the calibration against the usage real Claude
 * Code files record (read here from the raw records with JSON.parse, not through the importer);
 * and the command line loading the tokenizer only where it estimates.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { LogReportEntry, ViewEntry } from '../../shared/index';
import type { ContextBreakdown } from '../../shared/tokens/breakdown';
import type { Calibration } from '../../shared/tokens/calibration';
import { CLAUDE_DEFAULT, MIN_CALIBRATION_CALLS, MIN_GROWTH_TOKENS, PLAUSIBLE_FACTOR, calibrate, calibrationError, usablePairs } from '../../shared/tokens/calibration';
import type { TokenEstimate } from '../../shared/tokens/estimate';
import { tempDir } from '../../tools/testing/files';
import { CODE_CACHE_ENV } from '../cli/chunkLoader';
import { runCli } from '../cli/testing/runCli';
import { editedClaudeCodeUsage, scaledContext } from '../loader/testing/rawCalls';
import { loadSession } from '../loader/session';
import { countText } from './counter';
import { generateClaudeTranscript } from '../loader/claudeCode/testing/generate';
import type { LoadedSession } from '../loader/session';
import { callInput, callsOf, viewEntries } from '../../shared/calls/calls';
import type { CallTimeline, ReductionSpan } from '../../shared/calls/calls';
import type { ChatMessage, MessageList, Reduction, ReductionKind } from '../../shared/format/types';
import { MAX_CALIBRATION_STEPS, SessionEstimates, calibrationStepCalls, recordedContextOf } from './sessionEstimates';

const ROOT = join(import.meta.dirname, '../..');
const DEMO = join(ROOT, 'samples/demo.sidecar.jsonl');
const SWE = join(ROOT, 'e2e/fixtures/real/swe-agent/sweagenttestrepo-1c2844.traj');
const CC = join(ROOT, 'e2e/fixtures/real/claude-code');
/** Real Claude Code files with enough calls to calibrate on (docs/token-estimates.md). */
const CALIBRATED = ['cc-2.1.17-persisted-bash.jsonl', 'cc-2.1.32-persisted-grep.jsonl', 'cc-2.1.14-two-compactions.jsonl'];

type Message = ViewEntry & { tokens_est: number };
interface ViewOut {
  messages: Message[];
  tokens_est: TokenEstimate;
  calibration?: Calibration;
  context_breakdown?: ContextBreakdown;
  tokens?: { context: number } | null;
}

async function viewOf(args: string[]): Promise<ViewOut> {
  const r = await runCli(['view', ...args]);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as ViewOut;
}

/** The o200k count of what a view entry shows the model: its content and its tool calls' names and arguments. */
const entryCount = (m: ViewEntry) => countText(m.content) + (m.tool_calls ?? []).reduce((n, c) => n + countText(c.name) + countText(c.arguments), 0);

describe('view: tokens_est', () => {
  it('native sample (no recorded usage, no Claude model): each message is the o200k count of what the model was shown, the view the sum, estimated and not approximate', async () => {
    for (const at of [undefined, '1', '2']) {
      const out = await viewOf([...(at ? ['--at', at] : []), DEMO]);
      for (const m of out.messages) expect(m.tokens_est).toBe(entryCount(m));
      expect(out.tokens_est).toEqual({ tokens: out.messages.reduce((n, m) => n + m.tokens_est, 0), source: 'estimated' });
      expect(out.calibration).toBeUndefined();
    }
  });

  it('SWE-agent file (no recorded usage): estimates marked estimated, with the breakdown at a call summing to the view', async () => {
    const out = await viewOf(['--at', '3', SWE]);
    for (const m of out.messages) expect(m.tokens_est).toBe(entryCount(m));
    expect(out.tokens_est.source).toBe('estimated');
    const b = out.context_breakdown as ContextBreakdown;
    expect(b.source).toBe('estimated');
    expect(b.in_file).toBe(out.tokens_est.tokens);
    expect(b.system).toBe(out.messages.filter((m) => m.role === 'system').reduce((n, m) => n + m.tokens_est, 0));
    expect(b.tool_results).toBe(out.messages.filter((m) => m.role === 'tool').reduce((n, m) => n + m.tokens_est, 0));
    expect(b.recorded).toBeUndefined();
    expect(b.not_in_file).toBeUndefined();
  });

  it('Claude Code file: approximate, scaled by the factor fitted to the usage the file records', async () => {
    const out = await viewOf(['--at', '5', join(CC, 'cc-2.1.17-persisted-bash.jsonl')]);
    expect(out.tokens_est.approximate).toBe(true);
    // The file records usage at enough calls: its own fit, not the default.
    expect(out.calibration?.source).toBe('file');
    expect(out.calibration?.calls).toBeGreaterThanOrEqual(MIN_CALIBRATION_CALLS);
    const factor = out.calibration?.factor ?? Number.NaN;
    expect(factor).toBeGreaterThan(1);
    // An assistant message also counts the thinking its record keeps (the model is given it back), not shown in `content`.
    for (const m of out.messages) {
      if (m.role === 'assistant') expect(m.tokens_est).toBeGreaterThanOrEqual(Math.round(entryCount(m) * factor));
      else expect(m.tokens_est).toBe(Math.round(entryCount(m) * factor));
    }
    expect(out.tokens_est.tokens).toBe(out.messages.reduce((n, m) => n + m.tokens_est, 0));
    expect(out.context_breakdown?.approximate).toBe(true);
    // The breakdown has the recorded context of call 5 behind it.
    expect(out.context_breakdown?.recorded).toBe(out.tokens?.context);
  });
});

describe('log: hidden_tokens_est', () => {
  it('native sample: the original’s count minus the count of what replaced it (kept prefix and stub), never below 0', async () => {
    const log = JSON.parse((await runCli(['log', DEMO])).stdout) as { reductions: (LogReportEntry & { hidden_tokens_est: TokenEstimate | null })[] };
    expect(log.reductions.length).toBeGreaterThan(0);
    const latest = await viewOf([DEMO]);
    for (const r of log.reductions) {
      const original = JSON.parse((await runCli(['expand', '--id', r.id, DEMO])).stdout) as { content: string };
      const shown = latest.messages.find((m) => m.reductions.includes(r.id));
      expect(r.hidden_tokens_est).toEqual({ tokens: Math.max(0, countText(original.content) - countText(shown?.content ?? '')), source: 'estimated' });
    }
  });

  it('records that name the same original (kind, place, hash) read it once, each with the estimate counted alone', async () => {
    const loaded = await loadSession([DEMO]);
    if (!loaded.ok) throw new Error(loaded.error.message);
    const session = loaded.session;
    try {
      const [first] = session.log.filter((r) => r.ptr.hash !== null && r.kind !== 'turns_cleared' && r.kind !== 'summarized');
      if (!first) throw new Error('the demo has no reduction of one content');
      let reads = 0;
      const minted: MessageList = {
        length: session.minted.length,
        at: (i) => {
          if (i === first.ptr.index) reads++;
          return session.minted.at(i);
        },
      };
      const alone = new SessionEstimates(session, recordedContextOf(session)).reductionEstimate(first, '');
      expect(alone.original?.tokens).toBeGreaterThan(0);
      // The same reduction under 50 ids, as the log of a message reduced again and again holds it.
      const est = new SessionEstimates(session, recordedContextOf(session));
      for (let k = 0; k < 50; k++) expect(est.reductionEstimate({ ...first, id: `again-${k}` }, '', minted)).toEqual(alone);
      // Resolving an original reads its message once: one original, not one per record.
      expect(reads).toBe(1);
    } finally {
      session.close();
    }
  });

  it('SWE-agent and Claude Code files: every reduction has an estimate ≥ 0 or null (the file does not hold the original), Claude ones approximate', async () => {
    for (const file of [SWE, join(CC, 'cc-2.1.17-persisted-bash.jsonl'), join(CC, 'cc-2.0.76-compact-boundary.jsonl')]) {
      const log = JSON.parse((await runCli(['log', file])).stdout) as { reductions: (LogReportEntry & { hidden_tokens_est: TokenEstimate | null })[] };
      for (const r of log.reductions) {
        if (r.hidden_tokens_est === null) {
          expect(r.status).not.toBe('verified');
          continue;
        }
        expect(r.hidden_tokens_est.tokens).toBeGreaterThanOrEqual(0);
        expect(r.hidden_tokens_est.approximate === true).toBe(file !== SWE);
      }
    }
  });
});

/** The context each main-chain call of a Claude Code file records, by the line of any of its records (FORMATS.md Part II C1, C7). */
function rawContextByLine(path: string): Map<number, number> {
  const byId = new Map<string, number>();
  const idAt = new Map<number, string>();
  readFileSync(path, 'utf8')
    .split('\n')
    .forEach((line, k) => {
      if (line.trim() === '') return;
      const rec = JSON.parse(line) as { type?: string; isSidechain?: boolean; message?: { id?: string; model?: string; usage?: Record<string, number> } };
      const u = rec.message?.usage;
      if (rec.type !== 'assistant' || rec.isSidechain || !u || rec.message?.model === '<synthetic>' || rec.message?.id === undefined) return;
      byId.set(rec.message.id, (u.input_tokens ?? 0) + (u.cache_read_input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0));
      idAt.set(k + 1, rec.message.id);
    });
  return new Map([...idAt].map(([line, id]) => [line, byId.get(id) as number]));
}

describe('calibration against the usage real Claude Code files record', () => {
  for (const name of CALIBRATED) {
    it(`${name}: fitted on its own calls, the factor lowers the error of the raw estimate, and what is not in the file is positive`, async () => {
      const path = join(CC, name);
      const loaded = await loadSession([path]);
      if (!loaded.ok) throw new Error(loaded.error.message);
      const session = loaded.session;
      try {
        const contexts = rawContextByLine(path);
        const recorded = (call: number) => {
          const line = session.calls[call - 1]?.line;
          return line === undefined ? undefined : contexts.get(line);
        };
        const est = new SessionEstimates(session, recorded);
        const pairs = usablePairs(est.growthPairs());
        expect(pairs.length).toBeGreaterThanOrEqual(MIN_CALIBRATION_CALLS);
        const c = est.calibration();
        expect(c?.source).toBe('file');
        expect(c?.refused).toBeUndefined();
        expect(c?.calls).toBe(pairs.length);
        // Raw o200k undercounts Claude: the fitted factor is above 1 and beats no factor on the same steps.
        expect(c!.factor).toBeGreaterThan(1);
        expect(calibrationError(pairs, c!.factor)).toBeLessThan(calibrationError(pairs, 1));
        expect(c!.error).toBeLessThan(0.2);
        // The system prompt and tool schemas Claude Code sends are not in the file: thousands of tokens at every call.
        const last = session.calls.length;
        const b = est.breakdown(last);
        expect(b?.recorded).toBe(recorded(last));
        expect(b?.not_in_file).toBe((b?.recorded as number) - (b?.in_file as number));
        expect(b!.not_in_file!).toBeGreaterThan(1000);
      } finally {
        session.close();
      }
    });
  }
});

describe('a fit the file\'s usage does not support', () => {
  for (const name of CALIBRATED) {
    it(`${name}: its usage scaled ×2 still calibrates on the file; scaled ×60 (tokens a byte and more) the fit is refused for the default`, async () => {
      const path = join(CC, name);
      const loaded = await loadSession([path]);
      if (!loaded.ok) throw new Error(loaded.error.message);
      const session = loaded.session;
      try {
        const recorded = recordedByCall(session, path);
        const scaled = (k: number) => new SessionEstimates(session, (call) => (recorded(call) === undefined ? undefined : k * (recorded(call) as number)));
        const own = new SessionEstimates(session, recorded).calibration()!;
        const twice = scaled(2).calibration()!;
        expect(twice.source).toBe('file');
        expect(twice.factor / own.factor).toBeGreaterThan(1.8);
        expect(twice.factor / own.factor).toBeLessThan(2.2);
        const far = scaled(60);
        const c = far.calibration()!;
        expect(c).toEqual({ ...CLAUDE_DEFAULT, refused: calibrate(far.growthPairs())!.refused });
        expect(c.refused!.factor / own.factor).toBeGreaterThan(50);
        // The estimates are the default's: what a file recording no usage gets.
        const none = new SessionEstimates(session, () => undefined);
        const last = session.calls.length;
        expect(far.breakdown(last)?.in_file).toBe(none.breakdown(last)?.in_file);
      } finally {
        session.close();
      }
    });
  }

  it('no real file of any format that records usage has its own fit refused', async () => {
    const REAL = join(ROOT, 'e2e/fixtures/real');
    const files = readdirSync(REAL, { recursive: true, encoding: 'utf8' })
      .filter((f) => /\.(jsonl|json|traj|eval)$/.test(f) && !f.includes('tool-results'))
      .map((f) => join(REAL, f));
    let fitted = 0;
    for (const file of files) {
      const loaded = await loadSession([file]);
      if (!loaded.ok) continue;
      try {
        const c = new SessionEstimates(loaded.session, recordedContextOf(loaded.session)).calibration();
        expect(c?.refused, file).toBeUndefined();
        if (c?.source === 'file') fitted++;
      } finally {
        loaded.session.close();
      }
    }
    // Claude Code, Codex and mini-swe-agent files fit on their own usage.
    expect(fitted).toBeGreaterThanOrEqual(10);
  });

  it('view prints the default it used and the fit it refused; its estimates are those of the same file without usage', async () => {
    const tmp = tempDir('session-inspector-refused-fit-');
    try {
      const far = join(tmp.dir, 'far.jsonl');
      const bare = join(tmp.dir, 'bare.jsonl');
      writeFileSync(far, editedClaudeCodeUsage(join(CC, CALIBRATED[2]!), scaledContext(60)));
      writeFileSync(bare, editedClaudeCodeUsage(join(CC, CALIBRATED[2]!), () => undefined));
      const [a, b] = [await viewOf([far]), await viewOf([bare])];
      const { refused, ...used } = a.calibration ?? {};
      expect(used).toEqual(CLAUDE_DEFAULT);
      expect(refused!.factor).toBeGreaterThan(PLAUSIBLE_FACTOR.max);
      expect(refused!.calls).toBeGreaterThanOrEqual(MIN_CALIBRATION_CALLS);
      expect(b.calibration).toEqual(CLAUDE_DEFAULT);
      expect(a.tokens_est).toEqual(b.tokens_est);
      expect(a.messages.map((m) => m.tokens_est)).toEqual(b.messages.map((m) => m.tokens_est));
    } finally {
      tmp.cleanup();
    }
  });
});

/** The raw o200k total of call N's input, entry by entry: what each growth pair is the difference of. */
function rawInputTotal(est: SessionEstimates, session: LoadedSession, call: number): number {
  const input = session.callInput(call)!;
  return viewEntries(input).reduce((n, e) => n + est.entryRaw(e, input.minted).tokens, 0);
}

/** The context a Claude Code file records at each call, by call number (from the raw records). */
function recordedByCall(session: LoadedSession, path: string): (call: number) => number | undefined {
  const contexts = rawContextByLine(path);
  return (call) => {
    const line = session.calls[call - 1]?.line;
    return line === undefined ? undefined : contexts.get(line);
  };
}

describe('the calibration walk', () => {
  it('each pair is the difference of the two calls’ raw totals (real file, every call walked)', async () => {
    // 115 calls: fewer than the walk's bound, so every call is a step.
    const path = join(CC, 'cc-2.1.17-microcompactions-then-compact.jsonl');
    const loaded = await loadSession([path]);
    if (!loaded.ok) throw new Error(loaded.error.message);
    const session = loaded.session;
    try {
      const recorded = recordedByCall(session, path);
      const est = new SessionEstimates(session, recorded);
      const expected: { recorded: number; estimated: number }[] = [];
      for (let call = 2; call <= session.calls.length; call++) {
        const a = recorded(call - 1);
        const b = recorded(call);
        // A growth the fit leaves out whatever its estimate is not estimated.
        if (a === undefined || b === undefined || b - a <= MIN_GROWTH_TOKENS) continue;
        expected.push({ recorded: b - a, estimated: rawInputTotal(est, session, call) - rawInputTotal(est, session, call - 1) });
      }
      expect(expected.length).toBeGreaterThan(100);
      expect(session.calls.length).toBeLessThanOrEqual(MAX_CALIBRATION_STEPS + 1);
      expect(est.growthPairs()).toEqual(expected);
      expect(est.calibrationTotal).toBe(session.calls.length);
    } finally {
      session.close();
    }
  });

  it('a session of more calls than the walk takes is fitted on evenly spaced steps, each a call and the one before it', async () => {
    const tmp = tempDir('session-inspector-calibration-');
    try {
      const made = generateClaudeTranscript(tmp.dir, { bytes: 6_000_000, seed: 7, outputScale: 0.25, compactEvery: 2_000_000 });
      const loaded = await loadSession([made.path]);
      if (!loaded.ok) throw new Error(loaded.error.message);
      const session = loaded.session;
      try {
        const calls = session.calls.length;
        expect(calls).toBeGreaterThan(MAX_CALIBRATION_STEPS + 1);
        const recorded = recordedByCall(session, made.path);
        const est = new SessionEstimates(session, recorded);
        const steps = calibrationStepCalls(calls);
        expect(est.calibrationTotal).toBe(MAX_CALIBRATION_STEPS);
        const expected: { recorded: number; estimated: number }[] = [];
        // Every recorded step estimated, those the fit leaves out too.
        const every: { recorded: number; estimated: number }[] = [];
        for (const at of steps) {
          const [a, b] = [session.calls[at - 1]!.call, session.calls[at]!.call];
          const ra = recorded(a);
          const rb = recorded(b);
          if (ra === undefined || rb === undefined) continue;
          const pair = { recorded: rb - ra, estimated: rawInputTotal(est, session, b) - rawInputTotal(est, session, a) };
          every.push(pair);
          if (rb - ra > MIN_GROWTH_TOKENS) expected.push(pair);
        }
        expect(expected.length).toBeGreaterThan(MAX_CALIBRATION_STEPS / 2);
        // Steps the walk leaves unestimated are there (a compaction's drop among them), and the fit is the same without them.
        expect(every.some((p) => p.recorded < 0)).toBe(true);
        expect(calibrate(expected, CLAUDE_DEFAULT)).toEqual(calibrate(every, CLAUDE_DEFAULT));
        const fresh = new SessionEstimates(session, recorded);
        expect(fresh.growthPairs()).toEqual(expected);
        // At most two inputs counted per step, not one per call of the session.
        expect(fresh.calibrationCounted).toBeLessThanOrEqual(2 * MAX_CALIBRATION_STEPS);
        // The generator's usage does not follow its messages (random cache reads): whatever the fit, it is calibrate's over those steps.
        expect(fresh.calibration()).toEqual(calibrate(expected, CLAUDE_DEFAULT));
      } finally {
        session.close();
      }
    } finally {
      tmp.cleanup();
    }
  });

  it('each pair is the difference of the two calls’ raw totals whatever changed between them (generated timelines: ranges, compactions of several runs, reductions that end, live from any line)', () => {
    const reductionArb = fc.record({
      kind: fc.constantFrom<ReductionKind>('tool_output_elided', 'tool_output_truncated', 'turns_cleared', 'summarized', 'summarized', 'duplicate_output'),
      index: fc.nat({ max: 24 }),
      span: fc.integer({ min: 1, max: 4 }),
      group: fc.constantFrom(undefined, 'g1', 'g2'),
      from: fc.integer({ min: -1, max: 50 }),
      to: fc.option(fc.integer({ min: 0, max: 60 }), { nil: undefined, freq: 3 }),
    });
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 25 }), fc.array(reductionArb, { maxLength: 10 }), fc.boolean(), (n, drawn, frozen) => {
        // Message i is at line 2i + 1, so a reduction's line falls between two messages or on one.
        const messages: ChatMessage[] = Array.from({ length: n }, (_, i) => ({ role: i % 3 === 1 ? 'assistant' : i % 3 === 2 ? 'tool' : 'user', content: `message ${i} `.repeat(1 + (i % 4)) }));
        const minted: MessageList = { length: n, at: (i) => messages[i] };
        const log: Reduction[] = drawn.map((d, k) => ({
          id: `r${k}`,
          kind: d.kind,
          ptr: { index: Math.min(d.index, n - 1), hash: null, bytes: 10 },
          stub: `stub ${k}`,
          minted_at: 0,
          ...(d.kind === 'turns_cleared' || d.kind === 'summarized' ? { end: Math.min(n, Math.min(d.index, n - 1) + d.span) } : {}),
          ...(d.kind === 'summarized' && d.group ? { group: d.group } : {}),
          ...(d.kind === 'tool_output_truncated' ? { kept_bytes: 0 } : {}),
          ...(d.kind === 'duplicate_output' ? { canonical: { index: (d.index + 1) % n, hash: 'sha256:0' } } : {}),
        }));
        const spans: ReductionSpan[] = log.map((reduction, k) => ({ reduction, from: (drawn[k] as { from: number }).from, ...(drawn[k]?.to !== undefined ? { to: drawn[k].to } : {}) }));
        const calls = callsOf(n, (i) => messages[i]?.role, (i) => 2 * i + 1);
        const timeline: CallTimeline = { calls, spans: frozen ? Object.freeze(spans) : spans };
        const session = {
          model: 'gpt-5',
          modelChanges: [],
          calls,
          callTimeline: timeline,
          callInput: (call: number | null) => (call === null ? { minted, log } : calls[call - 1] ? callInput(timeline, minted, calls[call - 1]!) : undefined),
          instructionsAt: () => [],
          log,
          minted,
          recorded: undefined,
        } as unknown as LoadedSession;
        const est = new SessionEstimates(session, (call) => 1000 * call);
        const total = (call: number): number => rawInputTotal(est, session, call);
        const steps = calibrationStepCalls(calls.length).filter((at) => at > 0);
        const expected = steps.map((at) => ({ recorded: 1000, estimated: total(calls[at]!.call) - total(calls[at - 1]!.call) }));
        // And the entries counted are those one input holds and the other does not, by key (view index and reductions).
        const key = (e: ViewEntry): string => `${e.index}|${e.reductions.join(',')}`;
        const keysOf = (call: number): Set<string> => new Set(viewEntries(session.callInput(call)!).map(key));
        const differing = steps.flatMap((at) => {
          const [ka, kb] = [keysOf(calls[at - 1]!.call), keysOf(calls[at]!.call)];
          return [...[...kb].filter((k) => !ka.has(k)), ...[...ka].filter((k) => !kb.has(k))];
        });
        const fresh = new SessionEstimates(session, (call) => 1000 * call);
        const counted: string[] = [];
        const entryRaw = fresh.entryRaw.bind(fresh);
        fresh.entryRaw = (e, view) => {
          counted.push(key(e));
          return entryRaw(e, view);
        };
        expect(fresh.growthPairs()).toEqual(expected);
        expect(counted.sort()).toEqual(differing.sort());
      }),
      { numRuns: 300 },
    );
  });

  it('the steps: every call up to the bound, else that many, increasing, from the second call to near the last', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 200_000 }), fc.integer({ min: 1, max: 300 }), (calls, bound) => {
        const steps = calibrationStepCalls(calls, bound);
        if (calls <= bound + 1) {
          expect(steps).toEqual(Array.from({ length: calls }, (_, k) => k));
          return;
        }
        expect(steps).toHaveLength(bound);
        expect(steps[0]).toBe(1);
        for (let k = 1; k < steps.length; k++) expect(steps[k]!).toBeGreaterThan(steps[k - 1]!);
        expect(steps.at(-1)!).toBeLessThan(calls);
        expect(steps.at(-1)!).toBeGreaterThanOrEqual(calls - Math.ceil(calls / bound) - 1);
      }),
    );
  });
});

describe.skipIf(!existsSync(join(ROOT, 'dist/cli.cjs')))('the tokenizer loads only where a command estimates (built bundle)', () => {
  const tmp = tempDir('session-inspector-tokens-');
  afterAll(() => tmp.cleanup());
  const hook = tmp.path('record.cjs');
  writeFileSync(hook, `process.on('exit', () => require('node:fs').writeSync(2, '\\nFILES ' + JSON.stringify(Object.keys(require.cache)) + '\\n'));\n`);
  const TOKENIZER = 'cli-lib-gpt-tokenizer-encoding-o200k_base.cjs';
  const loaded = (args: string[]) => {
    const r = spawnSync(process.execPath, ['-r', hook, join(ROOT, 'dist/cli.cjs'), ...args], { encoding: 'utf8', env: { ...process.env, [CODE_CACHE_ENV]: '0' } });
    expect(r.status, r.stderr).toBe(0);
    const files = JSON.parse(r.stderr.split('\n').find((l) => l.startsWith('FILES '))?.slice(6) ?? '[]') as string[];
    return files.some((f) => f.endsWith(TOKENIZER));
  };
  it('check, expand and search never load it; view and log do', () => {
    expect(loaded(['check', DEMO])).toBe(false);
    expect(loaded(['expand', '--id', 'r1', DEMO])).toBe(false);
    expect(loaded(['search', '--query', 'got 4', DEMO])).toBe(false);
    expect(loaded(['view', '--at', '1', DEMO])).toBe(true);
    expect(loaded(['log', DEMO])).toBe(true);
  });

  it('the command chunk does not hold the encoding: it is its own file', () => {
    const chunk = readFileSync(join(ROOT, 'dist/cli-session.cjs'), 'utf8');
    const lib = readFileSync(join(ROOT, 'dist', TOKENIZER), 'utf8');
    expect(lib.length).toBeGreaterThan(1_000_000);
    expect(chunk.length).toBeLessThan(lib.length / 2);
  });
});
