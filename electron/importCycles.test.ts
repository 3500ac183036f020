/**
 * No file of shared/, electron/ or renderer/ takes part in a run-time import cycle, and type-only
 * cycles stay inside the store's slices (docs/import-cycles.md).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../tools/testing/files';
import type { ImportEdge } from '../tools/testing/importGraph';
import { describeKnot, importKnots, importGraph, importsOf, repoPath, sourceFiles } from '../tools/testing/importGraph';

const REPO = resolve(import.meta.dirname, '..');
/** The folders of the app's own code. */
const LAYERS = ['shared', 'electron', 'renderer'];
/** zustand's slices pattern: each slice is typed with the whole state (renderer/store/appState.ts), which is the sum of the slices. */
const SLICES_FOLDER = 'renderer/store/';

const runTime = (edges: readonly ImportEdge[]) => edges.filter((e) => e.kind !== 'type');

describe('import cycles between the files of shared/, electron/ and renderer/', () => {
  let edges: ImportEdge[];
  // About 2 s of CPU (docs/import-cycles.md): parsing some 400 files, most of it the parser's warm-up.
  beforeAll(() => {
    edges = importGraph(sourceFiles(REPO, LAYERS));
  }, 120_000);

  it('reads every layer (a graph that lost its files would find no cycle)', () => {
    const from = new Set(edges.map((e) => repoPath(e.from, REPO).split('/')[0]));
    expect([...from].sort()).toEqual([...LAYERS].sort());
    expect(edges.filter((e) => e.kind === 'type').length).toBeGreaterThan(100);
    expect(runTime(edges).length).toBeGreaterThan(500);
  });

  it('has no run-time import cycle (import, export … from, import())', () => {
    expect(importKnots(runTime(edges)).map((c) => describeKnot(c, REPO))).toEqual([]);
  });

  it("counting type imports too, has cycles only among the store's slices (zustand's slices pattern)", () => {
    const outside = importKnots(edges).filter((knot) => !knot.files.every((f) => repoPath(f, REPO).startsWith(SLICES_FOLDER)));
    expect(outside.map((c) => describeKnot(c, REPO))).toEqual([]);
  });
});

describe('importGraph and importKnots', () => {
  const dir = tempDir('import-cycles-');
  afterAll(() => dir.cleanup());
  const write = (name: string, text: string) => {
    mkdirSync(dirname(dir.path(name)), { recursive: true });
    writeFileSync(dir.path(name), text);
  };

  it('find a cycle through imports, re-exports, import() and a folder index; not through import type or text that reads like an import', () => {
    // a ↔ b: plain imports.
    write('a.ts', "import { b } from './b';\nexport const a = 1 + b;\n");
    write('b.ts', "import { a } from './a';\nexport const b = () => a;\n");
    // c ↔ d: import type and export type only.
    write('c.ts', "import type { D } from './d';\nexport interface C { d?: D }\n");
    write('d.ts', "export type { C } from './c';\nexport interface D { n: number }\n");
    // e → f → e: a re-export, and an inline type specifier (kept as `import {} from './e'`).
    write('e.ts', "export * from './f';\nexport const e = 1;\n");
    write('f.ts', "import { type E } from './e.js';\nexport type F = E;\n");
    // g → h → g: import() is run time too.
    write('g.ts', "export function g() {\n  return import('./h');\n}\n");
    write('h.ts', "import { g } from './g';\nexport const h = g;\n");
    // i → j/index → i.
    write('i.tsx', "import { j } from './j';\nexport const i = j;\n");
    write('j/index.ts', "import { i } from '../i';\nexport const j = () => i;\n");
    // k → l only: k's template literal spells an import of l, l imports k.
    write('k.ts', "export const k = `\nimport { l } from './l';\n`;\n");
    write('l.ts', "import { k } from './k';\nexport const l = k;\n");
    // m: a package and a stylesheet are no files of the graph.
    write('m.ts', "import { z } from 'zod';\nimport './m.css';\nexport const m = z;\n");

    const edges = importGraph(sourceFiles(dir.dir, ['.']));
    expect(importKnots(runTime(edges)).map((c) => describeKnot(c, dir.dir))).toEqual([
      'a.ts:1 → b.ts:1 → a.ts',
      'e.ts:1 → f.ts:1 → e.ts',
      'g.ts:2 (import()) → h.ts:1 → g.ts',
      'i.tsx:1 → j/index.ts:1 → i.tsx',
    ]);
    expect(importKnots(edges).map((c) => describeKnot(c, dir.dir))).toContain('c.ts:1 (type) → d.ts:1 (type) → c.ts');
    expect(edges.filter((e) => e.from.endsWith('m.ts'))).toEqual([]);
  });

  it('find a file that imports itself, and name every file of a knot with its shortest cycle', () => {
    expect(importsOf('x.ts', "import './x';\nexport {};\n")).toEqual([{ specifier: './x', kind: 'static', line: 1 }]);
    const at = (name: string) => join('/r', name);
    const edge = (from: string, to: string, line = 1): ImportEdge => ({ from: at(from), to: at(to), kind: 'static', line });
    expect(importKnots([edge('x.ts', 'x.ts')]).map((c) => describeKnot(c, '/r'))).toEqual(['x.ts:1 → x.ts']);
    const three = [edge('p.ts', 'q.ts'), edge('q.ts', 'r.ts'), edge('r.ts', 'p.ts', 4), edge('q.ts', 's.ts', 2), edge('s.ts', 'p.ts')];
    expect(importKnots(three).map((c) => describeKnot(c, '/r'))).toEqual(['p.ts:1 → q.ts:1 → r.ts:4 → p.ts; also s.ts']);
  });
});
