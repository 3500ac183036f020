#!/usr/bin/env node
/**
 * `npm run screenshots`: refreshes the README's screenshots in docs/screenshots/. Builds the app,
 * then runs e2e/specs/screenshots.spec.ts in Chromium with SESSION_INSPECTOR_REFRESH_SCREENSHOTS=1,
 * the one run whose screenshots go to docs/ (every other run writes them under test-results/,
 * and the e2e docs guard fails a run that changes docs/).
 */
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

function run(command, args, env = process.env) {
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', env });
  if (result.error) throw result.error;
  if (result.status !== 0) process.exit(result.status ?? 1);
}

run(process.execPath, [join(root, 'scripts', 'build.mjs')]);
run(
  process.execPath,
  [join(root, 'node_modules', '@playwright', 'test', 'cli.js'), 'test', '-c', 'e2e/playwright.config.ts', '--project=chromium', '--workers=1', 'e2e/specs/screenshots.spec.ts'],
  { ...process.env, SESSION_INSPECTOR_REFRESH_SCREENSHOTS: '1' },
);
console.log('docs/screenshots/ refreshed: review the pictures with git diff before committing them.');
