import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import react from '@vitejs/plugin-react';
import { configDefaults, defineConfig } from 'vitest/config';

const repoRoot = import.meta.dirname;

/** Where the unit tests live; a test file is `*.test.ts` (`*.test.tsx` in the renderer). */
const TEST_DIRS = ['shared', 'electron', 'renderer', 'tools'];
const TEST_GLOBS = TEST_DIRS.map((dir) => `${dir}/**/*.test.${dir === 'renderer' ? '{ts,tsx}' : 'ts'}`);
const TEST_FILE = /\.test\.tsx?$/;
/** A test file that replaces a module, a function of one, a global or an environment variable. */
const REPLACES = /\bvi\.(mock|doMock|unmock|spyOn|stubGlobal|stubEnv|hoisted)\(/;

/**
 * The unit test files that must run isolated (each in a fresh module graph): those that replace
 * what other files import (docs/testing.md, "Unit tests share their modules"). Every other file
 * runs in a process that keeps the modules earlier files imported. The walk does not enter
 * `node_modules` (tools/electronegativity has its own: 14,000 entries, 150 ms at every config load).
 */
function isolatedTestFiles(): string[] {
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(join(repoRoot, dir), { withFileTypes: true })) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules') walk(path);
      } else if (TEST_FILE.test(entry.name) && REPLACES.test(readFileSync(join(repoRoot, path), 'utf8'))) {
        files.push(path);
      }
    }
  };
  for (const dir of TEST_DIRS) walk(dir);
  return files;
}
const isolated = isolatedTestFiles();

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
    // (each of the 240 files importing its modules again); kept between files, 23–33 s
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
