import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import react from '@vitejs/plugin-react';
import { configDefaults, defineConfig } from 'vitest/config';

const repoRoot = import.meta.dirname;

const TEST_FILE = /\.test\.tsx?$/;
/** A test file that replaces a module, a function of one, a global or an environment variable. */
const REPLACES = /\bvi\.(mock|doMock|unmock|spyOn|stubGlobal|stubEnv|hoisted)\(/;

/**
 * The unit test files that must run isolated (each in a fresh module graph): those that replace
 * what other files import (docs/testing.md, "Unit tests share their modules"). Every other file
 * runs in a process that keeps the modules earlier files imported.
 */
function isolatedTestFiles(): string[] {
  const files: string[] = [];
  for (const top of ['shared', 'electron', 'renderer', 'tools']) {
    for (const entry of readdirSync(join(repoRoot, top), { recursive: true, encoding: 'utf8' })) {
      if (!TEST_FILE.test(entry) || entry.split(/[\\/]/).includes('node_modules')) continue;
      const path = join(top, entry);
      if (REPLACES.test(readFileSync(join(repoRoot, path), 'utf8'))) files.push(path.split('\\').join('/'));
    }
  }
  return files;
}
const isolated = isolatedTestFiles();
const TEST_GLOBS = ['shared/**/*.test.ts', 'electron/**/*.test.ts', 'renderer/**/*.test.{ts,tsx}', 'tools/**/*.test.ts'];

export default defineConfig({
  // `vite build` bundles the renderer (renderer/index.html); scripts/build.mjs runs it after the Node bundles.
  root: resolve(repoRoot, 'renderer'),
  plugins: [react()],
  cacheDir: resolve(repoRoot, 'node_modules/.vite'),
  // Relative asset URLs: the same build is served at `/` by the HTTP host and from app:// in Electron.
  base: './',
  build: {
    outDir: resolve(repoRoot, 'dist/renderer'),
    emptyOutDir: true,
    sourcemap: true,
    // No inline scripts or styles the CSP would refuse (script-src 'self'): the module-preload
    // polyfill is not needed by Chromium/Electron, and small assets stay files, not data: URLs.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
  },
  test: {
    // Vitest runs from the repository root, not the renderer's.
    root: repoRoot,
    // Two projects, one pool: a fresh module graph per file cost 154 s of imports in a 381 s run
    // (240 files re-importing the loaders, React and the SDK types); kept between files, 33 s
    // (docs/testing.md). Files that replace modules or globals keep their own graph.
    projects: [
      { extends: true, test: { name: 'shared', include: TEST_GLOBS, exclude: [...configDefaults.exclude, ...isolated], isolate: false } },
      { extends: true, test: { name: 'isolated', include: isolated, isolate: true } },
    ],
    environment: 'node',
    // Child processes: isolated, and robust with worker_threads code under test.
    pool: 'forks',
    // One test file per core. Vitest's default is one fewer than the cores (it keeps one for
    // itself), which on the two-core CI machine ran one file at a time with a core idle whenever
    // the file's test was not running a child process or a worker thread; Vitest's own process
    // only gathers results (docs/testing.md).
    maxWorkers: availableParallelism(),
    // The resolver worker's tests run the real bundle: build dist/worker.cjs first.
    globalSetup: ['electron/worker/buildWorker.setup.ts'],
    testTimeout: 30_000,
  },
});
