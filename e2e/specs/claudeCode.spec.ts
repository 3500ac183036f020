/**
 * SPEC §10 in the app, on real Claude Code transcripts (e2e/fixtures/real/claude-code, sources in
 * its README) through the HTTP host: the format badge; a compaction (`compact_boundary` +
 * `isCompactSummary`) expanded to the dropped transcript, sliced and searched; a transcript with a
 * subagent switched with the session picker; a `<persisted-output>` whose `tool-results/` file is
 * missing says "original not recorded". Every expected value is read from the files by the CLI.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { audit } from '../axe';
import { cliCheck, cliLog, cliView } from '../cli';
import { expect, test } from '../fixtures';
import { cliExpandError, expectFormat, firstCompaction, fixture, walkCompaction } from '../importedSession';

// Its tests share the worker's page, each with its own host (fixtures.ts, reusePage).
test.use({ reusePage: true });

const COMPACTION = fixture('real/claude-code/cc-2.0.76-compact-boundary.jsonl');
const SUBAGENT = fixture('real/claude-code/cc-2.1.17-subagent/29ccd257-68b1-427f-ae5f-6524b7cb6f20.jsonl');
const PERSISTED = fixture('real/claude-code/cc-2.1.91-persisted-output.jsonl');
const ATTACHMENTS = fixture('real/claude-code/cc-2.1.119-attachments.jsonl');

test.describe('a compacted Claude Code transcript', () => {
  test.use({ sessionFiles: [COMPACTION] });

  test('says it is Claude Code; the compaction expands to the dropped transcript, slices and searches; axe passes in both themes', async ({ inspector }) => {
    await inspector.waitLoaded();
    await expectFormat(inspector, 'Claude Code');
    // One session in the file: no picker.
    expect(cliCheck([COMPACTION]).summary.sessions).toHaveLength(1);
    await expect(inspector.sessionPicker).toHaveCount(0);
    await walkCompaction(inspector, COMPACTION);
  });

  test('the summary row says, in words, that the model was given the summary as a user message', async ({ inspector }) => {
    await inspector.waitLoaded();
    // The record after the boundary holds the summary: its type and role are how the model got it.
    const run = firstCompaction(COMPACTION);
    const records = readFileSync(COMPACTION, 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as { type?: string; isCompactSummary?: boolean; message?: { role?: string } });
    const summary = records.find((r) => r.isCompactSummary === true);
    expect([summary?.type, summary?.message?.role]).toEqual(['user', 'user']);
    const row = inspector.row(run.ptr.index);
    await expect(row).toContainText(`Summary of compaction ${run.group ?? ''}, given to the model as a ${summary?.message?.role ?? '?'} message`);
    // Said in text the row carries (a screen reader reads it), not by its colour.
    await expect(row.getByText(/given to the model as a user message/)).toBeVisible();
  });
});

// The real two-compaction transcript from its second boundary on: the file opens with a compaction
// whose logical parent is not in it (docs/formats/claude-code.md "Compactions and microcompactions").
const TWO = fixture('real/claude-code/cc-2.1.14-two-compactions.jsonl');
const cutDir = mkdtempSync(join(tmpdir(), 'session-inspector-cc-opens-e2e-'));
const OPENS_COMPACTED = join(cutDir, 'opens-compacted.jsonl');
const twoLines = readFileSync(TWO, 'utf8').split('\n');
const boundaries = twoLines.flatMap((l, k) => (l.includes('"compact_boundary"') ? [k] : []));
writeFileSync(OPENS_COMPACTED, twoLines.slice(boundaries[1]).join('\n'));

test.describe('a Claude Code transcript that opens with a compaction', () => {
  test.use({ sessionFiles: [OPENS_COMPACTED] });
  test.afterAll(() => rmSync(cutDir, { recursive: true, force: true }));

  test('its first row is the summary, said in words to be one whose conversation is not in the file; no other row says so; axe passes', async ({ inspector }) => {
    await inspector.waitLoaded();
    expect(boundaries).toHaveLength(2);
    // The summary is the record after the boundary, as `view` prints it first (marked).
    const view = cliView([OPENS_COMPACTED]);
    const first = view.messages[0];
    expect(first?.compact_summary).toBe(true);
    expect(view.messages.filter((m) => m.compact_summary === true)).toHaveLength(1);
    const row = inspector.row(0);
    await expect(row).toContainText('Summary of a compaction this file opens with: the conversation it summarizes is not in the file, and the model was given the summary as this user message.');
    await expect(row).toContainText((first?.content ?? '?').split('\n')[0] as string);
    await expect(inspector.row(1)).not.toContainText('Summary of a compaction');
    expect(await audit(inspector)).toEqual([]);
  });
});

test.describe('a Claude Code transcript with a subagent', () => {
  test.use({ sessionFiles: [SUBAGENT] });

  test('the session picker lists the main session and the subagent; choosing one shows its rows, log and search', async ({ inspector }) => {
    await inspector.waitLoaded();
    const { sessions } = cliCheck([SUBAGENT]).summary;
    const [main, sub] = sessions;
    if (!main || !sub || sub.title === undefined) throw new Error('the fixture should hold a main session and a titled subagent');
    await expectFormat(inspector, 'Claude Code');
    const picker = inspector.sessionPicker;
    await expect(picker.getByRole('option')).toHaveCount(sessions.length);
    await expect(picker.getByRole('option').first()).toHaveText(`Main session (${main.messages} messages)`);
    await expect(picker.getByRole('option').nth(1)).toContainText(`Subagent ${sub.id}: ${sub.title.slice(0, 40)}`);
    await expect(picker.getByRole('option').nth(1)).toContainText(`(${sub.messages} messages)`);
    await expect(inspector.status).toContainText(`${main.messages} messages`);
    await expect(inspector.row(0)).not.toContainText(sub.title);

    await inspector.chooseSession(new RegExp(`^Subagent ${sub.id}`));
    // The subagent's own conversation: its first row is the prompt its title comes from.
    await expect(inspector.status).toContainText(`${sub.messages} messages`);
    await expect(inspector.row(0)).toContainText(sub.title);
    await expect(picker).toHaveValue('1');
    // The log is the subagent's (the CLI with --session agrees).
    await inspector.openTab('Log');
    await expect(inspector.logTable.getByRole('button', { name: /^Go to / })).toHaveCount(cliLog(['--session', sub.id, SUBAGENT]).length);
    expect(await audit(inspector)).toEqual([]);

    // Keyboard: the picker is reachable and takes the main session back.
    await picker.focus();
    await inspector.page.keyboard.press('Home');
    await expect(inspector.status).toContainText(`${main.messages} messages`);
    await expect(picker).toHaveValue('0');
    await expect(inspector.row(0)).not.toContainText(sub.title);
    await inspector.toggleTheme();
    expect(await audit(inspector)).toEqual([]);
  });
});

test.describe('a Claude Code transcript whose persisted outputs are not beside it', () => {
  test.use({ sessionFiles: [PERSISTED] });

  test('a persisted output whose tool-results file is missing says "original not recorded" on its chip and on expand', async ({ inspector }) => {
    await inspector.waitLoaded();
    const missing = cliLog([PERSISTED]).filter((r) => r.status === 'original_unavailable');
    expect(missing.length).toBeGreaterThan(0);
    const [gone] = missing;
    if (!gone) throw new Error('no missing original');
    const chip = await inspector.revealStub(gone.id);
    await expect(chip).toHaveAccessibleName(new RegExp(`^Expand reduction ${gone.id}\\b.*original not recorded$`));
    await chip.click();
    const region = inspector.expanded(gone.id);
    await expect(region).toContainText('original not recorded');
    await expect(region.getByRole('alert')).toContainText(cliExpandError([PERSISTED], gone.id).message);
    await expect(region).not.toContainText('verified');
    expect(await audit(inspector)).toEqual([]);
  });
});

/**
 * A transcript whose session names attack the header: an agent id with a bidi override and an OSC
 * title escape, a prompt (the subagent's title) with an isolate, markup and a newline, a main
 * title with an override. Written at test time; the picker shows every one as visible text.
 */
function hostileTranscript(path: string): void {
  const session = '11111111-2222-4333-8444-555555555555';
  const agent = 'ag\u202eent\u001b]0;pwned\u0007';
  const record = (fields: Record<string, unknown>) => JSON.stringify({ userType: 'external', cwd: '/w', sessionId: session, version: '2.1.17', timestamp: '2026-01-01T00:00:00.000Z', ...fields });
  const answer = (uuid: string, parentUuid: string, isSidechain: boolean, text: string, more: Record<string, unknown> = {}) =>
    record({ type: 'assistant', uuid, parentUuid, isSidechain, ...more, message: { id: `m-${uuid}`, model: 'claude', role: 'assistant', type: 'message', content: [{ type: 'text', text }] } });
  const lines = [
    record({ type: 'user', uuid: 'u1', parentUuid: null, isSidechain: false, message: { role: 'user', content: 'hello main' } }),
    answer('a1', 'u1', false, 'main answer'),
    record({ type: 'user', uuid: 's1', parentUuid: null, isSidechain: true, agentId: agent, message: { role: 'user', content: 'Explore\u2066 <img src=x onerror=alert(1)>\nsecond line' } }),
    answer('s2', 's1', true, 'side answer', { agentId: agent }),
    JSON.stringify({ type: 'ai-title', aiTitle: 'Title \u202egnp.exe', sessionId: session }),
  ];
  writeFileSync(path, lines.join('\n') + '\n');
}

test.describe('a Claude Code transcript with hostile session names', () => {
  let file = '';
  test.use({
    // eslint-disable-next-line no-empty-pattern
    sessionFiles: async ({}, use, testInfo) => {
      file = testInfo.outputPath('hostile-names.jsonl');
      hostileTranscript(file);
      await use([file]);
    },
  });

  test('the picker shows ids and titles as visible symbols on one line, and choosing one still works', async ({ inspector, inspectorApp }) => {
    await inspector.waitLoaded();
    const { sessions } = cliCheck([file]).summary;
    expect(sessions).toHaveLength(2);
    const options = inspector.sessionPicker.getByRole('option');
    await expect(options).toHaveCount(2);
    for (const text of await options.allTextContents()) {
      // eslint-disable-next-line no-control-regex -- control characters are exactly what must not be shown raw
      expect(text).not.toMatch(/[\u0000-\u001f\u007f\u202e\u2066]/);
    }
    await expect(options.first()).toContainText('⟨U+202E⟩gnp.exe');
    await expect(options.nth(1)).toContainText('⟨U+202E⟩ent');
    await expect(options.nth(1)).toContainText('Explore⟨U+2066⟩ <img src=x onerror=alert(1)> second line');
    await inspector.sessionPicker.selectOption('1');
    await expect(inspector.status).toContainText(`${sessions[1]?.messages ?? -1} messages`);
    await expect(inspector.row(0)).toContainText('Explore');
    // Nothing ran: no dialog, the page title is the app's.
    expect(inspectorApp.events.dialogs).toEqual([]);
    await expect(inspector.page).toHaveTitle('Session Inspector');
    expect(await audit(inspector)).toEqual([]);
  });
});

test.describe('a Claude Code transcript with attachments', () => {
  test.use({ sessionFiles: [ATTACHMENTS] });

  test('the Instructions region lists the attachments each call was given, as `view` prints them, apart from the rows; axe passes', async ({ inspector }) => {
    await inspector.waitLoaded();
    const region = inspector.page.getByRole('region', { name: 'Instructions', exact: true });
    const latest = cliView([ATTACHMENTS]).instructions ?? [];
    expect(latest.length).toBeGreaterThan(0);
    await expect(region).toContainText('Instructions given outside the messages');
    await region.locator('summary').click();
    const list = region.getByRole('list', { name: 'Instructions given at the latest view' });
    await expect(list.getByRole('listitem')).toHaveCount(latest.length);
    for (const [k, i] of latest.entries()) await expect(list.getByRole('listitem').nth(k)).toContainText(`Attachment ${i.kind ?? ''}`);
    // Not rows of the view: the view has the messages `check` counts.
    await expect(inspector.status).toContainText(`${cliCheck([ATTACHMENTS]).summary.messages} messages`);
    expect(await audit(inspector)).toEqual([]);

    // Call 1 was given only those recorded before its response.
    const first = cliView([ATTACHMENTS], 1).instructions ?? [];
    expect(first.length).toBeLessThan(latest.length);
    await expect(inspector.modelCallSlider).toHaveAttribute('max', String(cliView([ATTACHMENTS]).calls));
    await inspector.showCall(1);
    const atFirst = region.getByRole('list', { name: 'Instructions given at call 1' });
    await expect(atFirst.getByRole('listitem')).toHaveCount(first.length);
    const skills = first.find((i) => i.kind === 'skill_listing');
    expect(skills).toBeDefined();
    await expect(atFirst.getByRole('listitem').filter({ hasText: 'Attachment skill_listing' })).toContainText(skills!.text.slice(0, 60));
  });
});
