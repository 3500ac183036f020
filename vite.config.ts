import { resolve } from 'node:path';
import { defineConfig } from 'vitest/config';

const repoRoot = import.meta.dirname;

export default defineConfig({
  // `vite build` bundles the renderer (renderer/index.html arrives with the renderer issue).
  root: resolve(repoRoot, 'renderer'),
  cacheDir: resolve(repoRoot, 'node_modules/.vite'),
  base: './',
  build: {
    outDir: resolve(repoRoot, 'dist/renderer'),
    emptyOutDir: true,
    sourcemap: true,
  },
  test: {
    // Vitest runs from the repository root, not the renderer's.
    root: repoRoot,
    include: ['shared/**/*.test.ts', 'electron/**/*.test.ts', 'renderer/**/*.test.{ts,tsx}'],
    environment: 'node',
    // Child processes: isolated, and robust with worker_threads code under test.
    pool: 'forks',
    // The resolver worker's tests run the real bundle: build dist/worker.cjs first.
    globalSetup: ['electron/worker/buildWorker.setup.ts'],
    testTimeout: 30_000,
  },
});
