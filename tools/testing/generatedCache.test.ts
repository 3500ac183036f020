/**
 * Large test inputs made once (tools/testing/generatedCache.ts): a file is made the first time it
 * is asked for and reused after, whole or not at all, in a folder named by the makers' sources.
 */
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { badInputPath } from './badCorpus';
import { tempDir } from './files';
import { GENERATED_ROOT, generatedBytes, generatedFile, makersVersion } from './generatedCache';

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => (tmp = tempDir('session-inspector-generated-test-')));
afterEach(() => tmp.cleanup());

describe('a generated file', () => {
  it('is made once: a second ask reuses it without calling the maker', () => {
    let made = 0;
    const make = () => {
      made++;
      return 'the bytes\n';
    };
    const first = generatedBytes('k', 'a.sidecar.jsonl', make, tmp.dir);
    const second = generatedBytes('k', 'a.sidecar.jsonl', make, tmp.dir);
    expect(second).toBe(first);
    expect(made).toBe(1);
    expect(readFileSync(first, 'utf8')).toBe('the bytes\n');
    // Read-only, and nothing else beside it (no partial file left).
    expect(statSync(first).mode & 0o222).toBe(0);
    expect(readdirSync(join(first, '..'))).toEqual(['a.sidecar.jsonl']);
  });

  it('is whole or absent: a maker that fails leaves nothing, and the next ask makes it', () => {
    expect(() =>
      generatedFile('k', 'b.jsonl', (path) => {
        writeFileSync(path, 'half');
        throw new Error('disk full');
      }, tmp.dir),
    ).toThrow('disk full');
    expect(readdirSync(tmp.dir, { recursive: true }).filter((f) => String(f).includes('b.jsonl'))).toEqual([]);
    const path = generatedFile('k', 'b.jsonl', (p) => writeFileSync(p, 'whole'), tmp.dir);
    expect(readFileSync(path, 'utf8')).toBe('whole');
  });

  it('made by two at once, the file the first put in place stays: a reader that opened it is never given another', () => {
    let first: { ino: number; path: string } | undefined;
    const path = generatedFile('k', 'c.jsonl', (partial) => {
      writeFileSync(partial, 'same bytes');
      // Another worker asks meanwhile, makes it and puts it in place first (and a test opens it).
      const made = generatedFile('k', 'c.jsonl', (p) => writeFileSync(p, 'same bytes'), tmp.dir);
      first = { ino: statSync(made).ino, path: made };
    }, tmp.dir);
    expect(path).toBe(first?.path);
    expect(statSync(path).ino).toBe(first?.ino);
    expect(readFileSync(path, 'utf8')).toBe('same bytes');
    expect(readdirSync(join(path, '..'))).toEqual(['c.jsonl']);
  });

  it('keys tell apart makers of files with the same name', () => {
    const a = generatedBytes('spec-a', 'x.jsonl', () => 'a', tmp.dir);
    const b = generatedBytes('spec-b', 'x.jsonl', () => 'b', tmp.dir);
    expect(a).not.toBe(b);
    expect([readFileSync(a, 'utf8'), readFileSync(b, 'utf8')]).toEqual(['a', 'b']);
  });

  it('lives under the OS temp folder, out of the work tree', () => {
    const repoRoot = join(import.meta.dirname, '..', '..');
    expect(GENERATED_ROOT.startsWith(repoRoot)).toBe(false);
  });
});

describe("the makers' version", () => {
  it('changes with any maker source, and not with committed fixtures or installed packages', () => {
    const root = tmp.path('checkout');
    const put = (file: string, text: string) => {
      mkdirSync(join(root, file, '..'), { recursive: true });
      writeFileSync(join(root, file), text);
    };
    put('tools/testing/badCorpus.ts', 'one');
    put('shared/hash.ts', 'h');
    const v1 = makersVersion(root);
    put('e2e/fixtures/bad/big.jsonl', 'fixture');
    put('tools/electronegativity/node_modules/x/index.js', 'pkg');
    expect(makersVersion(root)).toBe(v1);
    put('shared/hash.ts', 'h2');
    const v2 = makersVersion(root);
    expect(v2).not.toBe(v1);
    put('e2e/specs/scale.spec.ts', 'writer');
    expect(makersVersion(root)).not.toBe(v2);
  });
});

describe('the bad corpus', () => {
  it('gives a generated input as the bytes its maker makes, and a committed one from e2e/fixtures/bad', () => {
    const path = badInputPath('garbage-130k-lines.sidecar.jsonl');
    expect(path.startsWith(GENERATED_ROOT)).toBe(true);
    const text = readFileSync(path, 'utf8');
    expect(text.split('\n').filter((l) => l.startsWith('npm WARN deprecated')).length).toBeGreaterThan(40_000);
    expect(badInputPath('empty.sidecar.jsonl')).toMatch(/e2e[\\/]fixtures[\\/]bad[\\/]empty\.sidecar\.jsonl$/);
  });
});
