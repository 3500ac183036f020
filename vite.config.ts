import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';

const repoRoot = import.meta.dirname;

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
    include: ['shared/**/*.test.ts', 'electron/**/*.test.ts', 'renderer/**/*.test.{ts,tsx}', 'tools/**/*.test.ts'],
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
