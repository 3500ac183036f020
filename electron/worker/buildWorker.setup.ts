/**
 * Vitest global setup: bundles the resolver worker into dist/worker.cjs before any test runs, so
 * the worker tests drive the real bundle through its real message channel. It runs
 * scripts/build.mjs itself (`worker`, `indexPool`, the indexing pool it starts beside it,
 * `scanThread` and `verifyThread`, its search pool's and background verifier's threads,
 * `scanAheadThread`, a large transcript pass's scan-ahead thread,
 * `countThread`, the command line's counting thread, and
 * `listing`, the folder listing's thread, and `library`, the session library's indexing thread), so
 * the tests and `npm run build` share one set of esbuild options. With `--if-stale`: a bundle
 * already built from the sources as they are (`npm ci`'s build, or `npm test`'s) is not rebuilt
 * (scripts/buildStamp.mjs).
 */
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';

export default function setup(): void {
  const repoRoot = resolve(import.meta.dirname, '../..');
  execFileSync(process.execPath, [resolve(repoRoot, 'scripts/build.mjs'), '--if-stale', 'worker', 'indexPool', 'scanThread', 'verifyThread', 'scanAheadThread', 'countThread', 'listing', 'library'], { cwd: repoRoot, stdio: ['ignore', 'ignore', 'inherit'] });
}
