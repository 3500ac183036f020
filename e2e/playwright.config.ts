/**
 * The end-to-end suite: the same specs against the HTTP host in Chromium (`chromium`) and against
 * the desktop app (`electron`, skipped where no Electron binary exists), plus the QA example
 * (`examples`). `npm run test:e2e` names the projects it runs.
 */
import { join } from 'node:path';
import { defineConfig } from '@playwright/test';
import type { InspectorOptions } from './fixtures';
import { electronBinary, REPO_ROOT, SYSTEM_CHROMIUM } from './paths';

const CI = Boolean(process.env.CI);

const chromium = {
  target: 'http' as const,
  launchOptions: {
    // Debian's Chromium where it is installed (paths.ts); Playwright's own Chromium on other machines.
    ...(SYSTEM_CHROMIUM ? { executablePath: SYSTEM_CHROMIUM } : {}),
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  },
};

// Said once, by the runner (workers load this file too, with TEST_WORKER_INDEX set).
const electron = electronBinary();
if (!electron.ok && process.env.TEST_WORKER_INDEX === undefined) {
  console.log(`[electron] no test of the electron project runs: ${electron.why}`);
}

export default defineConfig<InspectorOptions>({
  testDir: './specs',
  // Fails the run when a test wrote into docs/ (only `npm run screenshots` may).
  globalSetup: './docsGuard.ts',
  outputDir: join(REPO_ROOT, 'test-results'),
  // Two cores: one test per core; each test starts its own host process.
  fullyParallel: true,
  workers: 2,
  forbidOnly: CI,
  retries: CI ? 1 : 0,
  // A ceiling, not a target: the axe-heavy specs (both themes) took 26–36 s on a loaded two-core
  // machine (2026-12-02), against 30 s here before; every wait inside is on a condition.
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: [['list'], ['html', { outputFolder: join(REPO_ROOT, 'playwright-report'), open: 'never' }]],
  use: {
    // Recording a trace of every test to keep only the failed ones' cost 20–25 % of a small test's
    // time (docs/testing.md); a failed test's retry on CI is traced, and `--trace on` traces all.
    trace: 'on-first-retry',
    screenshot: 'only-on-failure',
  },
  projects: [
    { name: 'chromium', use: chromium },
    {
      name: 'electron',
      // Screenshots are of the browser page at a fixed size; the desktop window has its own.
      // Without an Electron binary no spec is loaded for this project (said above): each test
      // would only skip itself, and loading every spec and running its hooks to do so cost two
      // workers 47 s of CPU on the two-core machine (docs/testing.md).
      testIgnore: electron.ok ? /screenshots\.spec\.ts$/ : /.*/,
      use: { target: 'electron' },
    },
    { name: 'examples', testDir: './examples', use: chromium },
    // A repro bundle's own spec, run only when asked: REPRO_BUNDLE=/abs/folder … --project=bundle.
    ...(process.env.REPRO_BUNDLE ? [{ name: 'bundle', testDir: process.env.REPRO_BUNDLE, testMatch: 'bundle.spec.ts', use: chromium }] : []),
  ],
});
