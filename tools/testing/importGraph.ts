/**
 * The import graph between the repository's own TypeScript files, and the cycles in it
 * (docs/import-cycles.md). Each file is parsed on its own with the TypeScript compiler API (no
 * program, no type checking), and only relative imports are followed: packages and files outside
 * the folders given are not part of the graph.
 *
 * An edge is `type` when the compiler erases it (`import type`, `export type … from`), `dynamic`
 * for an `import('…')` call with a literal path, else `static`. Under `verbatimModuleSyntax`
 * (tsconfig.base.json) `import { type A } from './a'` is kept as `import {} from './a'`: it runs
 * './a', so it is a `static` edge.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

export type ImportKind = 'static' | 'dynamic' | 'type';

export interface ImportEdge {
  /** Absolute paths of the importing and the imported file. */
  from: string;
  to: string;
  kind: ImportKind;
  /** 1-based line of the import in `from`. */
  line: number;
}

const SOURCE = /\.tsx?$/;

/** Every `.ts` and `.tsx` file (declaration files aside) under `folders` of `root`, sorted. */
export function sourceFiles(root: string, folders: readonly string[]): string[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile() && SOURCE.test(entry.name) && !entry.name.endsWith('.d.ts')) files.push(path);
    }
  };
  for (const folder of folders) walk(resolve(root, folder));
  return files.sort();
}

/** The file a relative specifier names among `known`, as a bundler resolves it (no extension, `.js` for `.ts`, a folder's index). */
function resolveRelative(from: string, specifier: string, known: ReadonlySet<string>): string | undefined {
  if (!specifier.startsWith('./') && !specifier.startsWith('../')) return undefined;
  const base = resolve(dirname(from), specifier);
  const stem = base.replace(/\.(m?j)sx?$/, '');
  const candidates = [base, `${base}.ts`, `${base}.tsx`, `${stem}.ts`, `${stem}.tsx`, join(base, 'index.ts'), join(base, 'index.tsx')];
  return candidates.find((c) => known.has(c));
}

/** The imports one file's text makes: specifier, kind and 1-based line. */
export function importsOf(path: string, text: string): { specifier: string; kind: ImportKind; line: number }[] {
  const file = ts.createSourceFile(path, text, { languageVersion: ts.ScriptTarget.Latest, jsDocParsingMode: ts.JSDocParsingMode.ParseNone }, false, path.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const found: { specifier: string; kind: ImportKind; line: number }[] = [];
  const add = (specifier: ts.Node | undefined, typeOnly: boolean, at: ts.Node, dynamic = false) => {
    if (specifier === undefined || !ts.isStringLiteralLike(specifier)) return;
    found.push({ specifier: specifier.text, kind: typeOnly ? 'type' : dynamic ? 'dynamic' : 'static', line: file.getLineAndCharacterOfPosition(at.getStart(file)).line + 1 });
  };
  for (const statement of file.statements) {
    if (ts.isImportDeclaration(statement)) add(statement.moduleSpecifier, statement.importClause?.isTypeOnly === true, statement);
    else if (ts.isExportDeclaration(statement)) add(statement.moduleSpecifier, statement.isTypeOnly, statement);
    else if (ts.isImportEqualsDeclaration(statement) && ts.isExternalModuleReference(statement.moduleReference)) add(statement.moduleReference.expression, statement.isTypeOnly, statement);
  }
  // `import('…')` can stand anywhere; only files that spell it are walked whole.
  if (/\bimport\s*\(/.test(text)) {
    const visit = (node: ts.Node): void => {
      if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) add(node.arguments[0], false, node, true);
      ts.forEachChild(node, visit);
    };
    visit(file);
  }
  return found;
}

/** The edges between `files` (absolute paths): each import of one of them that names another. */
export function importGraph(files: readonly string[]): ImportEdge[] {
  const known = new Set(files);
  const edges: ImportEdge[] = [];
  for (const from of files) {
    for (const { specifier, kind, line } of importsOf(from, readFileSync(from, 'utf8'))) {
      const to = resolveRelative(from, specifier, known);
      if (to !== undefined) edges.push({ from, to, kind, line });
    }
  }
  return edges;
}

/** Files that import each other, directly or through others: a strongly connected component of the graph. */
export interface ImportKnot {
  /** Its files, in path order. */
  files: string[];
  /** One cycle through its first file: the shortest way round (breadth first). */
  cycle: ImportEdge[];
}

/**
 * The knots among `edges`: every strongly connected component of more than one file, and every file
 * that imports itself, in path order. Tarjan's algorithm, iterative.
 */
export function importKnots(edges: readonly ImportEdge[]): ImportKnot[] {
  const out = new Map<string, ImportEdge[]>();
  for (const e of edges) {
    if (!out.has(e.from)) out.set(e.from, []);
    out.get(e.from)!.push(e);
  }
  const nodes = [...new Set(edges.flatMap((e) => [e.from, e.to]))].sort();
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const components: string[][] = [];
  for (const start of nodes) {
    if (index.has(start)) continue;
    const work: { node: string; next: number }[] = [{ node: start, next: 0 }];
    index.set(start, index.size);
    low.set(start, index.get(start)!);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const next = (out.get(frame.node) ?? [])[frame.next++];
      if (next !== undefined) {
        if (!index.has(next.to)) {
          index.set(next.to, index.size);
          low.set(next.to, index.get(next.to)!);
          stack.push(next.to);
          onStack.add(next.to);
          work.push({ node: next.to, next: 0 });
        } else if (onStack.has(next.to)) {
          low.set(frame.node, Math.min(low.get(frame.node)!, index.get(next.to)!));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(frame.node)!));
      if (low.get(frame.node) === index.get(frame.node)) {
        const component: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.node);
        components.push(component.sort());
      }
    }
  }
  const knots: ImportKnot[] = [];
  for (const component of components) {
    const first = component[0]!;
    const self = (out.get(first) ?? []).find((e) => e.to === first);
    if (component.length === 1) {
      if (self) knots.push({ files: component, cycle: [self] });
      continue;
    }
    // The shortest way back to `first` inside the component (breadth first).
    const members = new Set(component);
    const via = new Map<string, ImportEdge>();
    const queue = [first];
    for (let i = 0; i < queue.length && !via.has(first); i++) {
      for (const e of out.get(queue[i]!) ?? []) {
        if (!members.has(e.to) || via.has(e.to)) continue;
        via.set(e.to, e);
        queue.push(e.to);
      }
    }
    const cycle: ImportEdge[] = [];
    for (let at = first; cycle.length === 0 || at !== first; ) {
      const e = via.get(at)!;
      cycle.unshift(e);
      at = e.from;
    }
    knots.push({ files: component, cycle });
  }
  return knots.sort((a, b) => (a.files[0]! < b.files[0]! ? -1 : 1));
}

/** A path relative to `root`, with `/` between folders. */
export function repoPath(path: string, root: string): string {
  return relative(root, path).split(sep).join('/');
}

/**
 * A knot as one line, paths relative to `root`: its cycle with each import's line and kind, then
 * the knot's other files: `a.ts:3 → b.ts:7 (type) → a.ts; also c.ts`.
 */
export function describeKnot(knot: ImportKnot, root: string): string {
  const name = (path: string) => repoPath(path, root);
  const cycle = [...knot.cycle.map((e) => `${name(e.from)}:${e.line}${e.kind === 'type' ? ' (type)' : e.kind === 'dynamic' ? ' (import())' : ''}`), name(knot.cycle[0]!.from)].join(' → ');
  const others = knot.files.filter((f) => !knot.cycle.some((e) => e.from === f));
  return others.length === 0 ? cycle : `${cycle}; also ${others.map(name).join(', ')}`;
}
