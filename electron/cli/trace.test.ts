/**
 * The command line's `trace` (SPEC §16) and `check --must-see` (SPEC §15 gates) on real files: a
 * native sample, a Claude Code compaction and a SWE-agent elision. Every expected call number and
 * reduction is computed here from the raw records of the file, not from the importers.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { GateFinding, MustSeeSummary } from '../../shared/calls/mustSee';
import type { TraceResult } from '../../shared/calls/trace';
import { trace } from '../../shared/calls/trace';
import type { Sha256 } from '../../shared/format/types';
import { resolveOriginal } from '../../shared/resolver/original';
import { loadSession, nodeSha256 } from '../loader/session';
import { runCli } from './testing/runCli';

const ROOT = join(import.meta.dirname, '../..');
const NATIVE = join(ROOT, 'samples/session.sidecar.jsonl');
const CLAUDE = join(ROOT, 'e2e/fixtures/real/claude-code/cc-2.0.76-compact-boundary.jsonl');
const SWE = join(ROOT, 'e2e/fixtures/real/swe-agent/marshmallow-1867-function-calling-replace-from-source.traj');

async function traceOf(file: string, query: string, extra: string[] = []): Promise<TraceResult> {
  const r = await runCli(['trace', '--query', query, ...extra, file]);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as TraceResult;
}

/** The inclusive ranges of the numbers in `calls` (sorted). */
function rangesOf(calls: number[]): [number, number][] {
  const out: [number, number][] = [];
  for (const c of calls) {
    const last = out[out.length - 1];
    if (last && last[1] === c - 1) last[1] = c;
    else out.push([c, c]);
  }
  return out;
}

/** A substring of `text` at least `from` UTF-16 units in, that occurs in `corpus` exactly once. */
function uniqueSubstring(text: string, from: number, corpus: string): string {
  for (let at = from; at + 24 <= text.length; at += 7) {
    const s = text.slice(at, at + 24);
    if (/[\n"\\]/.test(s)) continue;
    const first = corpus.indexOf(s);
    if (first !== -1 && corpus.indexOf(s, first + 1) === -1) return s;
  }
  throw new Error('no unique substring');
}

// ---------------------------------------------------------------------------------------------
// The native sample, replayed here from its raw records (SPEC §3.1): the view by index (a rewind
// cuts it), the line of each message record, and each reduction record's line.

interface NativeRecord {
  t: string;
  i?: number;
  to?: number;
  msg?: { role: string; content: string };
  r?: { id: string; kind: string; ptr: { index: number }; end?: number; kept_bytes?: number };
}

const nativeLines = readFileSync(NATIVE, 'utf8').split('\n').filter((l) => l !== '');
const nativeRecords = nativeLines.map((l) => JSON.parse(l) as NativeRecord);
const view: { role: string; content: string; line: number }[] = [];
for (const [k, rec] of nativeRecords.entries()) {
  if (rec.t === 'message' && rec.msg && rec.i !== undefined) view[rec.i] = { ...rec.msg, line: k + 1 };
  if (rec.t === 'rewind' && rec.to !== undefined) view.length = rec.to;
}
/** Call N: the N-th assistant message of the final view, with the line of its record. */
const nativeCalls = view.flatMap((m, index) => (m.role === 'assistant' ? [{ index, line: m.line }] : []));
const reductionLine = (id: string): { line: number; r: NonNullable<NativeRecord['r']> } => {
  const k = nativeRecords.findIndex((rec) => rec.t === 'reduction' && rec.r?.id === id);
  return { line: k + 1, r: nativeRecords[k]?.r as NonNullable<NativeRecord['r']> };
};
/** The 1-based calls whose input holds message `index` and whose record comes before/after `line`. */
const callsHolding = (index: number, keep: (line: number) => boolean): number[] => nativeCalls.flatMap((c, k) => (c.index > index && keep(c.line) ? [k + 1] : []));
const allContents = view.map((m) => m.content).join('\u0000');

describe('trace on a native sample', () => {
  /** Message `index`'s content from byte `from` (a character boundary here) to `to`. */
  const bytesOf = (index: number, from: number, to?: number): string => Buffer.from(view[index]?.content ?? '').subarray(from, to).toString('utf8');
  /** The byte offset of `query` in message `index`. */
  const offsetIn = (index: number, query: string): number => Buffer.from(view[index]?.content ?? '').indexOf(query);

  it('a match past a truncation’s kept prefix: visible until the truncation, hidden by it from the next call on', async () => {
    const { line, r } = reductionLine('r2');
    expect(r.kind).toBe('tool_output_truncated');
    const index = r.ptr.index;
    const query = uniqueSubstring(bytesOf(index, r.kept_bytes ?? 0), 8, view[index]?.content ?? '');
    const out = await traceOf(NATIVE, query);
    const o = out.occurrences.find((x) => x.message_index === index);
    const before = callsHolding(index, (l) => l < line);
    const after = callsHolding(index, (l) => l > line);
    expect(o?.first_call).toBe(before[0]);
    expect(o?.visible_calls).toEqual(rangesOf(before));
    expect(o?.hidden_by).toEqual({ reduction: 'r2', kind: 'tool_output_truncated', call: after[0] });
    expect(out.calls).toBe(nativeCalls.length);
    // Its bytes: r2's original at the match's own offset, verified.
    const offset = offsetIn(index, query);
    expect(o?.bytes_at).toEqual({ reduction: 'r2', kind: 'tool_output_truncated', range: [offset, offset + Buffer.byteLength(query)], original: { verified: true, source: 'minted' } });
  });

  it('a match inside the kept prefix: visible past the truncation, hidden when a later turns_cleared range encloses the message', async () => {
    const { r } = reductionLine('r2');
    const index = r.ptr.index;
    const cleared = nativeRecords.map((rec, k) => ({ rec, line: k + 1 })).find(({ rec }) => rec.t === 'reduction' && rec.r?.kind === 'turns_cleared' && rec.r.ptr.index <= index && index < (rec.r.end ?? 0));
    expect(cleared).toBeDefined();
    const query = uniqueSubstring(bytesOf(index, 0, (r.kept_bytes ?? 0) - 30), 40, view[index]?.content ?? '');
    const o = (await traceOf(NATIVE, query)).occurrences.find((x) => x.message_index === index);
    const line = cleared?.line ?? 0;
    expect(o?.visible_calls).toEqual(rangesOf(callsHolding(index, (l) => l < line)));
    expect(o?.hidden_by).toEqual({ reduction: cleared?.rec.r?.id, kind: 'turns_cleared', call: callsHolding(index, (l) => l > line)[0] });
  });

  it('a text no reduction ever addresses is visible from its first call to the last: hidden_by null', async () => {
    const addressed = (index: number) =>
      nativeRecords.some((rec) => rec.t === 'reduction' && rec.r && (rec.r.end !== undefined ? rec.r.ptr.index <= index && index < rec.r.end : rec.r.ptr.index === index));
    const index = view.findIndex((m, i) => m.role === 'user' && i > 20 && !addressed(i) && i < (nativeCalls[nativeCalls.length - 1]?.index ?? 0));
    expect(index).toBeGreaterThan(0);
    const content = view[index]?.content ?? '';
    const query = uniqueSubstring(content, 0, allContents);
    const [o] = (await traceOf(NATIVE, query)).occurrences;
    const holding = callsHolding(index, () => true);
    expect(o?.message_index).toBe(index);
    expect(o?.hidden_by).toBeNull();
    expect(o?.hidings).toEqual([]);
    expect(o?.visible_calls).toEqual([[holding[0], nativeCalls.length]]);
    expect(o?.bytes_at).toBeNull();
  });
});

// ---------------------------------------------------------------------------------------------
// Claude Code: calls are the assistant records with a model other than `<synthetic>`, one per
// `message.id`; a `compact_boundary` record ends the model's sight of everything before it.

interface ClaudeRecord {
  type: string;
  subtype?: string;
  message?: { id?: string; model?: string; content?: unknown };
}

const claudeRecords = readFileSync(CLAUDE, 'utf8')
  .split('\n')
  .filter((l) => l !== '')
  .map((l) => JSON.parse(l) as ClaudeRecord);
/** 1-based line of each call's first record. */
const claudeCallLines: number[] = [];
{
  const seen = new Set<string>();
  for (const [k, rec] of claudeRecords.entries()) {
    const id = rec.message?.id;
    if (rec.type !== 'assistant' || id === undefined || rec.message?.model === '<synthetic>' || seen.has(id)) continue;
    seen.add(id);
    claudeCallLines.push(k + 1);
  }
}
const boundaryLine = claudeRecords.findIndex((rec) => rec.type === 'system' && rec.subtype === 'compact_boundary') + 1;
const lineOfText = (text: string): number => claudeRecords.findIndex((rec) => JSON.stringify(rec.message?.content ?? '').includes(text)) + 1;

describe('trace on a Claude Code compaction', () => {
  it('a prompt before the boundary: seen by every call up to the compaction, hidden by it from the first call after', async () => {
    const text = 'Goodbye!';
    const line = lineOfText(text);
    expect(line).toBeGreaterThan(0);
    expect(line).toBeLessThan(boundaryLine);
    const out = await traceOf(CLAUDE, text);
    expect(out.occurrences).toHaveLength(1);
    const [o] = out.occurrences;
    const seenBy = claudeCallLines.flatMap((l, k) => (l > line && l < boundaryLine ? [k + 1] : []));
    const firstAfter = claudeCallLines.findIndex((l) => l > boundaryLine) + 1;
    expect(o?.visible_calls).toEqual(rangesOf(seenBy));
    expect(o?.hidden_by).toEqual({ reduction: `cc-compact-L${boundaryLine}`, kind: 'summarized', call: firstAfter });
    expect(o?.bytes_at?.original).toEqual({ verified: true, source: 'minted' });
    expect(out.calls).toBe(claudeCallLines.length);
  });

  it('a word the compaction hides many times: its original read and verified once, and each range holds the word', async () => {
    const loaded = await loadSession([CLAUDE]);
    if (!loaded.ok) throw new Error(loaded.error.message);
    const { session } = loaded;
    try {
      let hashed = 0;
      const sha256: Sha256 = (chunks) => {
        hashed++;
        return nodeSha256(chunks);
      };
      const traced = trace({ timeline: session.callTimeline, minted: session.minted, ...(session.recorded ? { recorded: session.recorded } : {}), log: session.log }, 'the', { sha256 });
      if (!traced.ok) throw new Error(traced.error.message);
      const hidden = traced.value.occurrences.flatMap((o) => (o.bytes_at?.original.verified === true && o.bytes_at.range ? [o.bytes_at] : []));
      expect(hidden.length).toBeGreaterThan(20);
      const reductions = new Set(hidden.map((b) => b.reduction));
      expect(hashed).toBeLessThanOrEqual(reductions.size);
      for (const at of hidden) {
        const r = session.log.find((x) => x.id === at.reduction)!;
        const original = resolveOriginal(r, session.minted, session.recorded, { sha256: nodeSha256 });
        if (!original.ok) throw new Error(original.error.message);
        const [start, end] = at.range!;
        expect(Buffer.from(original.value.bytes.read(start, end)).toString('utf8')).toBe('the');
      }
    } finally {
      session.close();
    }
  });

  it('a text after the boundary stays visible to the last call: hidden_by null', async () => {
    const text = 'Now the errors will be';
    const line = lineOfText(text);
    expect(line).toBeGreaterThan(boundaryLine);
    const [o] = (await traceOf(CLAUDE, text)).occurrences;
    const first = claudeCallLines.findIndex((l) => l > line) + 1;
    expect(o?.visible_calls).toEqual([[first, claudeCallLines.length]]);
    expect(o?.hidden_by).toBeNull();
  });
});

// ---------------------------------------------------------------------------------------------
// SWE-agent: step k is call k+1; its input is step k−1's `messages` (the first call's, `history`
// up to its first assistant message). An elided observation reads `Old environment output: (…)`.

interface SweTraj {
  history: { role: string; content: unknown }[];
  trajectory: { messages: { role: string; content: unknown }[] }[];
}

describe('trace on a SWE-agent elision', () => {
  it('an observation: visible while the inputs hold it whole, hidden by the elision that first replaced it', async () => {
    const traj = JSON.parse(readFileSync(SWE, 'utf8')) as SweTraj;
    const index = 3;
    const original = String(traj.history[index]?.content);
    const firstAssistant = traj.history.findIndex((m) => m.role === 'assistant');
    const inputs = traj.trajectory.map((_step, k) => (k === 0 ? traj.history.slice(0, firstAssistant) : (traj.trajectory[k - 1]?.messages ?? [])));
    const historyText = traj.history.map((m) => String(m.content)).join('\u0000');
    const query = uniqueSubstring(original, 0, historyText);
    const visible = inputs.flatMap((input, k) => (input.length > index && String(input[index]?.content).includes(query) ? [k + 1] : []));
    const elidedAt = inputs.findIndex((input) => input.length > index && String(input[index]?.content).startsWith('Old environment output'));
    expect(elidedAt).toBeGreaterThan(0);
    const out = await traceOf(SWE, query);
    const o = out.occurrences.find((x) => x.message_index === index);
    expect(o?.visible_calls).toEqual(rangesOf(visible));
    // The step whose own messages first hold the elision is the one before the call it hides from.
    expect(o?.hidden_by).toEqual({ reduction: `swe-step${elidedAt - 1}-m${index}`, kind: 'tool_output_elided', call: elidedAt + 1 });
    expect(out.calls).toBe(traj.trajectory.length);
  });
});

// ---------------------------------------------------------------------------------------------

interface CheckOutput {
  findings: (GateFinding | { code: string; severity: string })[];
  summary: { must_see?: MustSeeSummary[] };
}

async function mustSee(args: string[]): Promise<{ code: number; out: CheckOutput }> {
  const r = await runCli(['check', ...args, CLAUDE]);
  return { code: r.code, out: JSON.parse(r.stdout) as CheckOutput };
}

describe('check --must-see', () => {
  const firstAfter = claudeCallLines.findIndex((l) => l > boundaryLine) + 1;

  it('the file passes check alone (the gate is what fails it below)', async () => {
    expect((await runCli(['check', CLAUDE])).code).toBe(0);
  });

  it('exits 1 with required_hidden naming the reduction, the call that hid it and a link, when a match is hidden at the latest view', async () => {
    const { code, out } = await mustSee(['--must-see', 'Goodbye!']);
    expect(code).toBe(1);
    const gate = out.findings.filter((f) => f.code === 'required_hidden') as GateFinding[];
    expect(gate).toHaveLength(1);
    expect(gate[0]).toMatchObject({ severity: 'error', reduction_id: `cc-compact-L${boundaryLine}`, kind: 'summarized', hidden_at_call: firstAfter, matches: 1 });
    expect(gate[0]?.link).toMatch(new RegExp(`^#reduction=cc-compact-L${boundaryLine}&range=\\d+:\\d+&q=Goodbye!$`));
    expect(out.summary.must_see).toEqual([{ query: 'Goodbye!', matches: 1, hidden: 1, truncated: false }]);
  });

  it('exits 0 when every match is visible, and at a call before the compaction (--at)', async () => {
    expect((await mustSee(['--must-see', 'Now the errors will be'])).code).toBe(0);
    expect((await mustSee(['--must-see', 'Goodbye!', '--at', String(firstAfter - 1)])).code).toBe(0);
    const at = await mustSee(['--must-see', 'Goodbye!', '--at', String(firstAfter)]);
    expect(at.code).toBe(1);
    expect((at.out.findings.find((f) => f.code === 'required_hidden') as GateFinding).link).toMatch(new RegExp(`^#call=${firstAfter}&reduction=`));
  });

  it('--ignore-case and --regex apply; each --must-see is its own gate; a query that matches nothing is a warning', async () => {
    expect((await mustSee(['--must-see', 'GOODBYE!'])).code).toBe(0);
    expect((await mustSee(['--must-see', 'GOODBYE!', '--ignore-case'])).code).toBe(1);
    expect((await mustSee(['--must-see', 'Good(bye|night)!', '--regex'])).code).toBe(1);
    const both = await mustSee(['--must-see', 'Now the errors will be', '--must-see', 'no such text anywhere 7f3a']);
    expect(both.code).toBe(0);
    expect(both.out.findings.filter((f) => f.code === 'required_not_found')).toHaveLength(1);
  });

  it('usage errors: --at out of range, --at without --must-see, a bad pattern', async () => {
    expect((await runCli(['check', '--must-see', 'x', '--at', '999', CLAUDE])).code).toBe(2);
    expect((await runCli(['check', '--at', '2', CLAUDE])).code).toBe(2);
    const bad = await runCli(['check', '--must-see', '(', '--regex', CLAUDE]);
    expect(bad.code).toBe(2);
    expect(JSON.parse(bad.stdout)).toMatchObject({ error: { code: 'invalid_query' } });
  });
});

describe('trace on the command line', () => {
  it('is listed in --help; needs --query; refuses a bad pattern', async () => {
    expect((await runCli(['--help'])).stdout).toContain('trace --query Q [--regex] [--ignore-case] FILE...');
    expect((await runCli(['trace', CLAUDE])).code).toBe(2);
    expect(JSON.parse((await runCli(['trace', '--query', '(', '--regex', CLAUDE])).stdout)).toMatchObject({ error: { code: 'invalid_query' } });
  });
});
