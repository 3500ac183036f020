/**
 * SPEC §10 in the app, on an Inspect AI `.eval` through the HTTP host: the format badge, the
 * `Session` picker over the log's samples (each sample's messages counted after the open), a summary compaction expanded to the transcript it
 * replaced ("hashed at import"), and a search for a word only that transcript holds. The synthetic
 * log is used because no committed real log holds a compaction (e2e/fixtures/real/inspect/README.md).
 * Every expected value is read from the file by the CLI.
 */
import { audit } from '../axe';
import { cliCheck, cliExpand, cliLog, cliSearch } from '../cli';
import { expect, test } from '../fixtures';
import { expectFormat, fixture } from '../importedSession';

const LOG = fixture('synthetic/inspect/compact.eval');
const SESSION = 'compact_epoch_1';

test.describe('an Inspect AI .eval log', () => {
  test.use({ sessionFiles: [LOG] });

  test('says it is Inspect AI, lists its samples, and a chosen sample`s summary expands and is searched; axe passes', async ({ inspector }) => {
    await inspector.waitLoaded();
    await expectFormat(inspector, 'Inspect AI');
    const { sessions } = cliCheck([LOG]).summary;
    await expect(inspector.sessionPicker.getByRole('option')).toHaveCount(sessions.length);
    // Every sample's messages are counted after the open (`check` counts them all): the picker fills them in as they arrive.
    await expect(inspector.sessionPicker.getByRole('option')).toHaveText(sessions.map((s) => new RegExp(`\\(${s.messages} messages?\\)$`)));

    await inspector.chooseSession(new RegExp(SESSION));
    const files = ['--session', SESSION, LOG];
    const { summary } = cliCheck(files);
    await expect(inspector.status).toContainText(`${summary.messages} messages`);
    const run = cliLog(files).find((r) => r.kind === 'summarized');
    if (!run) throw new Error(`${LOG} ${SESSION} holds no summary`);
    expect([run.status, run.hash_origin, run.provenance]).toEqual(['verified', 'import', 'recorded']);
    await expect(inspector.row(run.ptr.index)).toContainText(run.stub.split('\n')[0] ?? '');
    const whole = cliExpand(files, run.id);
    const region = await inspector.expand(run.id);
    await expect(region).toHaveAttribute('data-total-bytes', String(whole.total_bytes));
    await expect(region).toContainText('hashed at import');
    expect(await audit(inspector)).toEqual([]);
    await inspector.collapse(run.id);

    // `src/module_12.py` stands only in the listing the summary replaced (the later listing is upper case).
    const found = cliSearch(files, 'src/module_12.py');
    expect(found.matches.length).toBeGreaterThan(0);
    expect(found.matches.filter((m) => m.reduction_id !== run.id)).toEqual([]);
    await inspector.search('src/module_12.py');
    await inspector.expectResults(found.matches);
  });
});
