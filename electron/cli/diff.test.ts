/**
 * The command line's `diff --from N --to M` (SPEC §16) around a Claude Code compaction, a real one
 * and a synthetic one. Expected values come from the files' raw records (the boundary's line, the
 * summary's text) and from `view --at` (which calls see the summary, what each was given), never
 * from the diff itself.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ViewEntry } from '../../shared/index';
import { givenBytes, viewEntries } from '../../shared/index';
import { loadSession } from '../loader/session';
import { diffSides } from '../tokens/diffTokens';
import { writeSynthetic } from '../loader/claudeCode/testing/build';
import { tempDir } from '../../tools/testing/files';
import { rawClaudeCodeCalls, rawClaudeCodeUsage } from '../loader/testing/rawCalls';
import { runCli } from './testing/runCli';

const ROOT = join(import.meta.dirname, '../..');
const REAL = join(ROOT, 'e2e/fixtures/real/claude-code/cc-2.0.76-compact-boundary.jsonl');

const tmp = tempDir('session-inspector-diff-');
afterAll(() => tmp.cleanup());

interface Hunk {
  lines: string[];
}
interface Changed {
  index: number;
  end: number;
  reduced: string[];
  restored: string[];
  bytes: { from: number | null; to: number | null };
  tokens_est: { from: number; to: number };
  text: { hunks: Hunk[] | null; note?: string };
}
interface Msg {
  index: number;
  role?: string;
  reductions: string[];
  tokens_est: number;
}
type Figure = { tokens: number; source: 'recorded' | 'estimated'; approximate?: true };
interface DiffTokens {
  from: Figure;
  to: Figure;
  added: Figure;
  dropped: Figure;
  reduced: { from: Figure; to: Figure };
  restored: { from: Figure; to: Figure };
}
type ViewMessage = ViewEntry & { tokens_est: number };
interface DiffOutput {
  from: number;
  to: number;
  calls: number;
  bytes: { from: number; to: number };
  tokens: DiffTokens;
  messages: { added: Msg[]; dropped: Msg[]; reduced: Changed[]; restored: Changed[] };
  reductions: { applied: { reduction_id: string }[]; undone: { reduction_id: string }[] };
  between: { change: string; reduction_id: string; line: number; call: number | null }[];
  compactions: { summary_id: string; ranges: [number, number][]; dropped: number; line: number; call: number | null; summary: string; summary_bytes: number }[];
}

async function diff(file: string, from: number, to: number): Promise<DiffOutput> {
  const r = await runCli(['diff', '--from', String(from), '--to', String(to), file]);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as DiffOutput;
}

async function viewAt(file: string, at: number): Promise<ViewMessage[]> {
  const r = await runCli(['view', '--at', String(at), file]);
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { messages: ViewMessage[] }).messages;
}

/** The context the raw records state for call N (the last line of its message.id's usage), or undefined. */
function rawContext(file: string, call: number): number | undefined {
  const line = rawClaudeCodeCalls(file)[call - 1]?.line;
  return line === undefined ? undefined : rawClaudeCodeUsage(file).get(line)?.context;
}

/** `view --at N`'s estimates of the messages whose index `pick` takes. */
const estimateOf = (entries: readonly ViewMessage[], pick: (index: number) => boolean): number => entries.filter((e) => pick(e.index)).reduce((n, e) => n + e.tokens_est, 0);

/** Each end's context: the raw records' where they state one (`recorded`), else the sum of view --at N's estimates. */
function expectContext(file: string, figure: Figure, call: number, given: readonly ViewMessage[]): void {
  const raw = rawContext(file, call);
  if (raw !== undefined) expect(figure).toEqual({ tokens: raw, source: 'recorded' });
  else expect(figure).toMatchObject({ tokens: estimateOf(given, () => true), source: 'estimated' });
}

/** From the raw records: the compact_boundary's line (1-based) and the text of its isCompactSummary record. */
function rawCompaction(file: string): { line: number; summary: string } {
  const records = readFileSync(file, 'utf8')
    .split('\n')
    .map((l, k) => ({ k, l }))
    .filter(({ l }) => l.trim().startsWith('{'))
    .map(({ k, l }) => {
      try {
        return { line: k + 1, r: JSON.parse(l) as { type?: string; subtype?: string; isCompactSummary?: boolean; message?: { content?: unknown } } };
      } catch {
        return undefined;
      }
    })
    .filter((x) => x !== undefined);
  const boundary = records.find((x) => x.r.type === 'system' && x.r.subtype === 'compact_boundary');
  const summary = records.find((x) => x.r.isCompactSummary === true);
  expect(boundary).toBeDefined();
  const content = summary?.r.message?.content;
  expect(typeof content).toBe('string');
  return { line: boundary!.line, summary: content as string };
}

/** The first call whose input opens with the summary (view --at), by asking each call in turn. */
async function firstCallWithSummary(file: string, summary: string): Promise<number> {
  const calls = (JSON.parse((await runCli(['view', file])).stdout) as { calls: number }).calls;
  for (let n = 1; n <= calls; n++) if ((await viewAt(file, n))[0]?.content === summary) return n;
  throw new Error('no call sees the summary');
}

const bytesOf = (entries: readonly ViewEntry[]): number => entries.reduce((sum, e) => sum + Buffer.byteLength(e.content, 'utf8'), 0);

async function expectCompactionDiff(file: string): Promise<void> {
  const raw = rawCompaction(file);
  const after = await firstCallWithSummary(file, raw.summary);
  expect(after).toBeGreaterThan(1);
  const before = await viewAt(file, after - 1);
  const given = await viewAt(file, after);
  // The summary's entry stands for the dropped range: the next entry starts where it ends (at the next call when it is the input's only entry).
  const rangeEnd = given[1]?.index ?? (await viewAt(file, after + 1))[1]?.index ?? Number.NaN;
  expect(rangeEnd).toBeGreaterThan(0);

  const d = await diff(file, after - 1, after);
  expect(d.compactions).toHaveLength(1);
  const c = d.compactions[0]!;
  expect(c.line).toBe(raw.line);
  expect(c.call).toBe(after);
  expect(c.summary).toBe(raw.summary);
  expect(c.summary_bytes).toBe(Buffer.byteLength(raw.summary, 'utf8'));
  expect(c.ranges).toEqual([[0, rangeEnd]]);
  expect(c.dropped).toBe(rangeEnd);
  expect(d.between).toContainEqual(expect.objectContaining({ change: 'applied', reduction_id: c.summary_id, line: raw.line, call: after }));
  // Every message call after-1 was given is reduced by the compaction: one run, its text the messages before, the summary after.
  expect(d.messages.reduced).toHaveLength(1);
  const run = d.messages.reduced[0]!;
  expect([run.index, run.end]).toEqual([0, before.length]);
  expect(run.reduced).toEqual([c.summary_id]);
  expect(run.restored).toEqual([]);
  expect(run.bytes).toEqual({ from: bytesOf(before), to: Buffer.byteLength(raw.summary, 'utf8') });
  // The texts share no stretch of over six lines here, so the hunks cover both whole: each side reads back from them.
  const side = (drop: string): string => run.text.hunks!.flatMap((h) => h.lines.filter((l) => !l.startsWith(drop)).map((l) => l.slice(1))).join('\n');
  expect(side('-')).toBe(raw.summary.replace(/\n$/, ''));
  expect(side('+')).toBe(before.map((e) => e.content).join('\n').replace(/\n$/, ''));
  // The messages past call after-1's input are added, under the compaction too when inside its range.
  const inputLength = given.length === 1 ? rangeEnd : given.at(-1)!.index + 1;
  expect(d.messages.added.map((m) => m.index)).toEqual(Array.from({ length: inputLength - before.length }, (_, k) => before.length + k));
  for (const m of d.messages.added) expect(m.reductions).toEqual(m.index < rangeEnd ? [c.summary_id] : []);
  expect(d.messages.dropped).toEqual([]);
  expect(d.bytes).toEqual({ from: bytesOf(before), to: bytesOf(given) });
  // Tokens each way: each call's recorded context from the raw records (else view's estimate); what
  // changed, from view --at N's per-message estimates at the end that holds it.
  expectContext(file, d.tokens.from, after - 1, before);
  expectContext(file, d.tokens.to, after, given);
  const added = new Set(d.messages.added.map((m) => m.index));
  expect(d.tokens.added).toMatchObject({ tokens: estimateOf(given, (i) => added.has(i)), source: 'estimated' });
  for (const m of d.messages.added) expect(m.tokens_est).toBe(estimateOf(given, (i) => i === m.index));
  expect(d.tokens.dropped).toMatchObject({ tokens: 0, source: 'estimated' });
  expect(d.tokens.reduced).toMatchObject({ from: { tokens: estimateOf(before, () => true), source: 'estimated' }, to: { tokens: estimateOf(given, (i) => i < before.length), source: 'estimated' } });
  expect(run.tokens_est).toEqual({ from: d.tokens.reduced.from.tokens, to: d.tokens.reduced.to.tokens });
  expect(d.tokens.reduced.from.tokens).toBeGreaterThan(0);
  expect(d.tokens.restored).toMatchObject({ from: { tokens: 0 }, to: { tokens: 0 } });

  // The other way round: the same compaction between them, what was reduced is restored, added is dropped.
  const back = await diff(file, after, after - 1);
  expect(back.compactions).toEqual(d.compactions);
  expect(back.messages.restored.map((r) => [r.index, r.end, r.restored])).toEqual(d.messages.reduced.map((r) => [r.index, r.end, r.reduced]));
  expect(back.messages.reduced).toEqual([]);
  expect(back.messages.dropped.map((m) => m.index)).toEqual(d.messages.added.map((m) => m.index));
  expect(back.bytes).toEqual({ from: d.bytes.to, to: d.bytes.from });
  const swap = (x: { from: Figure; to: Figure }) => ({ from: x.to, to: x.from });
  expect(back.tokens).toEqual({ from: d.tokens.to, to: d.tokens.from, added: d.tokens.dropped, dropped: d.tokens.added, reduced: swap(d.tokens.restored), restored: swap(d.tokens.reduced) });
}

describe('diff around a Claude Code compaction', () => {
  it('a real one (compact_boundary, isCompactSummary): the dropped range, the summary, the call that first saw it', async () => {
    await expectCompactionDiff(REAL);
  });

  it('a synthetic one: the same from the importer test builder', async () => {
    await expectCompactionDiff(writeSynthetic(tmp.dir));
  });

  it('diff of a call with itself is empty', async () => {
    const d = await diff(REAL, 4, 4);
    expect(d.messages).toEqual({ added: [], dropped: [], reduced: [], restored: [] });
    expect(d.between).toEqual([]);
    expect(d.compactions).toEqual([]);
    expect(d.bytes.from).toBe(d.bytes.to);
  });
});

describe('diff usage', () => {
  it.each([
    [['diff', REAL], /--from N and --to M/],
    [['diff', '--from', '1', REAL], /--from N and --to M/],
    [['diff', '--from', '0', '--to', '2', REAL], /--from must be a model call number/],
    [['diff', '--from', '1', '--to', 'x', REAL], /--to must be a model call number/],
    [['diff', '--from', '1', '--to', '999', REAL], /call 999 is out of range: the session's model calls are 1 to \d+/],
  ])('%j is a usage error', async (argv, message) => {
    const r = await runCli(argv);
    expect(r.code).toBe(2);
    const { error } = JSON.parse(r.stdout) as { error: { code: string; message: string } };
    expect(error.code).toBe('usage');
    expect(error.message).toMatch(message);
  });

  it('--help lists diff', async () => {
    const r = await runCli(['diff', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('diff --from N --to M FILE...');
  });
});

describe('diff: each end projected once for its bytes and its entries', () => {
  const FILES = [
    REAL,
    join(ROOT, 'e2e/fixtures/real/claude-code/cc-2.1.14-two-compactions.jsonl'),
    join(ROOT, 'e2e/fixtures/real/codex/rollout-0.139-review-cut-output-ENTIRE.jsonl'),
    join(ROOT, 'samples/demo.sidecar.jsonl'),
  ];

  it('the bytes of each end are givenBytes of its input, and its entries are viewEntries of it', async () => {
    for (const path of FILES) {
      const loaded = await loadSession([path]);
      if (!loaded.ok) throw new Error(loaded.error.message);
      const { session } = loaded;
      const n = session.calls.length;
      expect(n, path).toBeGreaterThan(1);
      for (const [from, to] of [[1, n], [Math.ceil(n / 2), n], [1, null]] as const) {
        const sides = diffSides(session, from, to, true);
        // Without bytes asked, the same entries and no bytes counted (the worker's diff has the context map's).
        const plain = diffSides(session, from, to);
        expect(plain?.from.bytes).toBeUndefined();
        expect(JSON.stringify(plain?.to.entries)).toBe(JSON.stringify(sides?.to.entries));
        if (!sides) throw new Error(`${path}: no sides of ${from} and ${to}`);
        for (const [side, call] of [[sides.from, from], [sides.to, to]] as const) {
          const input = session.callInput(call);
          if (!input) throw new Error(`${path}: no input of ${call}`);
          expect(side.bytes, `${path} call ${call}`).toBe(givenBytes(input));
          expect(side.bytes, `${path} call ${call}`).toBeGreaterThan(0);
          expect(JSON.stringify(side.entries)).toBe(JSON.stringify(viewEntries(input)));
        }
      }
      expect(diffSides(session, 1, n + 1)).toBeUndefined();
      session.close();
    }
  });
});
