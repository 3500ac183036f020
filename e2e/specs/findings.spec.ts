import { readFileSync } from 'node:fs';
import { cliCheck } from '../cli';
import { expect, test } from '../fixtures';
import { sample } from '../paths';

// Its tests share the worker's page, each with its own host (fixtures.ts, reusePage).
test.use({ reusePage: true });

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
    test.use({ sessionFiles: files });

    test(`the Findings region lists ${planted.code}`, async ({ inspector }) => {
      const report = cliCheck(files);
      expect(report.findings.map((f) => f.code), planted.defect).toContain(planted.code);

      await inspector.openTab('Findings');
      await expect(inspector.tab('Findings')).toHaveAccessibleName(`Findings (${report.findings.length})`);
      await expect(inspector.findingItems).toHaveCount(report.findings.length);
      await expect(inspector.findingItems.filter({ hasText: planted.code })).not.toHaveCount(0);
    });
  });
}
