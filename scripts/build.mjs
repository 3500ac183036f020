// Bundles the command line (electron/cli/bin.ts) and every npm package it imports into one
// CommonJS file, dist/cli.cjs, which bin/session-inspector.cjs loads. Runs on `npm ci` (prepare).
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { build } from 'esbuild';

const repoRoot = resolve(import.meta.dirname, '..');
const entry = resolve(repoRoot, 'electron/cli/bin.ts');
const outfile = resolve(repoRoot, 'dist/cli.cjs');

if (!existsSync(entry)) {
  console.error(
    'build: electron/cli/bin.ts does not exist, so dist/cli.cjs cannot be built ' +
      '(bin.ts is the command line entry: it calls main(process.argv.slice(2)) from electron/cli/main.ts).',
  );
  process.exit(1);
}

try {
  await build({
    absWorkingDir: repoRoot,
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    sourcemap: true,
    // The `electron` package only locates the Electron binary relative to its own folder; bundled,
    // that lookup would point into dist/. Everything else is bundled.
    external: ['electron'],
    logLevel: 'warning',
  });
} catch {
  // esbuild has already printed each error with its file and line.
  console.error('build: bundling electron/cli/bin.ts failed.');
  process.exit(1);
}
console.log(`build: wrote ${outfile}`);
