/** The command line's `view [--at N]` (SPEC §11): the §9 demo, a Claude Code compaction, a Codex one. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ExpandOutcome, LogReportEntry, ViewEntry } from '../../shared/index';
import { CODEX_SYNTHETIC_DIR } from '../loader/codex/testing/synthetic';
import { makeHeader, tempDir, writeSidecar } from '../../tools/testing/files';
import type { LoadedSession } from '../loader/session';
import { loadSession } from '../loader/session';
import { runCli } from './testing/runCli';
import { prepareView, viewOutput } from './view';

const ROOT = join(import.meta.dirname, '../..');
const DEMO = join(ROOT, 'samples/demo.sidecar.jsonl');
const COMPACTED = join(ROOT, 'e2e/fixtures/real/claude-code/cc-2.0.76-compact-boundary.jsonl');
const CODEX_LOCAL = join(CODEX_SYNTHETIC_DIR, 'local-compaction.jsonl');

const tmp = tempDir('session-inspector-view-');
afterAll(() => tmp.cleanup());

interface ViewOutput {
  format: string;
  call: number | null;
  calls: number;
  messages: ViewEntry[];
}

/**
 * `view`'s output without its token estimates (SPEC §15: `tokens_est` per message and for the
 * view, `calibration`, `context_breakdown`), which electron/tokens/estimates.test.ts checks.
 */
function withoutEstimates(stdout: string): unknown {
  const { tokens_est: _t, calibration: _c, context_breakdown: _b, messages, ...rest } = JSON.parse(stdout) as { messages: Record<string, unknown>[] } & Record<string, unknown>;
  return { ...rest, messages: messages.map(({ tokens_est: _m, ...m }) => m) };
}

async function view(args: string[]): Promise<ViewOutput> {
  const r = await runCli(['view', ...args]);
  expect(r.code, r.stderr).toBe(0);
  return withoutEstimates(r.stdout) as ViewOutput;
}

const TOOL_CALLS = '"tool_calls":[{"id":"call_9","name":"shell","arguments":"{\\"cmd\\":\\"npm test\\"}"}]';
const FIRST_TWO = `{"index":0,"role":"user","content":"Find the failing test","reductions":[]},{"index":1,"role":"assistant","content":"",${TOOL_CALLS},"reductions":[]}`;

describe('view on the §9 demo', () => {
  it('without --at: the latest view, r1 applied (kept prefix and stub in place), call null', async () => {
    const r = await runCli(['view', DEMO]);
    expect(r.code).toBe(0);
    expect(r.stdout.endsWith('}\n')).toBe(true);
    expect(withoutEstimates(r.stdout)).toEqual(JSON.parse(
      `{"format":"supercode","call":null,"calls":2,"messages":[${FIRST_TWO},{"index":2,"role":"tool","content":"PASS a.test.ts\\n⟦reduced⟧ id=r1 kind=tool_output_truncated hidden_bytes=52 — expand_reduction(\\"r1\\") restores it","tool_call_id":"call_9","reductions":["r1"]},{"index":3,"role":"assistant","content":"Let me look closer.","reductions":[]}]}`,
    ));
  });

  it('--at 2: messages 0–2, the tool output whole (r1 was minted after the call); no recorded tokens (a native file records none)', async () => {
    const r = await runCli(['view', '--at', '2', DEMO]);
    expect(withoutEstimates(r.stdout)).toEqual(JSON.parse(
      `{"format":"supercode","call":2,"calls":2,"tokens":null,"messages":[${FIRST_TWO},{"index":2,"role":"tool","content":"PASS a.test.ts\\nFAIL b.test.ts — expected 3, got 4\\nPASS c.test.ts\\n","tool_call_id":"call_9","reductions":[]}]}`,
    ));
  });

  it('--at 1: the user message alone', async () => {
    expect((await view(['--at=1', DEMO])).messages).toEqual([{ index: 0, role: 'user', content: 'Find the failing test', reductions: [] }]);
  });

  it('--at out of range is a usage error (exit 2) naming the valid range', async () => {
    for (const at of ['0', '3']) {
      const r = await runCli(['view', '--at', at, DEMO]);
      expect(r.code).toBe(2);
      expect(JSON.parse(r.stdout)).toEqual({ error: { code: 'usage', message: `--at ${at} is out of range: the session's model calls are 1 to 2` } });
    }
  });

  it('a file of a newer format version is unsupported_version, as for expand', async () => {
    const r = await runCli(['view', writeSidecar(tmp.path('v2.sidecar.jsonl'), [makeHeader({ version: 2 })])]);
    expect(r.code).toBe(2);
    expect((JSON.parse(r.stdout) as { error: { code: string } }).error.code).toBe('unsupported_version');
  });

  it('--at that is not a number is a usage error before any file is read', async () => {
    const r = await runCli(['view', '--at', 'two', join(ROOT, 'no-such-file.jsonl')]);
    expect(r.code).toBe(2);
    expect((JSON.parse(r.stdout) as { error: { code: string } }).error.code).toBe('usage');
  });
});

describe('view on a Claude Code compaction', () => {
  it('a call before the compaction boundary sees the original messages; a call after it sees the summary', async () => {
    const log = JSON.parse((await runCli(['log', COMPACTED])).stdout) as { reductions: LogReportEntry[] };
    const compaction = log.reductions.find((r) => r.kind === 'summarized');
    expect(compaction).toBeDefined();
    const transcript = (JSON.parse((await runCli(['expand', '--id', compaction!.id, COMPACTED])).stdout) as ExpandOutcome).content;
    const latest = await view([COMPACTED]);
    expect(latest.format).toBe('claude-code');
    const summarizedAt: boolean[] = [];
    let lastBefore: ViewOutput | undefined;
    for (let n = 1; n <= latest.calls; n++) {
      const at = await view(['--at', String(n), COMPACTED]);
      expect(at.call).toBe(n);
      const first = at.messages[0];
      const summarized = first?.reductions.includes(compaction!.id) === true;
      summarizedAt.push(summarized);
      if (summarized) {
        expect(first).toEqual({ index: 0, role: null, content: compaction!.stub, reductions: [compaction!.id] });
        expect(at.messages.slice(1).every((m) => m.index >= (compaction!.end ?? 0))).toBe(true);
      } else {
        lastBefore = at;
      }
    }
    // The calls split in two at the boundary: none summarized, then all.
    const boundary = summarizedAt.indexOf(true);
    expect(boundary).toBeGreaterThan(0);
    expect(summarizedAt.slice(boundary).every(Boolean)).toBe(true);
    expect(summarizedAt.slice(0, boundary).some(Boolean)).toBe(false);
    // Before it, the model was given the original messages: each is in the compaction's transcript, in order.
    let from = 0;
    for (const m of lastBefore!.messages) {
      expect(m.reductions).toEqual([]);
      const at = transcript.indexOf(`\n${m.content}\n`, from - 1);
      expect(at, `message ${m.index}`).toBeGreaterThanOrEqual(0);
      from = at + m.content.length;
    }
    expect(lastBefore!.messages.map((m) => m.index)).toEqual(lastBefore!.messages.map((_, i) => i));
  });
});

describe('view on a Codex compaction', () => {
  it('the runs of one compaction are one entry, the summary, carrying every run; calls before it see the messages', async () => {
    const latest = await view([CODEX_LOCAL]);
    expect(latest.format).toBe('codex');
    const summary = latest.messages[0]!;
    expect(summary.role).toBeNull();
    expect(summary.reductions.length).toBeGreaterThan(1);
    const ids = new Set(latest.messages.flatMap((m) => m.reductions));
    expect(ids.size).toBe(summary.reductions.length);
    const first = await view(['--at', '1', CODEX_LOCAL]);
    expect(first.messages.every((m) => m.reductions.length === 0 && m.role !== null)).toBe(true);
  });
});

describe('view: the instructions given outside the messages', () => {
  const ATTACHMENTS = join(ROOT, 'e2e/fixtures/real/claude-code/cc-2.1.119-attachments.jsonl');
  const CODEX_REAL = join(ROOT, 'e2e/fixtures/real/codex/rollout-0.139-review-subagent-ENTIRE.jsonl');
  const rawLines = (path: string) => readFileSync(path, 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as Record<string, unknown>);

  it('Codex: "instructions" holds the session_meta base instructions, as the request\'s instructions; the messages do not', async () => {
    const meta = rawLines(CODEX_REAL).find((v) => v.type === 'session_meta') as { payload: { base_instructions: { text: string } } };
    const out = (await view(['--at', '1', CODEX_REAL])) as ViewOutput & { instructions: unknown };
    expect(out.instructions).toEqual([{ source: 'codex_base_instructions', placement: 'instructions', index: 0, line: 1, text: meta.payload.base_instructions.text }]);
    expect(out.messages.some((m) => m.content === meta.payload.base_instructions.text)).toBe(false);
  });

  it('Claude Code: call 1 gets the attachments recorded before its response, each with its kind, line and text', async () => {
    const lines = rawLines(ATTACHMENTS);
    const firstAnswer = lines.findIndex((v) => v.type === 'assistant') + 1;
    const out = (await view(['--at', '1', ATTACHMENTS])) as ViewOutput & { instructions: { kind: string; line: number; placement: string; text: string }[] };
    const skills = lines.findIndex((v) => (v.attachment as { type?: string } | undefined)?.type === 'skill_listing') + 1;
    expect(skills).toBeGreaterThan(0);
    expect(skills).toBeLessThan(firstAnswer);
    const entry = out.instructions.find((i) => i.line === skills);
    expect(entry).toMatchObject({ source: 'claude_code_attachment', kind: 'skill_listing', placement: 'user_message', text: (lines[skills - 1]!.attachment as { content: string }).content });
    expect(out.instructions.every((i) => i.line < firstAnswer)).toBe(true);
    // The hook's system message is shown to the user only: not given.
    const notGiven = lines.findIndex((v) => (v.attachment as { type?: string } | undefined)?.type === 'hook_system_message') + 1;
    expect(out.instructions.some((i) => i.line === notGiven)).toBe(false);
  });

  it('a session that records none prints no "instructions" (the §9 demo\'s output is unchanged)', async () => {
    const r = await runCli(['view', DEMO]);
    expect(Object.keys(JSON.parse(r.stdout) as object)).toEqual(['format', 'call', 'calls', 'messages', 'tokens_est']);
  });
});

describe('view: the view made once for the count ahead and the output', () => {
  /** The session, counting the inputs asked of it. */
  async function counted(path: string): Promise<{ session: LoadedSession; asked: () => number }> {
    const loaded = await loadSession([path]);
    if (!loaded.ok) throw new Error(loaded.error.message);
    let asked = 0;
    const session = new Proxy(loaded.session, {
      get(target, key, receiver) {
        const value: unknown = Reflect.get(target, key, receiver);
        if (key !== 'callInput' || typeof value !== 'function') return value;
        return (call: number | null) => {
          asked++;
          return (value as LoadedSession['callInput']).call(target, call);
        };
      },
    });
    return { session, asked: () => asked };
  }

  it('given the prepared view of its call, the output asks for no input again and is the output made without it', async () => {
    for (const path of [DEMO, COMPACTED, CODEX_LOCAL]) {
      const { session, asked } = await counted(path);
      for (const at of [undefined, 1, session.calls.length]) {
        // Made without first: the session's calibration (every call's input) is fitted once, here.
        const expected = JSON.stringify(viewOutput(session, at));
        let before = asked();
        expect(JSON.stringify(viewOutput(session, at)), `${path} at ${at}`).toBe(expected);
        expect(asked() - before, `${path} at ${at}: inputs asked without`).toBeGreaterThan(0);
        const prepared = prepareView(session, at);
        expect(prepared, `${path} at ${at}`).toBeDefined();
        before = asked();
        expect(JSON.stringify(viewOutput(session, at, undefined, { prepared })), `${path} at ${at}`).toBe(expected);
        expect(asked() - before, `${path} at ${at}: inputs asked with the prepared view`).toBe(0);
      }
    }
  });

  it('a view prepared for another call is not used: the output is that of the call asked', async () => {
    const { session } = await counted(COMPACTED);
    const last = session.calls.length;
    expect(last).toBeGreaterThan(1);
    const printed = JSON.stringify(viewOutput(session, 1, undefined, { prepared: prepareView(session, last) }));
    expect(printed).toBe(JSON.stringify(viewOutput(session, 1)));
    expect(printed).not.toBe(JSON.stringify(viewOutput(session, last)));
    expect(prepareView(session, last + 1)).toBeUndefined();
  });
});
