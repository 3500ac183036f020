/**
 * Where a thread's bundle is. scripts/build.mjs writes every bundle into dist/, so a thread's is
 * beside the bundle running this code (dist/, or bench/out/runners/ where the bench builds its
 * own). From the TypeScript sources (Vitest) it is the repository's dist/, which the unit tests'
 * global setup builds from the same sources first (electron/worker/buildWorker.setup.ts).
 * Undefined when it is not there: the caller then does the thread's work on its own thread.
 */
import { existsSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';

export function threadBundle(file: string): string | undefined {
  const here = typeof __dirname === 'string' ? __dirname : resolve('dist');
  // This file's own folder when it runs from its source: electron/loader/common/.
  const fromSources = basename(here) === 'common' && basename(dirname(here)) === 'loader';
  const script = fromSources ? resolve(here, '../../../dist', file) : join(here, file);
  return existsSync(script) ? script : undefined;
}
