/**
 * What the specs of imported sessions (SPEC §10) check, computed from the files with the command
 * line and nothing else: a compaction's first run, a word only its dropped messages hold, and the
 * walk every such spec makes — see the summary row, expand it to the dropped transcript ("hashed at
 * import"), slice it, search for the hidden word and land on it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LogReportEntry } from '../shared/resolver/status';
import { audit } from './axe';
import { cliExpand, cliLog, cliSearch, runCli } from './cli';
import { expect } from './fixtures';
import type { InspectorPage } from './inspectorPage';
import { REPO_ROOT } from './paths';

/** A fixture file under `e2e/fixtures/`, as an absolute path. */
export function fixture(path: string): string {
  return join(REPO_ROOT, 'e2e', 'fixtures', path);
}

/** The first `summarized` run of the file's first compaction (the run whose row shows the summary). */
export function firstCompaction(file: string): LogReportEntry & { origin: { line: number } } {
  const run = cliLog([file]).find((r) => r.kind === 'summarized');
  if (!run) throw new Error(`${file} holds no compaction`);
  if (!run.origin || !('line' in run.origin)) throw new Error(`the compaction ${run.id} of ${file} names no line`);
  return run as LogReportEntry & { origin: { line: number } };
}

/**
 * A word (six letters or more) of the dropped transcript `content` that the file holds nowhere from
 * the compaction's line on: everything the view shows after a compaction (the summary, the kept
 * messages, what came next) is read from those lines, so the word is only in the hidden range.
 */
export function hiddenOnlyWord(file: string, compactionLine: number, content: string): string {
  const shown = readFileSync(file, 'utf8').split('\n').slice(compactionLine - 1).join('\n');
  const word = (content.match(/[A-Za-z]{6,}/g) ?? []).find((w) => !shown.includes(w));
  if (!word) throw new Error(`the dropped transcript of ${file} holds no word the rest of the file lacks`);
  return word;
}

/** The error `expand` prints for `id` (exit 2), e.g. `original_unavailable`. */
export function cliExpandError(files: readonly string[], id: string): { code: string; message: string } {
  const run = runCli(['expand', '--id', id, ...files]);
  if (run.status !== 2) throw new Error(`expected expand --id ${id} to fail with exit 2, got ${run.status}`);
  return (JSON.parse(run.stdout) as { error: { code: string; message: string } }).error;
}

/**
 * The compaction walk: the summary row shows what the model was given and carries the chip; the
 * chip expands to the dropped transcript as `expand` prints it, "hashed at import"; a slice from
 * the middle shows the bytes `expand --range` prints; a search for a word only the hidden range
 * holds finds what `search` finds and lands on it. axe-core passes with the chip open, and in the
 * other theme with the match shown.
 */
export async function walkCompaction(inspector: InspectorPage, file: string): Promise<void> {
  const run = firstCompaction(file);
  expect([run.status, run.hash_origin, run.provenance]).toEqual(['verified', 'import', 'recorded']);
  const row = inspector.row(run.ptr.index);
  const last = (run.end ?? run.ptr.index + 1) - 1;
  await expect(row).toHaveAccessibleName(new RegExp(`^${last === run.ptr.index ? `Message ${last}` : `Messages ${run.ptr.index}–${last}`} summarized`));
  // The summary as the model saw it (its first line: the row may cut a long one).
  await expect(row).toContainText(run.stub.split('\n')[0] ?? '');
  await expect(inspector.stubChip(run.id)).toHaveAccessibleName(new RegExp(`^Expand reduction ${run.id}\\b.*recorded by the agent.*hashed at import$`));

  const whole = cliExpand([file], run.id);
  const region = await inspector.expand(run.id);
  await expect(region).toHaveAttribute('data-total-bytes', String(whole.total_bytes));
  await expect(region).toContainText('hashed at import');
  await expect(region).not.toContainText('hash verified');
  // The dropped messages as rows: each in the range, each one's content exactly what
  // the transcript holds after that message's header.
  await expect(inspector.messageRows(run.id).first()).toBeVisible();
  const rows = Math.min(12, await inspector.messageRows(run.id).count());
  let longest = { index: -1, text: '' };
  for (let k = 0; k < rows; k++) {
    const name = (await inspector.messageRows(run.id).nth(k).getAttribute('aria-label')) ?? '';
    const index = Number(name.split(' ')[1]);
    expect(index).toBeGreaterThanOrEqual(run.ptr.index);
    expect(index).toBeLessThanOrEqual(last);
    const text = await inspector.readMessage(run.id, index);
    expect(whole.content).toContain(`\u27E9\n${text}`);
    if (text.length > longest.text.length) longest = { index, text };
  }

  // A slice inside one message's content: the bytes `expand --range` prints, in that message's row.
  const at = new TextEncoder().encode(whole.content.slice(0, whole.content.indexOf(`\u27E9\n${longest.text}`) + 2)).length;
  const width = Math.min(60, new TextEncoder().encode(longest.text).length - 2);
  const slice = cliExpand([file], run.id, [at + 1, at + width]);
  await inspector.setRange(run.id, at + 1, at + width);
  await inspector.expectShownRange(run.id, slice.range[0], slice.range[1], whole.total_bytes);
  await expect(inspector.messageRows(run.id)).toHaveCount(1);
  await expect.poll(() => inspector.readMessage(run.id, longest.index)).toBe(slice.content);
  expect(await audit(inspector)).toEqual([]);
  await inspector.collapse(run.id);

  // Search: a word only the dropped messages hold is found there, and the result lands on it.
  await searchHiddenWord(inspector, file, hiddenOnlyWord(file, run.origin.line, whole.content), run.group);
}

/**
 * A word only the runs of compaction `group` hold: `search` finds it there and nowhere else, the
 * app lists the same matches, and the first lands on the word. axe-core passes in the other theme
 * with the match shown.
 */
export async function searchHiddenWord(inspector: InspectorPage, file: string, word: string, group: string | undefined): Promise<void> {
  const found = cliSearch([file], word);
  expect(found.matches.length).toBeGreaterThan(0);
  const runs = new Set(cliLog([file]).filter((r) => r.kind === 'summarized' && r.group === group).map((r) => r.id));
  expect(found.matches.filter((m) => !runs.has(m.reduction_id))).toEqual([]);
  await inspector.search(word);
  await inspector.expectResults(found.matches);
  const [match] = found.matches;
  if (!match) throw new Error('no match');
  await inspector.result(match.reduction_id, match.offset).click();
  await expect(inspector.marks(match.reduction_id).first()).toHaveText(word);
  await inspector.toggleTheme();
  expect(await audit(inspector)).toEqual([]);
}

/** The header's format badge says `label` (`Claude Code`, `Codex`…) and is named as the format. */
export async function expectFormat(inspector: InspectorPage, label: string): Promise<void> {
  await expect(inspector.formatBadge).toHaveAccessibleName(`Format: ${label}`);
  await expect(inspector.formatBadge).toHaveText(label);
}
