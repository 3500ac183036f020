/**
 * Every compaction and microcompaction of a long Claude Code session applies to the calls after it
 * (docs/formats/claude-code.md, "Compactions"), on real transcripts. Where each boundary is, what it
 * cleared and what its summary says are read off the raw lines in the test.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { LoadedSession } from '../../../shared/index';
import { projectView } from '../../../shared/resolver/project';
import { runCli } from '../../cli/testing/runCli';
import { sessionLoader } from '../testing/importers';
import { indexFile } from '../../library/index';
import { oneLine } from '../../library/head';
import { COMPACT_SUMMARY_KEY, compactSummaryNote } from '../../../shared/index';
import { CLEARED_STUB } from './importer';

const REAL = join(import.meta.dirname, '../../../e2e/fixtures/real/claude-code');
const MICRO = join(REAL, 'cc-2.1.17-microcompactions-then-compact.jsonl');
const TWO = join(REAL, 'cc-2.1.14-two-compactions.jsonl');
const { load, closeAll } = sessionLoader();
afterAll(() => closeAll());

type Raw = Record<string, unknown>;
const obj = (v: unknown): Raw => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Raw) : {});

/** The file's records with their 1-based lines. */
const records = (path: string): { line: number; rec: Raw }[] =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l, k) => ({ line: k + 1, rec: obj(JSON.parse(l)) }));

/** The raw boundaries: each microcompaction's cleared ids, each compaction's summary (the next record, `isCompactSummary`). */
function boundaries(path: string): { micro: { line: number; ids: string[] }[]; compact: { line: number; summary: string }[] } {
  const all = records(path);
  const micro: { line: number; ids: string[] }[] = [];
  const compact: { line: number; summary: string }[] = [];
  all.forEach(({ line, rec }, k) => {
    if (rec.type === 'system' && rec.subtype === 'microcompact_boundary') micro.push({ line, ids: obj(rec.microcompactMetadata).compactedToolIds as string[] });
    if (rec.type === 'system' && rec.subtype === 'compact_boundary') {
      const next = all[k + 1]!.rec;
      expect(next.isCompactSummary).toBe(true);
      const content = obj(next.message).content;
      const summary = typeof content === 'string' ? content : (content as Raw[]).map((b) => (typeof b.text === 'string' ? b.text : '')).join('');
      compact.push({ line, summary });
    }
  });
  return { micro, compact };
}

/** The first call whose message record comes after `line` (and before `before`). */
function callAfter(s: LoadedSession, line: number, before = Number.POSITIVE_INFINITY): number {
  const c = s.calls.find((x) => x.line > line && x.line < before);
  if (!c) throw new Error(`no call between lines ${line} and ${before}`);
  return c.call;
}
const rowsAt = (s: LoadedSession, call: number) => {
  const input = s.callInput(call)!;
  return projectView(input.minted, input.log);
};

describe('microcompactions, then a compaction', () => {
  const { micro, compact } = boundaries(MICRO);

  it('the raw file: two microcompactions (9, then 18 results), then one compaction', () => {
    expect(micro.map((m) => m.ids.length)).toEqual([9, 18]);
    expect(compact).toHaveLength(1);
  });

  it('each call is given every result cleared before it as the placeholder: 9, then 9 + 18', async () => {
    const s = await load(MICRO);
    const cleared = (call: number) => rowsAt(s, call).filter((r) => r.text === CLEARED_STUB).length;
    expect(cleared(callAfter(s, micro[0]!.line, micro[1]!.line))).toBe(micro[0]!.ids.length);
    expect(cleared(callAfter(s, micro[1]!.line, compact[0]!.line))).toBe(micro[0]!.ids.length + micro[1]!.ids.length);
    // Before the first, none.
    expect(cleared(callAfter(s, 0, micro[0]!.line))).toBe(0);
  });

  it('after the compaction the input starts with its summary, and every cleared result stays a reduction under it', async () => {
    const s = await load(MICRO);
    const rows = rowsAt(s, callAfter(s, compact[0]!.line));
    expect(rows[0]?.text).toBe(compact[0]!.summary);
    const ids = new Set(s.log.map((r) => r.id));
    for (const id of [...micro[0]!.ids, ...micro[1]!.ids]) expect(ids.has(`cc-micro-${id}`)).toBe(true);
    expect(s.check().findings).toEqual([]);
  });
});

describe('two compactions', () => {
  const { compact } = boundaries(TWO);

  it('the raw file holds two compactions with different summaries', () => {
    expect(compact).toHaveLength(2);
    expect(compact[0]!.summary).not.toBe(compact[1]!.summary);
  });

  it('a call between them is given the first summary; a call after the second, only the second', async () => {
    const s = await load(TWO);
    const middle = rowsAt(s, callAfter(s, compact[0]!.line, compact[1]!.line));
    expect(middle[0]?.text).toBe(compact[0]!.summary);
    const late = rowsAt(s, callAfter(s, compact[1]!.line));
    expect(late[0]?.text).toBe(compact[1]!.summary);
    expect(late.some((r) => r.text === compact[0]!.summary)).toBe(false);
    // Before the first compaction, the history from the start.
    expect(rowsAt(s, callAfter(s, 0, compact[0]!.line))[0]?.reductions).toEqual([]);
  });

  it('the first summary`s chip expands, verified, at a call it applies to; check --strict exits 0', async () => {
    const s = await load(TWO);
    const call = callAfter(s, compact[0]!.line, compact[1]!.line);
    const id = `cc-compact-L${compact[0]!.line}`;
    const e = s.expand(id, undefined, call);
    expect(e.ok && e.value.reduction_id).toBe(id);
    const r = await runCli(['check', '--strict', TWO]);
    expect(r.code, r.stdout).toBe(0);
  });

  it('view --at a middle call prints the first summary, not the whole history', async () => {
    const s = await load(TWO);
    const call = callAfter(s, compact[0]!.line, compact[1]!.line);
    const r = await runCli(['view', '--at', String(call), TWO]);
    expect(r.code, r.stderr).toBe(0);
    const view = JSON.parse(r.stdout) as { messages: { content: string; reductions: string[] }[] };
    expect(view.messages[0]).toMatchObject({ content: compact[0]!.summary, reductions: [`cc-compact-L${compact[0]!.line}`] });
  });
});

describe('a file that opens with a compaction (the records it summarized are not in the file)', () => {
  const { compact } = boundaries(TWO);
  // The real file from its second boundary on: the boundary's logical parent is not in it.
  const dir = mkdtempSync(join(tmpdir(), 'cc-opens-compacted-'));
  const cut = join(dir, 'opens-compacted.jsonl');
  const lines = readFileSync(TWO, 'utf8').split('\n');
  writeFileSync(cut, lines.slice(compact[1]!.line - 1).join('\n'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('gives the first call its summary first, as the user message it was, marked; nothing is reduced', async () => {
    const s = await load(cut);
    const first = s.callInput(1)!;
    expect(first.minted.at(0)).toMatchObject({ role: 'user', content: compact[1]!.summary, metadata: { [COMPACT_SUMMARY_KEY]: true } });
    expect(rowsAt(s, 1)[0]).toMatchObject({ text: compact[1]!.summary, reductions: [], compact_summary: true });
    expect(s.log.filter((r) => r.kind === 'summarized')).toEqual([]);
    // Every later call is given it too, and only once; its row alone is marked.
    const last = rowsAt(s, s.calls.length);
    expect(last.filter((r) => r.text === compact[1]!.summary)).toHaveLength(1);
    expect(last.filter((r) => r.compact_summary === true).map((r) => r.index)).toEqual([0]);
  });

  it('view prints the summary first, marked, and marks nothing else; a summary that reduces what came before is not marked', async () => {
    const r = await runCli(['view', '--at', '1', cut]);
    expect(r.code, r.stderr).toBe(0);
    const messages = (JSON.parse(r.stdout) as { messages: { index: number; content: string; compact_summary?: true }[] }).messages;
    expect(messages[0]).toMatchObject({ index: 0, content: compact[1]!.summary, compact_summary: true });
    expect(messages.filter((m) => m.compact_summary === true)).toHaveLength(1);
    // The whole file: both summaries are compactions' stubs, no message is marked.
    const whole = await load(TWO);
    expect(rowsAt(whole, whole.calls.length).filter((row) => row.compact_summary === true)).toEqual([]);
  });

  it('an exported session says so, in Markdown and in HTML, before the summary and once', async () => {
    const note = compactSummaryNote('user');
    const firstLine = compact[1]!.summary.split('\n')[0]!;
    const markdown = await runCli(['export', '--as', 'markdown', '--calls', '1:1', cut]);
    expect(markdown.code, markdown.stderr).toBe(0);
    expect(markdown.stdout.split(note)).toHaveLength(2);
    const after = markdown.stdout.slice(markdown.stdout.indexOf(note));
    expect(after.indexOf(firstLine)).toBeGreaterThan(0);
    const html = await runCli(['export', '--as', 'html', '--calls', '1:1', cut]);
    expect(html.code, html.stderr).toBe(0);
    expect(html.stdout.split(`<p>${note}</p>`)).toHaveLength(2);
    // The uncut file at the call after its first compaction: the summary is there, as the
    // compaction's stub (what the model was shown instead), and nothing says it.
    const at = callAfter(await load(TWO), compact[0]!.line, compact[1]!.line);
    const uncut = await runCli(['export', '--as', 'markdown', '--calls', `${at}:${at}`, TWO]);
    expect(uncut.code, uncut.stderr).toBe(0);
    expect(uncut.stdout).toContain(compact[0]!.summary.split('\n')[0]!);
    expect(uncut.stdout).not.toContain(note);
  });

  it('is no prompt: the title filled from the session is the first prompt after it', async () => {
    const reply = await indexFile({ path: cut, root: dir, place: { rel: 'opens-compacted.jsonl', rootId: '0' }, untitled: true });
    expect(reply.ok).toBe(true);
    const firstPrompt = reply.ok ? reply.counts.firstPrompt : undefined;
    expect(firstPrompt).toBeDefined();
    expect(firstPrompt).not.toBe(oneLine(compact[1]!.summary));
    expect(reply.ok && reply.counts.messages).toBeGreaterThan(0);
  });
});
