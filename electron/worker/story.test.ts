/**
 * The session's story between model calls: the worker's callDiff, sessionEvents and abandoned, over the committed samples.
 * Every expected value is read from the sample's own records, never written down.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ParsedParams, ResultOf } from '../../shared/index';
import type { ChatMessage } from '../../shared/index';
import { ABANDONED_TEXT_MAX_BYTES, MAX_DIFF_ENTRIES, MAX_EVENTS_PER_REQUEST, methods, utf8Decode, utf8Encode } from '../../shared/index';
import { assistant, makeReduction, tool, user } from '../../shared/testing/builders';
import { makeHeader, messageRecord, reductionRecord, tempDir, writeSidecar } from '../../tools/testing/files';
import type { LooseRecord } from '../../shared/testing/looseRecords';
import { looseRecords } from '../../shared/testing/looseRecords';
import { runCli } from '../cli/testing/runCli';
import { rawClaudeCodeCalls, rawClaudeCodeUsage } from '../loader/testing/rawCalls';
import { SessionService } from './service';
import { openedServices } from './testing/services';

const SAMPLES = join(import.meta.dirname, '../../samples');
const DEMO = join(SAMPLES, 'demo.sidecar.jsonl');
const SESSION = join(SAMPLES, 'session.sidecar.jsonl');

type Rec = LooseRecord;
/** The sample's records with their 1-based lines. */
function records(path: string): { line: number; rec: Rec }[] {
  return looseRecords(readFileSync(path, 'utf8'));
}

const opened = openedServices();

function ask<M extends 'callDiff' | 'sessionEvents' | 'abandoned' | 'calls'>(s: SessionService, method: M, raw: unknown): ResultOf<M> {
  const reply = s.handle(method, methods[method].params.parse(raw) as ParsedParams<M>);
  if (!reply.ok) throw new Error(`${method}: ${reply.error.code}: ${reply.error.message}`);
  return reply.value;
}

describe('callDiff (worker)', () => {
  it('§9 demo: from call 2 to the latest view, r1 left the context hiding ptr.bytes − kept_bytes', async () => {
    const s = await opened(DEMO);
    const r1 = records(DEMO).find((x) => x.rec.t === 'reduction' && x.rec.r?.id === 'r1')?.rec.r;
    if (!r1) throw new Error('the demo has no r1');
    const diff = ask(s, 'callDiff', { from: 2, to: null });
    expect(diff.reduced.map((r) => r.reduction_id)).toEqual(['r1']);
    expect(diff.reduced[0]?.hidden_bytes).toBe(r1.ptr.bytes - (r1.kept_bytes ?? 0));
    expect(diff.totals.reduced).toEqual({ count: 1, bytes: r1.ptr.bytes - (r1.kept_bytes ?? 0) });
    expect(diff.restored).toEqual([]);
  });

  it('§9 demo: the reduced message with its line diff — the kept prefix stays, the rest gives way to the stub — and r1 logged between', async () => {
    const s = await opened(DEMO);
    const lines = records(DEMO);
    const r1 = lines.find((x) => x.rec.t === 'reduction' && x.rec.r?.id === 'r1');
    if (!r1?.rec.r) throw new Error('the demo has no r1');
    const message = lines.find((x) => x.rec.t === 'message' && x.rec.i === r1.rec.r?.ptr.index)?.rec.msg as ChatMessage | undefined;
    if (!message) throw new Error('the demo has no message r1 reduces');
    const diff = ask(s, 'callDiff', { from: 2, to: null });
    expect(diff.changed_count).toBe(1);
    const run = diff.changed[0]!;
    expect([run.index, run.end, run.reduced, run.restored]).toEqual([r1.rec.r.ptr.index, r1.rec.r.ptr.index + 1, ['r1'], []]);
    expect(run.bytes.from).toBe(utf8Encode(message.content).length);
    const kept = utf8Decode(utf8Encode(message.content).subarray(0, r1.rec.r.kept_bytes));
    const removed = run.text.hunks!.flatMap((h) => h.lines.filter((l) => l.startsWith('-')).map((l) => l.slice(1)));
    const added = run.text.hunks!.flatMap((h) => h.lines.filter((l) => l.startsWith('+')).map((l) => l.slice(1)));
    // The stub follows the kept prefix on its last line.
    expect(added.join('\n')).toContain((r1.rec.r as { stub?: string }).stub);
    expect(message.content.split('\n').filter((l) => !kept.includes(l))).toEqual(removed.filter((l) => !kept.includes(l)));
    expect(diff.between).toEqual([expect.objectContaining({ change: 'applied', reduction_id: 'r1', line: r1.line, call: null })]);
    expect(diff.between_count).toBe(1);
    expect(diff.bytes.from).toBeGreaterThan(0);
  });

  it('the context map marks each compaction of a real Claude Code file at the call that first saw it (one per compact_boundary record)', async () => {
    const file = join(import.meta.dirname, '../../e2e/fixtures/real/claude-code/cc-2.1.14-two-compactions.jsonl');
    const boundaries = readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .filter((l) => {
        const r = JSON.parse(l) as { type?: string; subtype?: string };
        return r.type === 'system' && r.subtype === 'compact_boundary';
      }).length;
    const s = await opened(file);
    const marks = ask(s, 'calls', {}).compactions ?? [];
    expect(marks).toHaveLength(boundaries);
    for (const call of marks) {
      const diff = ask(s, 'callDiff', { from: call - 1, to: call });
      expect(diff.compactions.map((c) => c.call)).toEqual([call]);
      // The call before saw none of it.
      expect(ask(s, 'callDiff', { from: call - 2, to: call - 1 }).compactions).toEqual([]);
    }
  });

  it('calls 3 and 40 of a long real Claude Code session: tokens each way, the same as `diff --from 3 --to 40` prints', async () => {
    const file = join(import.meta.dirname, '../../e2e/fixtures/real/claude-code/cc-2.1.14-two-compactions.jsonl');
    const s = await opened(file);
    const diff = ask(s, 'callDiff', { from: 3, to: 40 });
    const cli = await runCli(['diff', '--from', '3', '--to', '40', file]);
    expect(cli.code, cli.stderr).toBe(0);
    const printed = JSON.parse(cli.stdout) as { tokens: unknown; messages: { added: { tokens_est: number }[]; reduced: { index: number; tokens_est: unknown }[] } };
    expect(diff.tokens).toEqual(printed.tokens);
    // Both calls record their context: the raw records' figures (the last line of each call's message.id).
    const usage = rawClaudeCodeUsage(file);
    const context = (call: number) => usage.get(rawClaudeCodeCalls(file)[call - 1]?.line ?? 0)?.context;
    expect(context(3)).toBeGreaterThan(0);
    expect(diff.tokens?.from).toEqual({ tokens: context(3), source: 'recorded' });
    expect(diff.tokens?.to).toEqual({ tokens: context(40), source: 'recorded' });
    expect(diff.tokens_est?.added).toEqual(printed.messages.added.map((m) => m.tokens_est).slice(0, MAX_DIFF_ENTRIES));
    expect(diff.tokens?.added.tokens).toBeGreaterThan(0);
  });

  it("from a real Claude Code session's last call to the latest view: the view's context is the call's recorded one and the estimated change, not an estimate of the messages alone", async () => {
    const file = join(import.meta.dirname, '../../e2e/fixtures/real/claude-code/cc-2.1.14-two-compactions.jsonl');
    const s = await opened(file);
    const last = ask(s, 'callDiff', { from: null, to: null }).calls;
    const diff = ask(s, 'callDiff', { from: last, to: null });
    const recorded = rawClaudeCodeUsage(file).get(rawClaudeCodeCalls(file)[last - 1]?.line ?? 0)?.context;
    expect(recorded).toBeGreaterThan(0);
    expect(diff.tokens?.from).toEqual({ tokens: recorded, source: 'recorded' });
    // Each changed run's own figures and the added and dropped totals make the change.
    expect(diff.changed_count).toBe(diff.changed.length);
    const runs = (diff.tokens_est?.changed ?? []).reduce((n, c) => n + c.to - c.from, 0);
    const change = (diff.tokens?.added.tokens ?? 0) - (diff.tokens?.dropped.tokens ?? 0) + runs;
    expect(diff.tokens?.to).toMatchObject({ tokens: (recorded ?? 0) + change, source: 'estimated', from_recorded: { call: last, tokens: recorded } });
    // The messages alone estimate far less: the agent's system prompt and tool schemas are sent, not written in the file.
    const alone = ask(s, 'callDiff', { from: null, to: null }).tokens?.to.tokens ?? 0;
    expect(alone).toBeLessThan((recorded ?? 0) * 0.8);
  });

  it('caps each list at `limit` and still counts and sums all of it', async () => {
    const s = await opened(SESSION);
    const whole = ask(s, 'callDiff', { from: 1, to: null });
    const cut = ask(s, 'callDiff', { from: 1, to: null, limit: 2 });
    expect(whole.added.length).toBeGreaterThan(2);
    expect(cut.added).toEqual(whole.added.slice(0, 2));
    expect(cut.totals).toEqual(whole.totals);
    expect(whole.totals.added.count).toBe(whole.added.length);
    expect(whole.totals.added.bytes).toBe(whole.added.reduce((n, m) => n + (m.bytes ?? 0), 0));
  });

  it('answers invalid_request naming the calls there are for a call that is none', async () => {
    const s = await opened(DEMO);
    const calls = ask(s, 'callDiff', { from: null, to: null }).calls;
    const reply = s.handle('callDiff', { from: calls + 1, to: null });
    expect(reply.ok).toBe(false);
    if (!reply.ok) {
      expect(reply.error.code).toBe('invalid_request');
      expect(reply.error.message).toContain(`calls 1 to ${calls}`);
    }
  });
});

describe('replies stay bounded over a session of many reductions', () => {
  const tmp = tempDir('session-inspector-story-');
  afterAll(() => tmp.cleanup());
  /** An assistant call, then `n` tool outputs each elided by its own reduction, each minted at its own view length. */
  function manyReductions(n: number): string {
    const view: ChatMessage[] = [user('go'), assistant('', 'c0')];
    for (let k = 0; k < n; k++) view.push(tool(`output ${k}`, 'c0'));
    const log = view.slice(2).map((_, k) => makeReduction(view, { id: `r${k}`, kind: 'tool_output_elided', index: k + 2 }, { minted_at: k + 3 }));
    return writeSidecar(tmp.path(`many-${n}.sidecar.jsonl`), [makeHeader(), ...view.map((m, i) => messageRecord(i, m)), ...log.map(reductionRecord)]);
  }

  it('a diff past MAX_DIFF_ENTRIES reductions lists that many and counts and sums them all', async () => {
    const n = MAX_DIFF_ENTRIES + 200;
    const s = await opened(manyReductions(n));
    const diff = ask(s, 'callDiff', { from: 1, to: null });
    expect(diff.reduced).toHaveLength(MAX_DIFF_ENTRIES);
    expect(diff.totals.reduced.count).toBe(n);
    expect(diff.added).toHaveLength(MAX_DIFF_ENTRIES);
    // Call 1 was given message 0 alone: the call's own message and the n outputs came after.
    expect(diff.totals.added.count).toBe(n + 1);
    // Every hidden output is `output k`: the total is their bytes, the listed ones included.
    let bytes = 0;
    for (let k = 0; k < n; k++) bytes += `output ${k}`.length;
    expect(diff.totals.reduced.bytes).toBe(bytes);
  });

  it('events past MAX_EVENTS_PER_REQUEST in one range are cut there and counted', async () => {
    const n = MAX_EVENTS_PER_REQUEST + 50;
    const s = await opened(manyReductions(n));
    const whole = ask(s, 'sessionEvents', { start: 0, end: n + 10 });
    expect(whole.events).toHaveLength(MAX_EVENTS_PER_REQUEST);
    expect(whole.total).toBe(n);
    // The rest is reached by asking from where the list stopped.
    const next = ask(s, 'sessionEvents', { start: (whole.events.at(-1)?.index ?? 0) + 1, end: n + 10 });
    expect(next.events).toHaveLength(n - MAX_EVENTS_PER_REQUEST);
  });
});

describe('sessionEvents (worker)', () => {
  it('places the sample session’s model switch and rewind where their records put them', async () => {
    const s = await opened(SESSION);
    const recs = records(SESSION);
    const { events, total } = ask(s, 'sessionEvents', { start: 0, end: 1_000_000 });
    expect(total).toBe(events.length);

    const switchRec = recs.find((x) => x.rec.t === 'model_change');
    const change = events.find((e) => e.kind === 'model_change');
    expect(change).toMatchObject({ index: switchRec?.rec.at, line: switchRec?.line, from: switchRec?.rec.from, to: switchRec?.rec.to });
    if (change?.kind !== 'model_change') throw new Error('no model switch');
    // The replay strips as many messages as the record says, each before the switch.
    expect(change.stripped_count).toBe(switchRec?.rec.reasoning_artifacts_filtered);
    for (const i of change.stripped) expect(i).toBeLessThan(change.index);

    const rewindAt = recs.findIndex((x) => x.rec.t === 'rewind');
    const rewindRec = recs[rewindAt];
    const before = recs.slice(0, rewindAt).filter((x) => x.rec.t === 'message');
    const viewLength = Math.max(...before.map((x) => x.rec.i ?? 0)) + 1;
    const rewind = events.find((e) => e.kind === 'rewind');
    expect(rewind).toMatchObject({ index: rewindRec?.rec.to, line: rewindRec?.line, abandoned: viewLength - Number(rewindRec?.rec.to) });

    // Every live reduction is in exactly one `minted` event, at its minted_at.
    const minted = events.filter((e) => e.kind === 'minted');
    const logReply = s.handle('log', {});
    if (!logReply.ok) throw new Error(logReply.error.message);
    expect(minted.reduce((n, e) => n + e.count, 0)).toBe(logReply.value.entries.length);
    for (const { reduction } of logReply.value.entries) {
      expect(minted.find((e) => e.reductions.some((r) => r.id === reduction.id))?.index).toBe(reduction.minted_at);
    }
    // By position, then line.
    const keys = events.map((e) => [e.index, e.line ?? Infinity] as const);
    expect(keys).toEqual([...keys].sort((a, b) => a[0] - b[0] || a[1] - b[1]));
  });

  it('answers a range of positions with exactly the events inside it', async () => {
    const s = await opened(SESSION);
    const all = ask(s, 'sessionEvents', { start: 0, end: 1_000_000 }).events;
    const start = 30;
    const end = 64;
    const some = ask(s, 'sessionEvents', { start, end });
    expect(some.events).toEqual(all.filter((e) => e.index >= start && e.index < end));
    expect(some.total).toBe(some.events.length);
  });
});

describe('abandoned (worker)', () => {
  it('reads back the messages a rewind dropped, as the records before the rewind held them', async () => {
    const s = await opened(SESSION);
    const recs = records(SESSION);
    const rewindAt = recs.findIndex((x) => x.rec.t === 'rewind');
    const to = Number(recs[rewindAt]?.rec.to);
    // The last record per index before the rewind: what the abandoned branch showed.
    const last = new Map<number, Rec>();
    for (const x of recs.slice(0, rewindAt)) if (x.rec.t === 'message' && x.rec.i !== undefined) last.set(x.rec.i, x.rec);
    const got = ask(s, 'abandoned', { rewind: 0, start: 0, end: 100 });
    expect(got.to).toBe(to);
    expect(got.total).toBe(last.size - to);
    expect(got.messages).toHaveLength(got.total);
    for (const m of got.messages) {
      const rec = last.get(m.index)?.msg;
      const bytes = utf8Encode(rec?.content ?? '');
      expect(m.role).toBe(rec?.role);
      expect(m.text_bytes).toBe(bytes.length);
      // Cut to ABANDONED_TEXT_MAX_BYTES at a character boundary: a prefix of the content, whole when short.
      expect(utf8Decode(bytes).startsWith(m.text)).toBe(true);
      expect(m.text === rec?.content).toBe(bytes.length <= ABANDONED_TEXT_MAX_BYTES);
    }
  });

  it('answers invalid_request for a rewind the session does not have', async () => {
    const s = await opened(DEMO);
    const reply = s.handle('abandoned', { rewind: 0, start: 0, end: 1 });
    expect(reply.ok ? 'ok' : reply.error.code).toBe('invalid_request');
  });
});
