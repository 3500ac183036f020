/**
 * SPEC §10 in the app, on real Claude Code transcripts (e2e/fixtures/real/claude-code, sources in
 * its README) through the HTTP host: the format badge; a compaction (`compact_boundary` +
 * `isCompactSummary`) expanded to the dropped transcript, sliced and searched; a transcript with a
 * subagent switched with the session picker; a `<persisted-output>` whose `tool-results/` file is
 * missing says "original not recorded". Every expected value is read from the files by the CLI.
 */
import { audit } from '../axe';
import { cliCheck, cliLog } from '../cli';
import { expect, test } from '../fixtures';
import { cliExpandError, expectFormat, fixture, walkCompaction } from '../importedSession';

const COMPACTION = fixture('real/claude-code/cc-2.0.76-compact-boundary.jsonl');
const SUBAGENT = fixture('real/claude-code/cc-2.1.17-subagent/29ccd257-68b1-427f-ae5f-6524b7cb6f20.jsonl');
const PERSISTED = fixture('real/claude-code/cc-2.1.91-persisted-output.jsonl');

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
    await expect(picker.getByRole('option').nth(1)).toContainText(`Session ${sub.id}: ${sub.title.slice(0, 40)}`);
    await expect(picker.getByRole('option').nth(1)).toContainText(`(${sub.messages} messages)`);
    await expect(inspector.status).toContainText(`${main.messages} messages`);
    await expect(inspector.row(0)).not.toContainText(sub.title);

    await inspector.chooseSession(new RegExp(`^Session ${sub.id}`));
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
