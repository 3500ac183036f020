import { readFileSync } from 'node:fs';
import { cliCheck } from '../cli';
import { expect, test } from '../fixtures';
import { sample } from '../paths';

/**
 * Over HTTP, the samples open as a user goes from one session of a folder to the next: one
 * `serve samples/broken` for the worker's tests, each opening its sample by a link (`#file=NAME`,
 * the pair's snapshot for a pair: its sidecar is opened beside it); fixtures.ts, shareHost. In the
 * desktop app each test opens its files as the app's arguments.
 */
const BROKEN = sample('broken');
test.use({
  shareHost: async ({ target }, use) => {
    await use(target === 'http');
  },
});

interface BrokenSample {
  code: string;
  severity: 'error' | 'warning';
  files: string[];
  defect: string;
}

/** One sample per finding code, each with exactly one planted defect. */
const manifest = JSON.parse(readFileSync(sample('broken/manifest.json'), 'utf8')) as { samples: BrokenSample[] };

for (const planted of manifest.samples) {
  const files = planted.files.map((name) => sample(`broken/${name}`));

  test.describe(`${planted.code} (${planted.files.join(' + ')})`, () => {
    test.use({
      sessionFiles: async ({ target }, use) => {
        await use(target === 'http' ? [BROKEN] : files);
      },
    });

    test(`the Findings region lists ${planted.code}`, async ({ inspector, inspectorApp }) => {
      if (inspectorApp.target === 'http') await inspector.openLinkedFile(planted.files[0] ?? '');
      const report = cliCheck(files);
      expect(report.findings.map((f) => f.code), planted.defect).toContain(planted.code);

      await inspector.openTab('Findings');
      await expect(inspector.tab('Findings')).toHaveAccessibleName(`Findings (${report.findings.length})`);
      await expect(inspector.findingItems).toHaveCount(report.findings.length);
      await expect(inspector.findingItems.filter({ hasText: planted.code })).not.toHaveCount(0);
    });
  });
}
