/**
 * What the loader and the worker share is passed, never registered (docs/content-services.md), and
 * every thread runs a bundled module file of its own. Read from the sources as a reviewer would.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { VERIFY_THREAD_BUNDLE } from '../loader/content/backgroundVerify';
import { SCAN_AHEAD_BUNDLE } from '../loader/content/scanAhead';
import { threadBundle } from '../loader/common/threadBundle';
import { SCAN_THREAD_BUNDLE } from './scanProtocol';

const repoRoot = resolve(import.meta.dirname, '../..');

/** The shipped Node side's source files: electron/**.ts without tests and test helpers. */
function shippedSources(dir = join(repoRoot, 'electron')): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'testing' ? [] : shippedSources(path);
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') && !e.name.endsWith('.setup.ts') ? [path] : [];
  });
}

const sources = shippedSources().map((path) => ({ path: relative(repoRoot, path), text: readFileSync(path, 'utf8') }));

describe('no hidden channels between the loader and the worker', () => {
  it('no module exports a set… function that registers something for another module to find', () => {
    const setters = sources.flatMap(({ path, text }) => [...text.matchAll(/^export function (set[A-Z]\w*)/gm)].map((m) => `${path}: ${m[1]}`));
    expect(setters).toEqual([]);
  });

  it('the files on a content\'s read path keep no module-level variable (buffers, scanners, decoder, claims)', () => {
    const readPath = ['contentServices', 'fileContent', 'contentHash', 'keptBoundary', 'rawScan', 'rawRecord', 'scratch', 'backgroundVerify'].map((name) => `electron/loader/content/${name}.ts`);
    const held = sources.filter(({ path }) => readPath.includes(path)).flatMap(({ path, text }) => [...text.matchAll(/^(?:let|var) (\w+)/gm)].map((m) => `${path}: ${m[1]}`));
    // A test hook counting the verifier's threads is the one left (backgroundThreads).
    expect(held).toEqual(['electron/loader/content/backgroundVerify.ts: running']);
  });

  it('no thread runs source rebuilt from Function.toString(): every worker_threads Worker starts from a file', () => {
    const evaluated = sources.filter(({ text }) => /eval:\s*true/.test(text) || /\$\{\w+\.toString\(\)\}/.test(text)).map(({ path }) => path);
    expect(evaluated).toEqual([]);
  });

  it('each thread\'s bundle is built beside the worker\'s, from its own module (scripts/build.mjs)', () => {
    const build = readFileSync(join(repoRoot, 'scripts/build.mjs'), 'utf8');
    for (const [bundle, entry] of [
      [SCAN_THREAD_BUNDLE, 'electron/worker/scanThread.ts'],
      [VERIFY_THREAD_BUNDLE, 'electron/loader/content/verifyThread.ts'],
      [SCAN_AHEAD_BUNDLE, 'electron/loader/content/scanAheadThread.ts'],
    ] as const) {
      expect(build).toContain(`entry: '${entry}'`);
      expect(build).toContain(`outfile: 'dist/${bundle}'`);
      // The unit tests' global setup built it from these sources; the loader finds it in dist/.
      expect(threadBundle(bundle)).toBe(join(repoRoot, 'dist', bundle));
      expect(existsSync(join(repoRoot, 'dist', bundle))).toBe(true);
    }
  });
});
