/**
 * Build stamps (scripts/buildStamp.mjs, docs/testing.md "Build once"): `build.mjs --if-stale` skips
 * a bundle only when its stamp names the digest of the sources as they are and every file it wrote
 * is still there, byte for byte. Each test builds a small checkout in a temporary folder.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { clearStamp, INPUT_DIRS, inputsDigest, isCurrent, writeStamp } from '../../scripts/buildStamp.mjs';
import { tempDir } from '../testing/files';

const repoRoot = join(import.meta.dirname, '..', '..');

let checkout: ReturnType<typeof tempDir>;

function put(file: string, text: string): void {
  mkdirSync(dirname(checkout.path(file)), { recursive: true });
  writeFileSync(checkout.path(file), text);
}

const OUTPUTS = ['dist/worker.cjs', 'dist/worker.cjs.map'];

/** A checkout whose `worker` bundle was built (its outputs written, then its stamp). */
function built(): string {
  const digest = inputsDigest(checkout.dir);
  put('dist/worker.cjs', 'module.exports = 1;\n');
  put('dist/worker.cjs.map', '{}\n');
  writeStamp(checkout.dir, 'worker', digest, OUTPUTS);
  return digest;
}

beforeEach(() => {
  checkout = tempDir('session-inspector-stamp-');
  put('electron/worker/entry.ts', 'export const a = 1;\n');
  put('shared/index.ts', 'export const b = 2;\n');
  put('renderer/index.html', '<!doctype html>\n');
  put('scripts/build.mjs', '// build\n');
  put('package-lock.json', '{}\n');
});

afterEach(() => checkout.cleanup());

describe('a bundle is up to date only when built from the sources as they are', () => {
  it('is current right after its build, and the stamp lives outside dist/', () => {
    const digest = built();
    expect(isCurrent(checkout.dir, 'worker', digest)).toBe(true);
    expect(isCurrent(checkout.dir, 'worker', inputsDigest(checkout.dir))).toBe(true);
    expect(JSON.parse(readFileSync(checkout.path('node_modules/.cache/session-inspector/build-stamps/worker.json'), 'utf8'))).toMatchObject({ inputs: digest });
  });

  it.each([
    ['an edited source', () => put('electron/worker/entry.ts', 'export const a = 2;\n')],
    ['a new source file', () => put('shared/added.ts', 'export {};\n')],
    ['a removed source file', () => rmSync(checkout.path('renderer/index.html'))],
    ['a renamed source file', () => (rmSync(checkout.path('shared/index.ts')), put('shared/index2.ts', 'export const b = 2;\n'))],
    ['an edited build script', () => put('scripts/build.mjs', '// build, changed\n')],
    ['another install (lock file)', () => put('package-lock.json', '{"x":1}\n')],
    ['what npm installed (node_modules/.package-lock.json)', () => put('node_modules/.package-lock.json', '{}\n')],
  ])('%s makes it stale', (_what, change) => {
    built();
    change();
    expect(isCurrent(checkout.dir, 'worker', inputsDigest(checkout.dir))).toBe(false);
  });

  it('a changed or missing output makes it stale, whatever the sources', () => {
    const digest = built();
    put('dist/worker.cjs', 'module.exports = 2;\n');
    expect(isCurrent(checkout.dir, 'worker', digest)).toBe(false);
    built();
    rmSync(checkout.path('dist/worker.cjs.map'));
    expect(isCurrent(checkout.dir, 'worker', digest)).toBe(false);
  });

  it('no stamp, a cleared one, an unreadable one or one of no outputs is never current', () => {
    const digest = inputsDigest(checkout.dir);
    expect(isCurrent(checkout.dir, 'worker', digest)).toBe(false);
    built();
    clearStamp(checkout.dir, 'worker');
    expect(isCurrent(checkout.dir, 'worker', digest)).toBe(false);
    put('node_modules/.cache/session-inspector/build-stamps/worker.json', '{"inputs":');
    expect(isCurrent(checkout.dir, 'worker', digest)).toBe(false);
    writeStamp(checkout.dir, 'worker', digest, []);
    expect(isCurrent(checkout.dir, 'worker', digest)).toBe(false);
  });

  it('a stamp is per bundle: the renderer\'s says nothing of the worker\'s', () => {
    const digest = built();
    expect(isCurrent(checkout.dir, 'renderer', digest)).toBe(false);
  });

  it('the digest covers the folder of every entry point scripts/build.mjs bundles', () => {
    const entries = [...readFileSync(join(repoRoot, 'scripts/build.mjs'), 'utf8').matchAll(/\bentry: '([^']+)'/g)].map((m) => m[1]!);
    expect(entries.length).toBeGreaterThan(5);
    for (const entry of entries) expect(INPUT_DIRS.some((dir) => entry.startsWith(`${dir}/`)), entry).toBe(true);
  });
});
