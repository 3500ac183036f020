/**
 * Model calls (SPEC §11) through the HTTP host: the `Model call` slider, `Latest`, the status
 * bar naming the call shown, and the `Context map` — on the §9 demo (call 2 was given message 2
 * whole: r1 was minted after it) and on the realistic sample (its rewind and model switch are
 * marks; a click in the map selects a call and the slider follows). Axe-clean in both themes.
 */
import { audit } from '../axe';
import { expect, test } from '../fixtures';
import { sample } from '../paths';

// Its tests share the worker's page, each with its own host (fixtures.ts, reusePage).
test.use({ reusePage: true });

test.describe('the §9 demo', () => {
  test.use({ sessionFiles: [sample('demo.sidecar.jsonl')] });

  test('call 2 shows message 2 whole, without r1’s stub; Latest shows the stub again', async ({ inspector }) => {
    await inspector.waitLoaded();
    await expect(inspector.status).toContainText('latest view');
    await expect(inspector.stubChip('r1')).toBeVisible();
    await expect(inspector.modelCallSlider).toHaveAttribute('max', '2');
    await expect(inspector.latestButton).toBeDisabled();

    await inspector.showCall(2);
    await expect(inspector.status).toContainText('call 2 of 2');
    // The status bar counts what call 2 was given (messages 0–2), not the latest view's 4.
    await expect(inspector.status).toContainText('3 messages given');
    await expect(inspector.status).toContainText('3 rows');
    await expect(inspector.modelCallSlider).toHaveAttribute('aria-valuetext', 'call 2 of 2');
    // Call 2 was given messages 0–2: message 2 whole, and nothing of message 3.
    await expect(inspector.row(2)).toContainText('FAIL b.test.ts — expected 3, got 4');
    await expect(inspector.row(2)).toContainText('PASS c.test.ts');
    await expect(inspector.stubChip('r1')).toHaveCount(0);
    await expect(inspector.rows).toHaveCount(3);

    // The Diff tab (part B) compares the call shown with its previous one.
    await inspector.openTab('Diff');
    await expect(inspector.fromCall).toHaveValue('1');
    await expect(inspector.toCall).toHaveValue('2');

    // Call 1 was given message 0 only.
    await inspector.modelCallSlider.press('ArrowLeft');
    await expect(inspector.status).toContainText('call 1 of 2');
    await expect(inspector.rows).toHaveCount(1);

    await inspector.latestButton.click();
    await expect(inspector.status).toContainText('latest view');
    await expect(inspector.status).toContainText('4 messages');
    await expect(inspector.status).not.toContainText('given');
    await expect(inspector.stubChip('r1')).toBeVisible();
    await expect(inspector.rows).toHaveCount(4);
    await expect(inspector.row(2)).not.toContainText('FAIL b.test.ts');
  });

  test('[ and ] step through the calls, ] after the last returns to the latest view', async ({ inspector }) => {
    await inspector.waitLoaded();
    // The keys step through the calls once they are known: the slider shows then.
    await expect(inspector.modelCallSlider).toBeVisible();
    await inspector.view.focus();
    await inspector.page.keyboard.press('[');
    await expect(inspector.status).toContainText('call 2 of 2');
    await inspector.page.keyboard.press('[');
    await expect(inspector.status).toContainText('call 1 of 2');
    await inspector.page.keyboard.press(']');
    await inspector.page.keyboard.press(']');
    await expect(inspector.status).toContainText('latest view');
    await expect(inspector.stubChip('r1')).toBeVisible();
  });
});

test.describe('the realistic sample', () => {
  test('the map marks the rewind and the model switch; a click selects a call and the slider follows; axe clean in both themes', async ({ inspector }) => {
    // Two axe audits and a switch of units: past one step's time at this machine's load.
    test.slow();
    await inspector.waitLoaded();
    // The map in bytes (the map in tokens, the default, is tokensMap.spec.ts's).
    await inspector.page.getByRole('button', { name: 'Bytes', exact: true }).click();
    await expect(inspector.contextMap).toBeVisible();
    const calls = Number(await inspector.modelCallSlider.getAttribute('max'));
    expect(calls).toBeGreaterThan(10);
    // The marks: one rewind (to 35) and one model switch, each at the first call after its record.
    const rewind = inspector.contextMap.locator('[data-mark="rewind"]');
    const modelSwitch = inspector.contextMap.locator('[data-mark="model-switch"]');
    await expect(rewind).toHaveCount(1);
    await expect(modelSwitch).toHaveCount(1);
    // The text alternative names them, and the figures table says where they happened.
    await expect(inspector.page.locator('#context-map-summary')).toContainText('1 rewind, 1 model switch');
    await inspector.page.getByText('Figures per call').click();
    const switchCall = Number(await modelSwitch.getAttribute('data-call'));
    const rewindCall = Number(await rewind.getAttribute('data-call'));
    await expect(inspector.contextMapFigures.getByRole('row', { name: new RegExp(`^call ${rewindCall} `) })).toContainText('rewind to message 35');
    await expect(inspector.contextMapFigures.getByRole('row', { name: new RegExp(`^call ${switchCall} `) })).toContainText('model switch deepthink-r2 → swift-coder-3');

    // A click at the switch's mark selects the call under it.
    const box = await inspector.contextMap.boundingBox();
    if (!box) throw new Error('the map has no box');
    const x = ((switchCall - 0.5) / calls) * box.width;
    await inspector.contextMap.click({ position: { x, y: box.height / 2 } });
    await expect(inspector.status).toContainText(`call ${switchCall} of ${calls}`);
    await expect(inspector.modelCallSlider).toHaveValue(String(switchCall));
    await expect(inspector.latestButton).toBeEnabled();

    const violations = { light: await audit(inspector), dark: [] as Awaited<ReturnType<typeof audit>> };
    await inspector.toggleTheme();
    violations.dark = await audit(inspector);
    expect(violations).toEqual({ light: [], dark: [] });
  });
});
